// The rows of one Parquet file as plain objects, read with hyparquet (pure JavaScript,
// bundled into dist/) and every codec a Parquet writer may pick (hyparquet-compressors:
// Snappy, ZSTD, GZIP, Brotli, LZ4). Neuron Explorer's schema counts a change of codec as a
// PATCH version, so no codec is assumed.

import { lstat, readFile } from 'node:fs/promises';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export type Row = Record<string, unknown>;

/** The largest table file read (whole, into memory). */
export const MAX_TABLE_BYTES = 2 ** 30;

/**
 * Every row of the file at `path`, with only `columns` (those of them the file has) when
 * given. INT64 values come back as numbers (exact up to 2^53: nanoseconds of 104 days),
 * lists of them as number arrays.
 */
export async function readParquetRows(path: string, columns?: readonly string[]): Promise<Row[]> {
  // The profiler may be pull-request code: a link there could point at a runner's file,
  // a table of many GB would take the runner's memory.
  const info = await lstat(path);
  if (!info.isFile()) {
    throw new Error(`${path} is not a regular file (a link?); the gate does not read through it`);
  }
  if (info.size > MAX_TABLE_BYTES) {
    throw new Error(
      `${path} is ${(info.size / 2 ** 30).toFixed(1)} GiB, more than the ${MAX_TABLE_BYTES / 2 ** 30} GiB the gate reads of one table (profile fewer executions: NEURON_RT_INSPECT_DEVICE_PROFILE=model)`,
    );
  }
  const bytes = await readFile(path);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  let present: string[] | undefined;
  if (columns) {
    const names = new Set(parquetSchema(parquetMetadata(file)).children.map((c) => c.element.name));
    present = columns.filter((name) => names.has(name));
  }
  const rows = await parquetReadObjects({
    file,
    compressors,
    ...(present ? { columns: present } : {}),
  });
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
}

function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

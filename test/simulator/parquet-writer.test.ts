// The simulator's own Parquet writer (nothing to install) read back by the gate's reader
// (hyparquet): every type, more than 15 columns (Thrift's long list header), many rows, and
// values at the edges of their types.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readParquetRows } from '../../src/profile/tables/parquet-rows.js';
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import { parquetTable } from '../../examples/simulated-inf2/lib/parquet-writer.mjs';

type Columns = [string, string][];
const write = parquetTable as (columns: Columns, rows: Record<string, unknown>[]) => Buffer;

async function roundTrip(columns: Columns, rows: Record<string, unknown>[]) {
  const path = join(await mkdtemp(join(tmpdir(), 'perf-gate-pq-')), 'T.parquet');
  await writeFile(path, write(columns, rows));
  return readParquetRows(path);
}

describe('the simulator Parquet writer', () => {
  it('writes every type so that hyparquet reads the same values', async () => {
    const columns: Columns = [
      ['flag', 'BOOLEAN'],
      ['small', 'INT32'],
      ['big', 'INT64'],
      ['ratio', 'FLOAT'],
      ['seconds', 'DOUBLE'],
      ['name', 'STRING'],
    ];
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      flag: i % 3 === 0,
      small: i % 2 ? -(2 ** 31) + i : 2 ** 31 - 1 - i,
      big: i % 2 ? 2 ** 53 - i : -(2 ** 40) - i,
      ratio: i / 8,
      seconds: i * 1e-9 + 0.1,
      name: i % 5 ? `NeuronLlamaDecoderLayer[${i}]/mlp.act_fn/aten.silu` : 'ünïcödé ✓',
    }));
    expect(await roundTrip(columns, rows)).toEqual(rows);
  });

  it('writes more than 15 columns and a table of no rows', async () => {
    const columns: Columns = Array.from({ length: 40 }, (_, i) => [`c${i}`, 'INT64']);
    const row = Object.fromEntries(columns.map(([name], i) => [name, i * 1_000_000_007]));
    expect(await roundTrip(columns, [row, row])).toEqual([row, row]);
    expect(await roundTrip([['x', 'STRING']], [])).toEqual([]);
  });

  it('refuses a row without a value for a column, naming the column', () => {
    expect(() => write([['framework_name', 'STRING']], [{}])).toThrow(
      /row without a value for the required column framework_name/,
    );
  });
});

// A processed profile as Neuron Explorer's Parquet tables: a folder with one `<Table>.parquet`
// per table (a large one split as `<Table>_0.parquet`, `<Table>_1.parquet`, …; a table with no
// rows, such as CcOp without collectives, has no file). Keyed on
// Metadata.profile_schema_version: the gate reads the schema majors it knows and refuses any
// other by name before reading a row of the rest, so a changed layout is never half-read.
// Fields: the schema reference of aws-neuron-sdk, tools/neuron-explorer/
// profile-schema-reference.rst (schema 7.4.0, Neuron SDK 2.31).

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readParquetRows, type Row } from './parquet-rows.js';

/** Schema majors whose tables and fields this reader was written against. */
export const KNOWN_SCHEMA_MAJORS = [7] as const;

export interface ProfileTables {
  dir: string;
  /** Metadata.profile_schema_version, e.g. "7.4.0". */
  schemaVersion: string;
  /** The one Metadata row. */
  metadata: Row;
  /** Summary rows: one per profiled graph (the same fields and values as summary-json). */
  summary: Row[];
  /** Warning rows (`message`, `category`): what the profiler says may be missing or wrong. */
  warnings: Row[];
  /** ThrottleSummary rows: per NeuronCore (`nc_idx`) and `throttle_type` ("all": every type). */
  throttles: Row[];
  /** FrameworkInstruction rows (the columns the operator diff uses). */
  frameworkOps: Row[];
  /** CcOp rows: one per collective operation (none without collectives). */
  collectives: Row[];
}

/** FrameworkInstruction's columns the operator diff reads (not the per-interval lists). */
export const FRAMEWORK_OP_COLUMNS = [
  'framework_name',
  'modular_flow_invocation_idx',
  'start_ts',
  'end_ts',
  'time_intervals',
  'hbm_read_bytes',
  'hbm_write_bytes',
  'tensor_engine_instruction_count',
  'vector_engine_instruction_count',
  'scalar_engine_instruction_count',
  'gpsimd_engine_instruction_count',
  'sync_engine_instruction_count',
];

const TABLE_FILE = /^([A-Za-z][A-Za-z0-9]*?)(?:_(\d+))?\.parquet$/;

/** The table files of `dir` by table name, split parts in order. */
export async function tableFiles(dir: string): Promise<Map<string, string[]>> {
  const parts = new Map<string, { index: number; path: string }[]>();
  for (const name of (await readdir(dir)).sort()) {
    const match = TABLE_FILE.exec(name);
    if (!match) continue;
    const list = parts.get(match[1]!) ?? [];
    list.push({ index: match[2] === undefined ? -1 : Number(match[2]), path: join(dir, name) });
    parts.set(match[1]!, list);
  }
  return new Map(
    [...parts].map(([table, list]) => [
      table,
      list.sort((a, b) => a.index - b.index).map((part) => part.path),
    ]),
  );
}

/** Every row of `table` (none when it has no file), from all of its parts. */
async function rowsOf(
  files: Map<string, string[]>,
  table: string,
  columns?: readonly string[],
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const path of files.get(table) ?? []) rows.push(...(await readParquetRows(path, columns)));
  return rows;
}

/**
 * Reads the tables of the profile folder `dir`. Throws, naming the folder, file and field,
 * when it has no Metadata, or a schema version this reader does not know.
 */
export async function readProfileTables(dir: string): Promise<ProfileTables> {
  const files = await tableFiles(dir);
  const metadataFile = files.get('Metadata')?.[0];
  if (metadataFile === undefined) {
    throw new Error(
      `${dir}: no Metadata.parquet, so not a folder of Neuron Explorer profile tables (view --output-format parquet writes one per profile)`,
    );
  }
  const [metadata] = await readParquetRows(metadataFile);
  const schemaVersion = checkedSchemaVersion(metadata?.profile_schema_version, metadataFile);
  const [summary, warnings, throttles, frameworkOps, collectives] = await Promise.all([
    rowsOf(files, 'Summary'),
    rowsOf(files, 'Warning'),
    rowsOf(files, 'ThrottleSummary'),
    rowsOf(files, 'FrameworkInstruction', FRAMEWORK_OP_COLUMNS),
    rowsOf(files, 'CcOp'),
  ]);
  return {
    dir,
    schemaVersion,
    metadata: metadata!,
    summary,
    warnings,
    throttles,
    frameworkOps,
    collectives,
  };
}

/** The version, when it is MAJOR.MINOR.PATCH of a known major; else a refusal naming it. */
export function checkedSchemaVersion(value: unknown, file: string): string {
  const where = `${file}: profile_schema_version`;
  if (typeof value !== 'string' || !/^\d+\.\d+\.\d+$/.test(value)) {
    throw new Error(
      `${where} is ${JSON.stringify(value) ?? 'missing'}, not a MAJOR.MINOR.PATCH version; the profile tables are not read`,
    );
  }
  const major = Number(value.split('.')[0]);
  if (!(KNOWN_SCHEMA_MAJORS as readonly number[]).includes(major)) {
    const known = KNOWN_SCHEMA_MAJORS.map((m) => `${m}.x`).join(', ');
    throw new Error(
      `${where} is ${value}: a schema this gate does not read (it reads ${known}; a new major renames or removes fields), so the profile tables are not read; the profile is summarised from summary-json where the profiler still writes it`,
    );
  }
  return value;
}

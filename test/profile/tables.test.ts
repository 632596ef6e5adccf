// Neuron Explorer's profile tables (Parquet, schema 7.4.0) read by the gate: the schema
// version checked before any other table, split and missing tables, and Summary rows read
// to the same figures as the summary-json holding the same values.
import { mkdtemp, readdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSummaryJson } from '../../src/profile/summary-json.js';
import { graphsOfTables } from '../../src/profile/tables/graphs.js';
import { MAX_TABLE_BYTES } from '../../src/profile/tables/parquet-rows.js';
import { readProfileTables, tableFiles } from '../../src/profile/tables/profile-tables.js';
import {
  METADATA_FIELDS,
  SUMMARY_FIELDS,
  THROTTLE_SUMMARY_FIELDS,
  WARNING_FIELDS,
  metadataRow,
  writeTable,
} from '../support/profile-tables.js';

const profileDir = () => mkdtemp(join(tmpdir(), 'perf-gate-tables-'));

/** A decode step's Summary, as a summary-json would print it (percent fields as fractions). */
const SUMMARY = {
  total_time: 0.0125,
  total_exec_time: 0.0121,
  mfu_estimated_percent: 0.375,
  mfu_max_achievable_estimated_percent: 0.8125,
  mbu_estimated_percent: 0.625,
  hfu_estimated_percent: 0.4375,
  tensor_engine_active_time_percent: 0.5,
  vector_engine_active_time_percent: 0.25,
  scalar_engine_active_time_percent: 0.125,
  gpsimd_engine_active_time_percent: 0.0625,
  sync_engine_active_time_percent: 0.03125,
  dma_active_time_percent: 0.75,
  hbm_read_bytes: 3_221_225_472,
  hbm_write_bytes: 134_217_728,
  model_flops: 9_007_199_254,
  mm_arithmetic_intensity: 2.5,
  cc_op_time: 0,
  spill_reload_bytes: 0,
};

describe('readProfileTables', () => {
  it('reads Metadata, Summary, Warning and ThrottleSummary, whatever the codec', async () => {
    for (const codec of ['SNAPPY', 'UNCOMPRESSED'] as const) {
      const dir = await profileDir();
      await writeTable(dir, 'Metadata', METADATA_FIELDS, [metadataRow('7.4.0')], { codec });
      await writeTable(dir, 'Summary', SUMMARY_FIELDS, [SUMMARY], { codec });
      await writeTable(dir, 'Warning', WARNING_FIELDS, [
        { message: 'Current NEFF is missing compiler metrics.', category: 'Missing Data' },
      ]);
      await writeTable(dir, 'ThrottleSummary', THROTTLE_SUMMARY_FIELDS, [
        { nc_idx: 0, throttle_type: 'all', throttle_active_time_ns: 2_500_000 },
      ]);
      const tables = await readProfileTables(dir);
      expect(tables.schemaVersion).toBe('7.4.0');
      expect(tables.metadata.instance_type).toBe('inf2.xlarge');
      expect(tables.metadata.first_hw_timestamp).toBe(1_000_000);
      expect(tables.summary).toHaveLength(1);
      expect(tables.summary[0]!.hbm_read_bytes).toBe(3_221_225_472);
      expect(tables.summary[0]!.total_time).toBeCloseTo(0.0125, 6);
      expect(tables.warnings).toEqual([
        { message: 'Current NEFF is missing compiler metrics.', category: 'Missing Data' },
      ]);
      expect(tables.throttles[0]).toMatchObject({ nc_idx: 0, throttle_active_time_ns: 2_500_000 });
    }
  });

  it('reads a table split into numbered parts in order, and a missing table as no rows', async () => {
    const dir = await profileDir();
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [metadataRow()]);
    const messages = Array.from({ length: 12 }, (_, i) => ({ message: `w${i}`, category: 'c' }));
    // Parts 0..10 so that a plain name sort would put part 10 before part 2.
    await writeTable(dir, 'Warning', WARNING_FIELDS, messages, { parts: 11 });
    expect((await readdir(dir)).filter((n) => n.startsWith('Warning_'))).toHaveLength(11);
    expect((await tableFiles(dir)).get('Warning')!.map((p) => p.split('/').pop())).toEqual(
      Array.from({ length: 11 }, (_, i) => `Warning_${i}.parquet`),
    );
    const tables = await readProfileTables(dir);
    expect(tables.warnings.map((w) => w.message)).toEqual(messages.map((m) => m.message));
    expect(tables.summary).toEqual([]);
    expect(tables.throttles).toEqual([]);
  });

  it('refuses a schema major it does not know by name, before reading another table', async () => {
    const dir = await profileDir();
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [metadataRow('12.0.1')]);
    // A Summary that is not Parquet at all: read, it would fail with another message.
    await writeFile(join(dir, 'Summary.parquet'), 'not parquet');
    await expect(readProfileTables(dir)).rejects.toThrow(
      /Metadata\.parquet: profile_schema_version is 12\.0\.1: a schema this gate does not read \(it reads 7\.x; a new major renames or removes fields\)/,
    );
  });

  it('reads no table that is a link (the profiler may be pull-request code)', async () => {
    const dir = await profileDir();
    const elsewhere = await profileDir();
    await writeTable(elsewhere, 'Metadata', METADATA_FIELDS, [metadataRow()]);
    await symlink(join(elsewhere, 'Metadata.parquet'), join(dir, 'Metadata.parquet'));
    await expect(readProfileTables(dir)).rejects.toThrow(
      /Metadata\.parquet is not a regular file \(a link\?\); the gate does not read through it/,
    );
  });

  it('reads no table larger than it can hold, naming its size', async () => {
    const dir = await profileDir();
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [metadataRow()]);
    // A sparse file: its size without its bytes.
    await writeFile(join(dir, 'Summary.parquet'), '');
    await truncate(join(dir, 'Summary.parquet'), MAX_TABLE_BYTES + 1);
    await expect(readProfileTables(dir)).rejects.toThrow(
      /Summary\.parquet is 1\.0 GiB, more than the 1 GiB the gate reads of one table/,
    );
  });

  it('refuses a folder without Metadata, and a version that is not MAJOR.MINOR.PATCH', async () => {
    const empty = await profileDir();
    await expect(readProfileTables(empty)).rejects.toThrow(
      /no Metadata\.parquet, so not a folder of Neuron Explorer profile tables/,
    );
    const odd = await profileDir();
    await writeTable(odd, 'Metadata', METADATA_FIELDS, [metadataRow('seven')]);
    await expect(readProfileTables(odd)).rejects.toThrow(
      /profile_schema_version is "seven", not a MAJOR\.MINOR\.PATCH version/,
    );
  });
});

describe('graphsOfTables', () => {
  it('gives the figures the summary-json of the same values gives', async () => {
    const dir = await profileDir();
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [
      metadataRow('7.4.0', { profile_name: 'decode' }),
    ]);
    await writeTable(dir, 'Summary', SUMMARY_FIELDS, [SUMMARY]);
    const fromTables = graphsOfTables(await readProfileTables(dir));
    const fromJson = parseSummaryJson(JSON.stringify({ decode: SUMMARY }), 'summary-json');
    expect(fromTables.untimed).toEqual([]);
    const [table] = fromTables.graphs;
    const [json] = fromJson.graphs;
    expect(table!.key).toBe('decode');
    // FLOAT columns hold 32-bit floats: the same figures to 6 digits.
    for (const field of ['totalTime', 'mfu', 'mbu', 'hfu', 'dma', 'arithmeticIntensity'] as const) {
      expect(table![field]).toBeCloseTo(json![field]!, 5);
    }
    expect(table!.engines.tensor).toBeCloseTo(50, 5);
    expect(Object.keys(table!.engines).sort()).toEqual(Object.keys(json!.engines).sort());
    expect(table!.hbmReadBytes).toBe(json!.hbmReadBytes);
    expect(table!.modelFlops).toBe(json!.modelFlops);
  });

  it('names each graph of a profile with several Summary rows, and keeps untimed ones apart', async () => {
    const dir = await profileDir();
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [metadataRow()]);
    await writeTable(dir, 'Summary', SUMMARY_FIELDS, [SUMMARY, { ...SUMMARY, total_time: null }]);
    const read = graphsOfTables(await readProfileTables(dir));
    const name = dir.split('/').pop();
    expect(read.graphs.map((g) => g.key)).toEqual([`${name}#0`]);
    expect(read.untimed).toEqual([`${name}#1`]);
  });
});

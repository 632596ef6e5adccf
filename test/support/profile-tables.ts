// Neuron Explorer profile tables written as the profiler writes them: one Parquet file per
// table, fields typed as the schema reference gives them (aws-neuron/aws-neuron-sdk,
// tools/neuron-explorer/profile-schema-reference.rst at 429e31b3, schema 7.4.0, SDK 2.31:
// "integer (int64)" → INT64, "integer (int32)" → INT32, "number (float)" → FLOAT, "string",
// "boolean"), with hyparquet-writer.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';

type FieldType = 'INT32' | 'INT64' | 'FLOAT' | 'BOOLEAN' | 'STRING';
type Codec = 'SNAPPY' | 'UNCOMPRESSED';

/** Metadata's required fields in 7.4.0, and a few optional ones, with their types. */
export const METADATA_FIELDS: Record<string, FieldType> = {
  profile_schema_version: 'STRING',
  ntff_version: 'INT32',
  num_physical_cores: 'INT32',
  vnc_enabled: 'BOOLEAN',
  first_hw_timestamp: 'INT64',
  last_hw_timestamp: 'INT64',
  first_ts: 'STRING',
  last_ts: 'STRING',
  dma_ddr_bandwidth: 'FLOAT',
  num_dma_engines_per_neuroncore: 'INT32',
  hbm_ddr_bandwidth: 'FLOAT',
  tensor_engine_num_rows: 'INT64',
  tensor_engine_num_cols: 'INT64',
  tensor_engine_clock_freq: 'FLOAT',
  vector_engine_clock_freq: 'FLOAT',
  vector_engine_num_channels: 'INT64',
  scalar_engine_clock_freq: 'FLOAT',
  scalar_engine_num_channels: 'INT64',
  gpsimd_engine_clock_freq: 'FLOAT',
  gpsimd_engine_num_channels: 'INT64',
  neuroncore_clock_freq: 'FLOAT',
  ticks_per_nanosec: 'INT64',
  instance_type: 'STRING',
  compiler_version: 'STRING',
  explorer_version: 'STRING',
  profile_name: 'STRING',
};

/** The Summary fields the gate reads, with their 7.4.0 types (all optional). */
export const SUMMARY_FIELDS: Record<string, FieldType> = {
  total_time: 'FLOAT',
  total_exec_time: 'FLOAT',
  mfu_estimated_percent: 'FLOAT',
  mfu_max_achievable_estimated_percent: 'FLOAT',
  mbu_estimated_percent: 'FLOAT',
  hfu_estimated_percent: 'FLOAT',
  tensor_engine_active_time_percent: 'FLOAT',
  vector_engine_active_time_percent: 'FLOAT',
  scalar_engine_active_time_percent: 'FLOAT',
  gpsimd_engine_active_time_percent: 'FLOAT',
  sync_engine_active_time_percent: 'FLOAT',
  dma_active_time_percent: 'FLOAT',
  hbm_read_bytes: 'INT64',
  hbm_write_bytes: 'INT64',
  model_flops: 'INT64',
  mm_arithmetic_intensity: 'FLOAT',
  cc_op_time: 'FLOAT',
  spill_reload_bytes: 'INT64',
};

export const WARNING_FIELDS: Record<string, FieldType> = { message: 'STRING', category: 'STRING' };

export const THROTTLE_SUMMARY_FIELDS: Record<string, FieldType> = {
  nc_idx: 'INT32',
  throttle_type: 'STRING',
  throttle_active_time_ns: 'INT64',
  throttle_active_time_percent: 'FLOAT',
  max_achievable_util_with_throttling_percent: 'FLOAT',
};

/** FrameworkInstruction's fields the operator diff reads, with an id and a per-interval list left out. */
export const FRAMEWORK_INSTRUCTION_FIELDS: Record<string, FieldType> = {
  id: 'INT64',
  raw_bir_id: 'INT64',
  raw_penguin_id: 'INT64',
  raw_hlo_id: 'INT64',
  raw_framework_id: 'INT64',
  modular_flow_invocation_idx: 'INT64',
  framework_name: 'STRING',
  start_ts: 'INT64',
  end_ts: 'INT64',
  time_intervals: 'STRING',
  hbm_read_bytes: 'INT64',
  hbm_write_bytes: 'INT64',
  sbuf_read_bytes: 'INT64',
  tensor_engine_instruction_count: 'INT64',
  scalar_engine_instruction_count: 'INT64',
  sync_engine_instruction_count: 'INT64',
  gpsimd_engine_instruction_count: 'INT64',
  vector_engine_instruction_count: 'INT64',
};

export const CC_OP_FIELDS: Record<string, FieldType> = {
  start_ts: 'INT64',
  end_ts: 'INT64',
  duration_ns: 'INT64',
  operation: 'STRING',
  algorithm: 'STRING',
  num_elements: 'INT64',
  dtype: 'STRING',
  op_id: 'INT64',
  stream_id: 'INT64',
  stream_index: 'INT64',
  trigger_engine: 'STRING',
  input_size: 'INT64',
  output_size: 'INT64',
  algorithm_bandwidth: 'FLOAT',
  bus_bandwidth: 'FLOAT',
  replica_group_id: 'INT64',
  replica_group: 'STRING',
};

/** A Metadata row of an inf2 profile at schema `version`. */
export function metadataRow(version = '7.4.0', extra: Record<string, unknown> = {}) {
  return {
    profile_schema_version: version,
    ntff_version: 2,
    num_physical_cores: 1,
    vnc_enabled: false,
    first_hw_timestamp: 1_000_000,
    last_hw_timestamp: 9_000_000,
    first_ts: '2026-11-30 03:00:00+00:00',
    last_ts: '2026-11-30 03:00:01+00:00',
    dma_ddr_bandwidth: 190e9,
    num_dma_engines_per_neuroncore: 16,
    hbm_ddr_bandwidth: 410e9,
    tensor_engine_num_rows: 128,
    tensor_engine_num_cols: 128,
    tensor_engine_clock_freq: 2.8,
    vector_engine_clock_freq: 1.4,
    vector_engine_num_channels: 128,
    scalar_engine_clock_freq: 1.4,
    scalar_engine_num_channels: 128,
    gpsimd_engine_clock_freq: 1.4,
    gpsimd_engine_num_channels: 8,
    neuroncore_clock_freq: 1.4,
    ticks_per_nanosec: 1,
    instance_type: 'inf2.xlarge',
    ...extra,
  };
}

/**
 * Writes `rows` of `table` into `dir` as `<table>.parquet`, or as `<table>_0.parquet`, … when
 * `parts` > 1 (rows dealt out in order). Fields absent from a row are written as nulls.
 */
export async function writeTable(
  dir: string,
  table: string,
  fields: Record<string, FieldType>,
  rows: Record<string, unknown>[],
  options: { parts?: number; codec?: Codec } = {},
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const parts = options.parts ?? 1;
  const size = Math.ceil(rows.length / parts);
  const written: string[] = [];
  for (let part = 0; part < parts; part += 1) {
    const slice = rows.slice(part * size, (part + 1) * size);
    const columnData = Object.entries(fields).map(([name, type]) => ({
      name,
      type,
      data: slice.map((row) => typed(row[name], type)),
    }));
    const name = parts === 1 ? `${table}.parquet` : `${table}_${part}.parquet`;
    const buffer = parquetWriteBuffer({ columnData, codec: options.codec ?? 'SNAPPY' });
    await writeFile(join(dir, name), new Uint8Array(buffer));
    written.push(name);
  }
  return written;
}

function typed(value: unknown, type: FieldType): unknown {
  if (value === undefined || value === null) return null;
  return type === 'INT64' ? BigInt(value as number) : value;
}

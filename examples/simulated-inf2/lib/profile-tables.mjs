// `view --output-format parquet --output-file DIR`: the profile as Neuron Explorer's tables,
// one Parquet file per table, with the fields and types of the schema reference
// (aws-neuron/aws-neuron-sdk, tools/neuron-explorer/profile-schema-reference.rst, schema
// 7.4.0 at SDK 2.31) that the simulator has figures for: Metadata (one row), Summary (one row
// per graph, the same values as summary-json), FrameworkInstruction (one row per framework
// op: merged time intervals, HBM bytes, instructions per engine), CcOp (one row per
// collective, at tensor parallelism > 1), ThrottleSummary (one "all" row per NeuronCore)
// and Warning (only when there is one). Times in the tables are nanoseconds.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTIVE_ALGORITHM, COLLECTIVE_OPERATION, opsOfGraph } from './op-model.mjs';
import { parquetTable } from './parquet-writer.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';

export const SCHEMA_VERSION = '7.4.0';
/** Where the first instruction of a profile starts on the device clock, ns. */
const FIRST_TS = 1_700_000_000_000;
/** A simulated instruction lasts this long on its engine, ns (for the instruction counts). */
const INSTRUCTION_NS = 400;
const BF16_BYTES = 2;

const INT64_SUMMARY = /(_bytes|_flops|_count|_cycle_count)$/;

/**
 * Summary's columns from the first graph's summary: byte, flop and count fields INT64, other
 * numbers FLOAT, text STRING; a field without a value is left out.
 */
function summaryColumns(summary) {
  return Object.keys(summary)
    .filter((key) => summary[key] !== undefined && summary[key] !== null)
    .map((key) => {
      const value = summary[key];
      if (typeof value === 'string') return [key, 'STRING'];
      return [key, INT64_SUMMARY.test(key) && Number.isInteger(value) ? 'INT64' : 'FLOAT'];
    });
}

function metadataTable(graphs, profileName, schemaVersion) {
  const [{ ntff }] = graphs;
  const row = {
    profile_schema_version: schemaVersion,
    ntff_version: 2,
    // Physical NeuronCores in the logical core profiled (LNC).
    num_physical_cores: ntff.physical_cores ?? 1,
    vnc_enabled: (ntff.physical_cores ?? 1) > 1,
    first_hw_timestamp: FIRST_TS,
    last_hw_timestamp:
      FIRST_TS + Math.round(graphs.reduce((s, g) => s + g.entry.total_time, 0) * 1e9),
    first_ts: ntff.captured_at,
    last_ts: ntff.captured_at,
    hbm_ddr_bandwidth: ntff.hbm_bytes_per_second_per_core,
    neuroncore_clock_freq: 1.4,
    ticks_per_nanosec: 1,
    instance_type: ntff.instance_type,
    compiler_version: ntff.compiler_version ?? SIMULATED_VERSIONS.compiler,
    explorer_version: ntff.profiler_version ?? SIMULATED_VERSIONS.profiler,
    profile_name: profileName,
  };
  const types = {
    profile_schema_version: 'STRING',
    ntff_version: 'INT32',
    num_physical_cores: 'INT32',
    vnc_enabled: 'BOOLEAN',
    first_hw_timestamp: 'INT64',
    last_hw_timestamp: 'INT64',
    ticks_per_nanosec: 'INT64',
    hbm_ddr_bandwidth: 'FLOAT',
    neuroncore_clock_freq: 'FLOAT',
  };
  // A field the NTFF has no value for is left out (every column of the writer is required).
  const present = Object.keys(row).filter((key) => row[key] !== undefined);
  return parquetTable(
    present.map((key) => [key, types[key] ?? 'STRING']),
    [row],
  );
}

const FRAMEWORK_COLUMNS = [
  ['id', 'INT64'],
  ['framework_name', 'STRING'],
  ['modular_flow_invocation_idx', 'INT64'],
  ['start_ts', 'INT64'],
  ['end_ts', 'INT64'],
  ['time_intervals', 'STRING'],
  ['hbm_read_bytes', 'INT64'],
  ['hbm_write_bytes', 'INT64'],
  ['tensor_engine_instruction_count', 'INT64'],
  ['vector_engine_instruction_count', 'INT64'],
  ['scalar_engine_instruction_count', 'INT64'],
  ['gpsimd_engine_instruction_count', 'INT64'],
  ['sync_engine_instruction_count', 'INT64'],
];
const ENGINES = ['tensor', 'vector', 'scalar', 'gpsimd', 'sync'];

const CC_COLUMNS = [
  ['start_ts', 'INT64'],
  ['end_ts', 'INT64'],
  ['duration_ns', 'INT64'],
  ['operation', 'STRING'],
  ['algorithm', 'STRING'],
  ['num_elements', 'INT64'],
  ['dtype', 'STRING'],
  ['op_id', 'INT64'],
  ['input_size', 'INT64'],
  ['output_size', 'INT64'],
  ['algorithm_bandwidth', 'FLOAT'],
  ['bus_bandwidth', 'FLOAT'],
  ['replica_group_id', 'INT64'],
  ['replica_group', 'STRING'],
];

/** One graph's op rows (and collective rows), laid end to end from `start` on its core. */
function opRows(graph, start, ids, tensorParallelSize) {
  const framework = [];
  const collectives = [];
  let at = start;
  const ops = graph.entry.op_ns
    ? opsOfGraph({
        graph: graph.entry.graph,
        tensorParallelSize,
        opNs: graph.entry.op_ns,
        hbmRead: graph.entry.hbm_read_bytes,
        hbmWrite: graph.entry.hbm_write_bytes,
      })
    : [];
  for (const op of ops) {
    const end = at + op.ns;
    const row = {
      id: ids.next++,
      framework_name: op.op,
      modular_flow_invocation_idx: 0,
      start_ts: at,
      end_ts: end,
      time_intervals: JSON.stringify([[at, end]]),
      hbm_read_bytes: op.hbmRead,
      hbm_write_bytes: op.hbmWrite,
    };
    // Most instructions on the op's engine, a few on the others (DMA waits, syncs).
    for (const engine of ENGINES) {
      const own = engine === op.engine;
      row[`${engine}_engine_instruction_count`] = Math.max(
        own ? 1 : 0,
        Math.round((op.ns / INSTRUCTION_NS) * (own ? 1 : 0.05)),
      );
    }
    framework.push(row);
    if (op.collective) collectives.push(ccRow(op, at, end, collectives.length, tensorParallelSize));
    at = end;
  }
  return { framework, collectives, end: at };
}

/** An all-reduce of the op's bytes over the TP group: ring bus bandwidth 2(n−1)/n × size/time. */
function ccRow(op, start, end, opId, n) {
  const size = op.hbmRead + op.hbmWrite;
  const seconds = op.ns / 1e9;
  const algorithm = size / seconds;
  return {
    start_ts: start,
    end_ts: end,
    duration_ns: op.ns,
    operation: COLLECTIVE_OPERATION,
    algorithm: COLLECTIVE_ALGORITHM,
    num_elements: Math.round(size / BF16_BYTES),
    dtype: 'bfloat16',
    op_id: opId,
    input_size: size,
    output_size: size,
    algorithm_bandwidth: algorithm,
    bus_bandwidth: (algorithm * 2 * (n - 1)) / n,
    replica_group_id: 0,
    replica_group: JSON.stringify([Array.from({ length: n }, (_, i) => i)]),
  };
}

function throttleRows(graphs) {
  const byCore = new Map();
  for (const g of graphs) {
    const vnc = g.ntff.vnc ?? 0;
    const seen = byCore.get(vnc) ?? { time: 0, fraction: g.ntff.throttled_fraction ?? 0 };
    seen.time += g.entry.total_time;
    byCore.set(vnc, seen);
  }
  return [...byCore].map(([vnc, { time, fraction }]) => ({
    nc_idx: vnc,
    throttle_type: 'all',
    throttle_active_time_ns: Math.round(time * fraction * 1e9),
    throttle_active_time_percent: fraction,
    max_achievable_util_with_throttling_percent: 1 - fraction,
  }));
}

/** "Category: message" or a bare message (category "Simulated"). */
function warningRow(text) {
  const at = text.indexOf(':');
  return at > 0
    ? { category: text.slice(0, at).trim(), message: text.slice(at + 1).trim() }
    : { category: 'Simulated', message: text };
}

/**
 * Writes the tables of `graphs` (each { ntff, neff, entry, summary }) into `dir` (made when
 * missing), each file written beside its place first and renamed into it: a failed view
 * leaves no half-written table. Returns the tables' names.
 */
export function writeProfileTables(dir, graphs, profileName, schemaVersion = SCHEMA_VERSION) {
  const tables = {
    Metadata: metadataTable(graphs, profileName, schemaVersion),
    Summary: parquetTable(
      summaryColumns(graphs[0].summary),
      graphs.map((g) => g.summary),
    ),
  };
  const framework = [];
  const collectives = [];
  const ids = { next: 1 };
  const cursor = new Map();
  for (const graph of graphs) {
    const vnc = graph.ntff.vnc ?? 0;
    const tp = graph.neff.tensor_parallel_size ?? 1;
    const rows = opRows(graph, cursor.get(vnc) ?? FIRST_TS, ids, tp);
    cursor.set(vnc, rows.end);
    framework.push(...rows.framework);
    collectives.push(...rows.collectives);
  }
  if (framework.length > 0)
    tables.FrameworkInstruction = parquetTable(FRAMEWORK_COLUMNS, framework);
  if (collectives.length > 0) tables.CcOp = parquetTable(CC_COLUMNS, collectives);
  tables.ThrottleSummary = parquetTable(
    [
      ['nc_idx', 'INT32'],
      ['throttle_type', 'STRING'],
      ['throttle_active_time_ns', 'INT64'],
      ['throttle_active_time_percent', 'FLOAT'],
      ['max_achievable_util_with_throttling_percent', 'FLOAT'],
    ],
    throttleRows(graphs),
  );
  const warnings = [...new Set(graphs.map((g) => g.ntff.warning).filter(Boolean))];
  if (warnings.length > 0) {
    tables.Warning = parquetTable(
      [
        ['category', 'STRING'],
        ['message', 'STRING'],
      ],
      warnings.map(warningRow),
    );
  }
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(tables)) {
    const file = join(dir, `${name}.parquet`);
    writeFileSync(`${file}.writing`, bytes);
    renameSync(`${file}.writing`, file);
  }
  return Object.keys(tables);
}

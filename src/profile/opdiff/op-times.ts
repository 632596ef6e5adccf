// Each framework operator's device time in one profile, from the profile tables'
// FrameworkInstruction rows. An operator is known by its framework name (the model's module
// path and op, like `NeuronLlamaDecoderLayer[1]/function[2]/aten.add`): it survives a
// recompile, where the tables' numeric ids and HLO names (`dot.1`) do not. Its calls
// (modular_flow_invocation_idx) are added together.

import type { EngineName, OpTime } from '../../model.js';
import type { Row } from '../tables/parquet-rows.js';

export type { OpTime };

/** The name rows without a framework name are filed under. */
export const UNNAMED_OP = '(no framework name)';

const ENGINE_COUNTS: [EngineName, string][] = [
  ['tensor', 'tensor_engine_instruction_count'],
  ['vector', 'vector_engine_instruction_count'],
  ['scalar', 'scalar_engine_instruction_count'],
  ['gpsimd', 'gpsimd_engine_instruction_count'],
  ['sync', 'sync_engine_instruction_count'],
];

export function opTimes(rows: readonly Row[]): Map<string, OpTime> {
  const ops = new Map<string, OpTime>();
  for (const row of rows) addTo(ops, nameOf(row.framework_name), rowTime(row));
  return ops;
}

/** One FrameworkInstruction row's time, HBM bytes and instructions: one call of its op. */
function rowTime(row: Row): Omit<OpTime, 'op'> {
  const instructions: OpTime['instructions'] = {};
  for (const [engine, field] of ENGINE_COUNTS) {
    if (count(row[field]) > 0) instructions[engine] = count(row[field]);
  }
  return {
    deviceNs: busyNs(row.time_intervals, row.start_ts, row.end_ts),
    calls: 1,
    hbmBytes: count(row.hbm_read_bytes) + count(row.hbm_write_bytes),
    instructions,
  };
}

/** Adds `time` to the entry of `op` in `ops` (made when missing). */
export function addTo(ops: Map<string, OpTime>, op: string, time: Omit<OpTime, 'op'>): void {
  const sum = ops.get(op) ?? { op, deviceNs: 0, calls: 0, hbmBytes: 0, instructions: {} };
  sum.deviceNs += time.deviceNs;
  sum.calls += time.calls;
  sum.hbmBytes += time.hbmBytes;
  for (const [engine, n] of Object.entries(time.instructions) as [EngineName, number][]) {
    sum.instructions[engine] = (sum.instructions[engine] ?? 0) + n;
  }
  ops.set(op, sum);
}

function nameOf(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : UNNAMED_OP;
}

/**
 * The nanoseconds covered by `time_intervals` (a text list of [start, end] pairs, merged
 * already by the profiler; merged again here in case), else end_ts − start_ts.
 */
export function busyNs(intervals: unknown, start: unknown, end: unknown): number {
  const pairs = parsedIntervals(intervals);
  if (pairs === undefined) return Math.max(0, count(end) - count(start));
  pairs.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const [s, e] of pairs) {
    if (s > to) {
      if (to > from) total += to - from;
      [from, to] = [s, e];
    } else if (e > to) to = e;
  }
  if (to > from) total += to - from;
  return total;
}

function parsedIntervals(text: unknown): [number, number][] | undefined {
  if (typeof text !== 'string') return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(data)) return undefined;
  const pairs = data.filter(
    (p): p is [number, number] =>
      Array.isArray(p) && p.length === 2 && p.every(Number.isFinite) && p[1] >= p[0],
  );
  return pairs.length === data.length ? pairs : undefined;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * An op's kind: its name with every index left out (`Layer[3]/qkv_proj/aten.mm` →
 * `Layer[*]/qkv_proj/aten.mm`), so a change spread over every layer's copy of an op (an
 * engine or kernel slower everywhere) shows as one line where each copy alone is in the noise.
 */
export function opKind(op: string): string {
  return op.replace(/\[\d+\]/g, '[*]');
}

/** The op times added up by kind. */
export function byKind(ops: ReadonlyMap<string, OpTime>): Map<string, OpTime> {
  const kinds = new Map<string, OpTime>();
  for (const time of ops.values()) addTo(kinds, opKind(time.op), time);
  return kinds;
}

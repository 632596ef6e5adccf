// A sweep's latency–throughput curve: each variant's newest default-branch record as one
// point (throughput across, P50 and P99 latency up), sorted by throughput, so that the
// knee where batching stops paying is visible at a glance.

import type { StoredRecordRef } from '../history/series.js';

export interface SweepCurve {
  gate: string;
  sweep: string;
  throughputUnit: string;
  latencyUnit: string;
  /** Per variant, sorted by throughput. */
  variants: string[];
  throughput: number[];
  p50: number[];
  p99: number[];
}

const NOT_HISTORY = new Set(['pull_request', 'pull_request_target', 'merge_group']);

/** The curves of every sweep in `records`; variants without all three metrics are left out. */
export function sweepCurves(records: readonly StoredRecordRef[]): SweepCurve[] {
  const newest = new Map<string, StoredRecordRef['record']>();
  for (const { record } of records) {
    if (!record.result.sweep || record.verdict === 'error' || NOT_HISTORY.has(record.event)) {
      continue;
    }
    const key = JSON.stringify([record.gateKey, record.benchmark]);
    const known = newest.get(key);
    if (!known || known.createdAt < record.createdAt) newest.set(key, record);
  }
  const curves = new Map<string, SweepCurve & { points: [number, number, number, string][] }>();
  for (const record of newest.values()) {
    const sweep = record.result.sweep!;
    const throughput = record.summary.throughput;
    const p50 = record.summary.latency_p50;
    const p99 = record.summary.latency_p99;
    if (!throughput || !p50 || !p99) continue;
    const key = JSON.stringify([record.gateKey, sweep.name]);
    let curve = curves.get(key);
    if (!curve) {
      const unitOf = (id: string) => record.result.metrics.find((m) => m.id === id)?.unit ?? '';
      curve = {
        gate: record.gateKey,
        sweep: sweep.name,
        throughputUnit: unitOf('throughput'),
        latencyUnit: unitOf('latency_p50'),
        variants: [],
        throughput: [],
        p50: [],
        p99: [],
        points: [],
      };
      curves.set(key, curve);
    }
    curve.points.push([throughput.mean, p50.mean, p99.mean, sweep.variant]);
  }
  return [...curves.values()]
    .map(({ points, ...curve }) => {
      points.sort((a, b) => a[0] - b[0]);
      return {
        ...curve,
        variants: points.map((p) => p[3]),
        throughput: points.map((p) => p[0]),
        p50: points.map((p) => p[1]),
        p99: points.map((p) => p[2]),
      };
    })
    .sort((a, b) => a.gate.localeCompare(b.gate) || a.sweep.localeCompare(b.sweep));
}

// A history to compare with, made from one stored night: copies of its record dated the
// nights before it (night k: k + 1 days earlier), each night's figures about 1% apart as
// the simulator's are, without per-request samples.
import type { BaselineRecord } from '../../src/baseline/record.js';

export function earlierNights(
  night: BaselineRecord,
  nights: number,
  as: { benchmark?: string; skip?: number } = {},
): BaselineRecord[] {
  return Array.from({ length: nights }, (_, k) => k).flatMap((k) => {
    if (k < (as.skip ?? 0)) return [];
    const record = structuredClone(night);
    if (as.benchmark !== undefined) {
      record.benchmark = as.benchmark;
      record.result.name = as.benchmark;
    }
    record.createdAt = new Date(Date.parse(record.createdAt) - (k + 1) * 86_400_000).toISOString();
    record.runId = `seed-${k}`;
    const factor = 1 + 0.01 * Math.sin(3 * k + 1);
    for (const metric of record.result.metrics) {
      metric.values = metric.values.map((v) => v * factor);
      delete metric.samples;
    }
    return [record];
  });
}

// A metric's values by the stored record (the gate run) each came from: Metric.records
// says how many each brought, newest record first.

import type { Metric } from '../model.js';

/** How many values each record brought; one record of all of them when it does not say. */
export function recordSizes(metric: Metric): number[] {
  return metric.records ?? [metric.values.length];
}

/**
 * The values split by record; all of them as one record when `records` does not account
 * for exactly the values (absent, a single record, or sizes that do not add up).
 */
export function valuesByRecord(metric: Metric): number[][] {
  const sizes = metric.records;
  if (!sizes || sizes.length < 2 || sizes.reduce((s, n) => s + n, 0) !== metric.values.length) {
    return [metric.values];
  }
  const groups: number[][] = [];
  let start = 0;
  for (const size of sizes) {
    groups.push(metric.values.slice(start, start + size));
    start += size;
  }
  return groups;
}

// Helpers shared by the format tests.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { GateError } from '../../src/errors.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import type { ParsedResultFile } from '../../src/formats/index.js';
import type { BenchmarkResult, NotMeasuredNote, ParsedMetric } from '../../src/model.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/formats/', import.meta.url));

/** The note of a not-measured time: in ms, lower is better, as every format gives times. */
export function msNote(reason: string): NotMeasuredNote {
  return { reason, unit: 'ms', direction: 'lower-is-better' };
}

/** The note of a not-measured rate in `unit` (the format's own: ops/s, queries/s, ...). */
export function rateNote(reason: string, unit: string): NotMeasuredNote {
  return { reason, unit, direction: 'higher-is-better' };
}

/** Path of a fixture under test/fixtures/formats/, e.g. 'offline-benchmark/reference.json'. */
export function fixturePath(name: string): string {
  return `${FIXTURES}${name}`;
}

/** The GateError thrown by `action`; fails the test when it throws nothing or something else. */
export function caughtGateError(action: () => unknown): GateError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(GateError);
    return error as GateError;
  }
  throw new Error('expected a GateError, but nothing was thrown');
}

export async function rejectedGateError(promise: Promise<unknown>): Promise<GateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GateError);
    return error as GateError;
  }
  throw new Error('expected a GateError, but the promise resolved');
}

/** Asserts an input error about `file` whose message contains every fragment. */
export function expectInputError(error: GateError, file: string, ...fragments: string[]): void {
  expect(error.kind).toBe('input');
  expect(error.file).toBe(file);
  expect(error.message.startsWith(`${file}: `)).toBe(true);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
}

/** The metric `id` of `benchmark`; fails the test when it is missing. */
export function metricOf(
  benchmark: { metrics: { id: string }[] } | undefined,
  id: string,
): ParsedMetric {
  const found = benchmark?.metrics.find((m) => m.id === id);
  if (!found) throw new Error(`metric ${id} missing`);
  return found as ParsedMetric;
}

/** The ids of the metrics of `benchmark`, in order. */
export function metricIds(benchmark: { metrics: { id: string }[] } | undefined): string[] {
  return benchmark?.metrics.map((m) => m.id) ?? [];
}

/** A fixture's parsed JSON, for tests that edit it. */
export function fixtureJson<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(fixturePath(name), 'utf8')) as T;
}

/** A parsed file's benchmarks as the compare stage takes them: runs aggregated, info kept. */
export function benchmarkResults(
  parsed: ParsedResultFile,
  file: string,
  fallbackName: string,
): BenchmarkResult[] {
  return aggregateRuns(
    parsed.runs.map((benchmarks) => ({ file, benchmarks })),
    fallbackName,
  ).map((benchmark) => ({
    name: benchmark.name,
    format: parsed.format,
    metrics: benchmark.metrics,
    runs: [],
    ...(benchmark.info ? { info: benchmark.info } : {}),
  }));
}

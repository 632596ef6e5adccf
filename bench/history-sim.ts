// A simulated nightly history, as the gate stores it: one record per benchmark and night
// with 3 clean runs (per-request latencies included), a Neuron SDK upgrade part way, one
// benchmark whose throughput drops for good (the gate flags it; a few nights later it is
// accepted), and a sweep of batch sizes. Used by the dashboard test and bench.

import { type BaselineRecord } from '../src/baseline/record.js';
import { createRecord } from '../src/baseline/record-create.js';
import type { BenchmarkResult, Environment, Metric } from '../src/model.js';
import { createRng } from './random.js';

export interface HistoryShape {
  nights: number;
  /** Plain benchmarks (each gives 5 series: throughput, latency p50/p95/p99, mfu). */
  benchmarks: number;
  /** Variants of one sweep, besides the plain benchmarks. */
  sweepVariants?: number;
  /** Requests per run (per-request latencies stored). */
  requests?: number;
  /** The night the SDK is upgraded (0: never). */
  sdkUpgradeAt?: number;
  /** The night benchmark 0's throughput drops 12% (0: never); accepted 3 nights later. */
  regressionAt?: number;
  seed?: string;
  gateKey?: string;
  /** Names of the plain benchmarks (default: model-0, model-1, ...). */
  names?: string[];
  /** The first night's time (ms since the epoch); 2026-01-01 03:00 UTC unless given. */
  start?: number;
  /** More speed changes of single plain benchmarks (a regression that comes and goes, a small step). */
  events?: SpeedEvent[];
}

/**
 * A plain benchmark runs at `factor` times its speed from night `from` until the night
 * before `until` (for good when absent): throughput × factor, latencies ÷ factor. The
 * gate's verdict on those nights is `verdict` (pass when absent).
 */
export interface SpeedEvent {
  benchmark: number;
  from: number;
  until?: number;
  factor: number;
  verdict?: 'regression';
}

const START = Date.UTC(2026, 0, 1, 3, 0, 0);
const DAY = 24 * 3600 * 1000;

export function benchmarkName(shape: HistoryShape, index: number): string {
  return shape.names?.[index] ?? `model-${index}`;
}

/** The records of `night` (0-based), one per benchmark. */
export function recordsOfNight(shape: HistoryShape, night: number): BaselineRecord[] {
  const rng = createRng(`${shape.seed ?? 'dashboard'}:${night}`);
  const requests = shape.requests ?? 200;
  const upgraded = (shape.sdkUpgradeAt ?? 0) > 0 && night >= shape.sdkUpgradeAt!;
  const environment: Environment = {
    instanceType: 'inf2.xlarge',
    neuronCores: 2,
    neuronSdkVersion: upgraded ? '2.27.0' : '2.26.0',
    compilerVersion: upgraded ? '2.20.1' : '2.19.3',
    vllmVersion: '0.10.1',
    vllmNeuronVersion: '0.3.0',
  };
  const commit = (night * 2654435761).toString(16).padStart(8, '0').repeat(5).slice(0, 40);
  const createdAt = new Date((shape.start ?? START) + night * DAY);
  const runId = String(9_000_000_000 + night);
  const records: BaselineRecord[] = [];
  const measure = (name: string, speed: number, sweep?: BenchmarkResult['sweep']) => {
    const dropped =
      name === benchmarkName(shape, 0) &&
      (shape.regressionAt ?? 0) > 0 &&
      night >= shape.regressionAt!;
    const events = (shape.events ?? []).filter(
      (e) =>
        name === benchmarkName(shape, e.benchmark) &&
        night >= e.from &&
        (e.until === undefined || night < e.until),
    );
    const eventFactor = events.reduce((f, e) => f * e.factor, 1);
    const factor = speed * (dropped ? 0.88 : 1) * (upgraded ? 1.03 : 1) * eventFactor;
    const runs = [0, 1, 2].map(() => 1 + rng.normal() * 0.01);
    const latencies = runs.map((run) =>
      Array.from({ length: requests }, () => (300 / factor / run) * Math.exp(rng.normal() * 0.15)),
    );
    const pct = (values: number[], p: number) => {
      const sorted = [...values].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
    };
    const latency = (id: string, p: number): Metric => ({
      id,
      unit: 'ms',
      direction: 'lower-is-better',
      values: latencies.map((l) => pct(l, p)),
      samples: latencies,
      percentile: p,
    });
    const result: BenchmarkResult = {
      name,
      format: 'vllm-bench-serve',
      ...(sweep ? { sweep } : {}),
      metrics: [
        {
          id: 'throughput',
          unit: 'requests/s',
          direction: 'higher-is-better',
          values: runs.map((run) => 3.2 * factor * run),
        },
        latency('latency_p50', 50),
        latency('latency_p95', 95),
        latency('latency_p99', 99),
        {
          id: 'mfu',
          unit: '%',
          direction: 'higher-is-better',
          values: [31 * factor * (1 + rng.normal() * 0.005)],
        },
      ],
      runs: [],
      environment,
    };
    const accepted = dropped && night === shape.regressionAt! + 3;
    records.push(
      createRecord({
        gateKey: shape.gateKey ?? 'nightly',
        result,
        commit,
        branch: 'main',
        event: 'schedule',
        runId,
        verdict:
          (dropped && !accepted && night < shape.regressionAt! + 3) ||
          events.some((e) => e.verdict === 'regression')
            ? 'regression'
            : 'pass',
        createdAt,
        ...(accepted
          ? { acceptance: { reason: 'accept-after', at: createdAt.toISOString(), by: 'gate' } }
          : {}),
      }),
    );
  };
  for (let b = 0; b < shape.benchmarks; b += 1) measure(benchmarkName(shape, b), 1 + b * 0.1);
  for (let v = 0; v < (shape.sweepVariants ?? 0); v += 1) {
    const batch = 2 ** v;
    // Bigger batches: more throughput, and latency that climbs past the knee.
    measure(`bs-sweep/bs${batch}`, Math.sqrt(batch), {
      name: 'bs-sweep',
      variant: `bs${batch}`,
      params: { batch_size: batch },
    });
  }
  return records;
}

/**
 * 40 nights of 3 benchmarks as a person meets them on the dashboard: a regression of
 * model-0 that comes back six nights later, an SDK upgrade that moves every series, a
 * small step of model-1 well inside its threshold, and a regression of model-2 that is
 * still open on the newest night.
 */
export const ATTENTION_SHAPE: HistoryShape = {
  nights: 40,
  benchmarks: 3,
  requests: 50,
  sdkUpgradeAt: 20,
  events: [
    { benchmark: 0, from: 8, until: 14, factor: 0.9, verdict: 'regression' },
    { benchmark: 1, from: 26, factor: 0.98 },
    { benchmark: 2, from: 33, factor: 0.9, verdict: 'regression' },
  ],
};

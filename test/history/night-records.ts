// Stored records of simulated nights, for history tests that go through a real data
// branch: every benchmark measured each night with `runs` runs, throughput and P50.
import { type BaselineRecord } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import type { Environment } from '../../src/model.js';
import { gamma, seededRandom } from '../../src/stats/rng.js';
import { cleanRuns } from '../support/clean-runs.js';

export interface NightsOptions {
  gateKey?: string;
  benchmarks: string[];
  nights: number;
  runs?: number;
  runCv?: number;
  /** A benchmark's own run CV, over `runCv` (a noisier benchmark). */
  runCvOf?: (benchmark: string) => number | undefined;
  /** Latency factor of a benchmark on a night (1: as usual; 1.1: 10% slower). */
  slowdown?: (benchmark: string, night: number) => number;
  environment?: (night: number) => Environment;
  verdict?: (benchmark: string, night: number) => BaselineRecord['verdict'];
  seed?: string;
}

export const NIGHT0 = Date.UTC(2026, 2, 1, 3, 0, 0);

export function nightRecords(options: NightsOptions, night: number): BaselineRecord[] {
  const random = seededRandom(`${options.seed ?? 'nights'}:${night}`);
  const runs = options.runs ?? 3;
  return options.benchmarks.map((benchmark) => {
    const cv = options.runCvOf?.(benchmark) ?? options.runCv ?? 0.02;
    const shape = 1 / (cv * cv);
    const slow = options.slowdown?.(benchmark, night) ?? 1;
    const latencies = Array.from(
      { length: runs },
      () => 300 * slow * (gamma(random, shape) / shape),
    );
    return createRecord({
      gateKey: options.gateKey ?? 'nightly',
      result: {
        name: benchmark,
        format: 'offline-benchmark',
        metrics: [
          {
            id: 'throughput',
            unit: 'req/s',
            direction: 'higher-is-better',
            values: latencies.map((ms) => 1000 / ms),
          },
          { id: 'latency_p50', unit: 'ms', direction: 'lower-is-better', values: latencies },
        ],
        runs: cleanRuns(latencies.length),
        environment: {
          instanceType: 'inf2.xlarge',
          neuronCores: 2,
          configHash: 'cafe123',
          ...(options.environment?.(night) ?? { neuronSdkVersion: '2.26.0' }),
        },
      },
      commit: (0xabc000 + night).toString(16).padEnd(40, '0'),
      branch: 'main',
      event: 'schedule',
      runId: `${1000 + night}-1`,
      verdict: options.verdict?.(benchmark, night) ?? 'pass',
      createdAt: new Date(NIGHT0 + night * 86_400_000),
    });
  });
}

export function allNights(options: NightsOptions): BaselineRecord[] {
  return Array.from({ length: options.nights }, (_, night) => nightRecords(options, night)).flat();
}

// `capacity: search` as the gate runs it, on a server whose E2E median follows a queue's
// T0 / (1 − λ / capacity): one search per run index from the grid's runs of that index,
// probes made from the first variant with its load parameter set, each search's crossing a
// value of the capacity, and a probe that fails leaving the searches before it standing.
import { describe, expect, it } from 'vitest';

import type { VariantRuns } from '../../src/compare/capacity-passes.js';
import { judgeCapacityBySearch, seedOrder } from '../../src/compare/capacity-search-run.js';
import { capacityConfigHash, configHash } from '../../src/config/config-hash.js';
import type { SloSpec } from '../../src/config/slo.js';
import type { BenchmarkSpec } from '../../src/config/types.js';
import type { DerivedCapacity } from '../../src/derive/capacity.js';
import type { BenchmarkResult, RunOutcome } from '../../src/model.js';

const SEARCH = { mode: 'search' as const, search: {} };
const SLO: SloSpec = {
  objectives: [{ metric: 'e2el', limitMs: 2500, percentile: 50 }],
  attainment: 0.9,
  capacity: SEARCH,
};
const RATES = [1, 2, 4, 6, 8];
const T0 = 1584;
/** The simulated server's capacity, and where its E2E median crosses 2.5 s. */
const CAPACITY = 10;
const CROSSING = CAPACITY * (1 - T0 / 2500);

const latency = (load: number) => (load >= CAPACITY ? 1e6 : T0 / (1 - load / CAPACITY));

function spec(rate: number, params: Record<string, unknown> = { 'request-rate': rate }) {
  return {
    name: `serve/rate-${rate}`,
    runs: 2,
    slo: SLO,
    sweep: { name: 'serve', variant: `rate-${rate}`, params },
  } as unknown as BenchmarkSpec;
}

const outcome = (index: number): RunOutcome =>
  ({ kind: 'clean', ok: true, index, durationMs: 1000 }) as unknown as RunOutcome;

/** A result of `runs` runs at the spec's load (its parameter, or `echoed` in the file). */
function resultOf(s: BenchmarkSpec, runs: number, echoed?: number): BenchmarkResult {
  const load = echoed ?? Number(s.sweep!.params['request-rate']);
  return {
    name: s.name,
    format: 'vllm-bench-serve',
    metrics: [
      {
        id: 'e2el_p50',
        unit: 'ms',
        direction: 'lower-is-better',
        values: Array(runs).fill(latency(load)),
      },
    ],
    runs: [],
    info: { request_rate: load },
  };
}

function harness(options: { failAt?: number; params?: (rate: number) => Record<string, unknown> }) {
  const variants: VariantRuns[] = RATES.map((rate) => {
    const s = spec(rate, options.params?.(rate));
    return { spec: s, outcomes: [outcome(1), outcome(2)], result: resultOf(s, 2, rate) };
  });
  const probes: { name: string; index: number; params: Record<string, unknown> }[] = [];
  let judged: DerivedCapacity | undefined;
  const run = judgeCapacityBySearch({ name: 'serve', slo: SLO, search: {} }, variants, {
    budget: 0.05,
    log: { info: () => {}, warning: () => {}, error: () => {}, debug: () => {} } as never,
    runOnce: async (s, index) => {
      probes.push({ name: s.name, index, params: s.sweep!.params });
      return { ...outcome(index), ok: probes.length !== options.failAt } as RunOutcome;
    },
    parse: async (s, outcomes) => {
      const rate = RATES.find((r) => s.name === `serve/rate-${r}`);
      return [resultOf(s, outcomes.length, rate)];
    },
    judge: async (derived) => {
      judged = derived;
      return [];
    },
  });
  return { run, probes, judged: () => judged! };
}

interface SearchInfo {
  summary: string;
  searches: { value: number; bracket: [number, number]; runs: number; seeded: number }[];
}

describe('the capacity found by boundary searches', () => {
  it('searches once per run index from the grid, within 5% of the crossing', async () => {
    const { run, probes, judged } = harness({});
    await run;
    const derived = judged();
    const capacity = derived.result.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.values).toHaveLength(2);
    const search = derived.result.info!.search as SearchInfo;
    for (const [index, s] of search.searches.entries()) {
      expect(s.value).toBe(capacity.values[index]);
      expect(s.bracket[0]).toBeLessThanOrEqual(CROSSING);
      expect(s.bracket[1]).toBeGreaterThanOrEqual(CROSSING);
      expect(Math.abs(s.value - CROSSING) / CROSSING).toBeLessThan(0.05);
      expect(s.seeded).toBe(5);
      // The grid's bracket 2–4, then the secant (on the crossing, the line being straight)
      // and a step past it closes the bracket: 2 probes (3 when the grid's order, every
      // failed load last, halves the held end's weight from the start).
      expect(s.runs - s.seeded).toBe(2);
    }
    // Probes: the first variant with its rate set, numbered on in the capacity's folder.
    expect(probes.map((p) => p.name)).toEqual(probes.map(() => 'serve/capacity'));
    expect(probes.map((p) => p.index)).toEqual(probes.map((_, i) => i + 1));
    expect(Object.keys(probes[0]!.params)).toEqual(['request-rate']);
    expect(search.summary).toMatch(
      /^searched: 2 searches, \d+ runs \(10 of the grid's, \d probes\), resolution 5%, intervals /,
    );
    expect(derived.result.notMeasured?.capacity).toBeUndefined();
  });

  it('starts the search even: the bracket ends last, the failed one first', () => {
    const seeds = RATES.map((load) => ({ load, margin: 2500 / latency(load) - 1 }));
    expect(seedOrder(seeds).map((p) => p.load)).toEqual([1, 6, 8, 4, 2]);
  });

  it('judges on the searches before a probe that failed, and says so', async () => {
    const { run, judged } = harness({ failAt: 4 });
    await run;
    const derived = judged();
    expect(derived.result.metrics[0]?.values.length).toBe(1);
    expect(derived.warnings.join('\n')).toMatch(
      /capacity search 2 stopped: the probe at [\d.]+ \(run 4\) failed/,
    );
  });

  it('is not measured when the variants give the load only in their result files', async () => {
    const { run, probes, judged } = harness({ params: () => ({ prompts: 100 }) });
    await run;
    expect(probes).toHaveLength(0);
    expect(judged().result.notMeasured?.capacity?.reason).toContain(
      'capacity: search sets the load as a sweep parameter',
    );
  });

  it('keeps the variants’ config hash and gives the searched capacity its own', () => {
    const settings = {
      command: './bench.sh',
      format: 'vllm-bench-serve',
      runs: 3,
      env: {},
      workingDirectory: '/w',
    };
    const grid = { ...SLO, capacity: undefined };
    const variant = configHash({ ...settings, slo: SLO }, '/w');
    expect(variant).toBe(configHash({ ...settings, slo: grid }, '/w'));
    expect(capacityConfigHash([{ configHash: variant, slo: SLO }])).not.toBe(
      capacityConfigHash([{ configHash: variant, slo: grid }]),
    );
  });
});

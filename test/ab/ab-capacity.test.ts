// A/B mode's capacity under the SLO: each side's sweep gives one capacity per run index
// (the stored mode's derivation), each of the block its runs ran in, and the two sides'
// capacities are judged paired within the blocks: a head whose server saturates 10% sooner
// fails on capacity, an unchanged one does not.
import { describe, expect, it } from 'vitest';
import { abSweeps, judgeAbCapacity, type AbSweep } from '../../src/ab/ab-capacity.js';
import type { SloSpec } from '../../src/config/slo.js';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { deriveSloMetrics } from '../../src/derive/slo-metrics.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultText } from '../../src/formats/index.js';
import type { BenchmarkResult } from '../../src/model.js';
import { cleanRuns } from '../support/clean-runs.js';
import { serveResult } from '../support/serve-result.js';

const RATES = [1, 2, 4, 6, 8];
const SLO: SloSpec = {
  objectives: [{ metric: 'ttft', limitMs: 450, percentile: 99 }],
  attainment: 0.9,
};
/** Two blocks of base head head base: each side's runs 1, 2 in block 0 and 3, 4 in block 1. */
const BLOCKS = [0, 0, 1, 1];
/** Each block's host speed (shared by both sides) and each run's own noise. */
const HOST = [1, 1.3, 1.1];
const RUN_NOISE = [1.01, 0.99, 1.0, 1.02];
const QUIET = { requests: 200, requestSpread: 0.05 };

const SWEEP: AbSweep = {
  name: 'serve',
  slo: SLO,
  variants: RATES.map((rate) => ({ benchmark: `serve/rate-${rate}`, variant: `rate-${rate}` })),
  thresholds: { capacity: 0.05 },
};

/** One side's variant at `rate`: its runs parsed, derived, every metric with its runs' blocks. */
function variant(
  side: string,
  rate: number,
  saturation: number,
  blocks: readonly number[] = BLOCKS,
  stalled?: number,
): BenchmarkResult {
  const parsed = blocks.map((block, run) => {
    const runFactor = HOST[block]! * RUN_NOISE[run]! * (run === stalled ? 5 : 1);
    // Requests many and alike enough that 2 blocks settle a 10% loss at the gate's level.
    const options = { rate, saturation, seed: `${side}-${rate}-${run}`, runFactor, ...QUIET };
    const text = JSON.stringify(serveResult(options));
    return { file: `run-${run}.json`, benchmarks: parseResultText(text, 'f', 'auto').benchmarks };
  });
  const [aggregated] = aggregateRuns(parsed, `serve/rate-${rate}`);
  const result = deriveSloMetrics(
    {
      ...aggregated!,
      format: 'vllm-bench-serve',
      runs: cleanRuns(blocks.length),
      sweep: { name: 'serve', variant: `rate-${rate}`, params: { request_rate: rate } },
    },
    SLO,
  ).result;
  for (const metric of result.metrics) {
    if (metric.values.length === blocks.length) metric.blocks = [...blocks];
  }
  return result;
}

/**
 * Judged with the head's variant at `odd` run in other blocks than the others, and its
 * run `stalled` (0-based) of every variant five times slower.
 */
function judge(head: number, { odd, stalled }: { odd?: number; stalled?: number } = {}) {
  const results = new Map(
    RATES.map((rate) => [
      `serve/rate-${rate}`,
      {
        base: variant('base', rate, 10),
        head: variant('head', rate, head, rate === odd ? [0, 1, 1, 2] : BLOCKS, stalled),
      },
    ]),
  );
  return judgeAbCapacity(SWEEP, (name) => results.get(name)!, {
    config: { confidence: 0.95, failOnInconclusive: false },
    budget: 0.005 / 6,
    baseLabel: 'main',
  });
}

describe('A/B capacity under the SLO', () => {
  it("gives each side's capacity per run, in its runs' blocks, and fails a head that saturates 10% sooner", () => {
    const { reports, base } = judge(9);
    const [report] = reports;
    expect(report!.name).toBe('serve/capacity');
    const head = report!.result!.metrics.find((m) => m.id === 'capacity')!;
    expect(head.values).toHaveLength(4);
    expect(head.blocks).toEqual(BLOCKS);
    expect(base.metrics[0]!.blocks).toEqual(BLOCKS);
    const capacity = report!.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.method).toBe('paired-t');
    expect(capacity.verdict).toBe('regression');
    expect(capacity.change!).toBeLessThan(-0.07);
    expect(capacity.change!).toBeGreaterThan(-0.13);
    expect(capacity.ci![1]).toBeLessThan(0);
    expect(report!.verdict).toBe('regression');
  });

  it('passes a head whose server is unchanged, though the host is 30% slower in the second block', () => {
    const [report] = judge(10).reports;
    const capacity = report!.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.method).toBe('paired-t');
    expect(capacity.verdict).not.toBe('regression');
    expect(Math.abs(capacity.change!)).toBeLessThan(0.03);
  });

  it("compares unpaired, and says so, when a sweep's runs lie in different blocks of its variants", () => {
    const [report] = judge(10, { odd: 6 }).reports;
    const head = report!.result!.metrics.find((m) => m.id === 'capacity')!;
    expect(head.blocks).toBeUndefined();
    expect(report!.metrics.find((m) => m.id === 'capacity')!.method).not.toBe('paired-t');
    expect(report!.warnings).toContainEqual(
      'head: capacity: its variants ran that sweep in different blocks, so it is compared unpaired',
    );
  });

  it('keeps each capacity in its own block when a sweep below the lowest load gives none', () => {
    const [report] = judge(10, { stalled: 1 }).reports;
    const head = report!.result!.metrics.find((m) => m.id === 'capacity')!;
    expect(head.values).toHaveLength(3);
    expect(head.blocks).toEqual([0, 1, 1]);
    expect(report!.metrics.find((m) => m.id === 'capacity')!.method).toBe('paired-t');
  });

  it('takes the sweeps with an SLO, each with its variants, from the specs', () => {
    const spec = (name: string, sweep?: string, slo?: SloSpec) =>
      ({
        name,
        thresholds: {},
        ...(sweep ? { sweep: { name: sweep, variant: name, params: {} } } : {}),
        ...(slo ? { slo } : {}),
      }) as unknown as BenchmarkSpec;
    const sweeps = abSweeps([
      spec('a/1', 'a', SLO),
      spec('a/2', 'a', SLO),
      spec('b/1', 'b'),
      spec('plain'),
    ]);
    expect(sweeps.map((s) => [s.name, s.variants.map((v) => v.benchmark)])).toEqual([
      ['a', ['a/1', 'a/2']],
    ]);
  });
});

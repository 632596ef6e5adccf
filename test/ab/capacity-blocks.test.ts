// A/B mode's confirmation blocks for a sweep's capacity (src/ab/capacity-blocks.ts): while
// the capacity is open, every variant is run up to the look's blocks and the capacity is
// judged again on all of them; once it is settled no block is added. The variants here
// stand in for run-ab.ts' BlockRuns: each side's runs derived from a seeded queue, two a
// side a block, each block's host speed shared by both sides.
import { describe, expect, it } from 'vitest';
import type { AbSweep, VariantSides } from '../../src/ab/ab-capacity.js';
import { confirmAbCapacity, type OpenVariant } from '../../src/ab/capacity-blocks.js';
import type { SloSpec } from '../../src/config/slo.js';
import { deriveSloMetrics } from '../../src/derive/slo-metrics.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultText } from '../../src/formats/index.js';
import { MemoryLogger } from '../../src/log.js';
import type { BenchmarkReport, BenchmarkResult } from '../../src/model.js';
import { cleanRuns } from '../support/clean-runs.js';
import { SWEEP_RATES as RATES, sweepRunText } from '../support/ab-capacity-sweep.js';

const SLO: SloSpec = {
  objectives: [{ metric: 'ttft', limitMs: 450, percentile: 99 }],
  attainment: 0.9,
};
const SWEEP: AbSweep = {
  name: 'serve',
  slo: SLO,
  variants: RATES.map((rate) => ({ benchmark: `serve/rate-${rate}`, variant: `rate-${rate}` })),
  thresholds: { capacity: 0.05 },
};

/** One side's variant over `blocks` blocks (two runs a block), every metric with its blocks. */
function measured(side: string, rate: number, saturation: number, blocks: number, noise: number) {
  const inBlocks = Array.from({ length: blocks * 2 }, (_, run) => Math.floor(run / 2));
  const parsed = inBlocks.map((_, run) => {
    const text = sweepRunText(side, rate, saturation, run + 1, noise);
    return { file: `run-${run}.json`, benchmarks: parseResultText(text, 'f', 'auto').benchmarks };
  });
  const [aggregated] = aggregateRuns(parsed, `serve/rate-${rate}`);
  const result: BenchmarkResult = deriveSloMetrics(
    {
      ...aggregated!,
      format: 'vllm-bench-serve',
      runs: cleanRuns(inBlocks.length),
      sweep: { name: 'serve', variant: `rate-${rate}`, params: { request_rate: rate } },
    },
    SLO,
  ).result;
  for (const metric of result.metrics) {
    if (metric.values.length === inBlocks.length) metric.blocks = [...inBlocks];
  }
  return result;
}

/** A variant that has run `blocks` blocks and adds as asked; `failAt` its block that fails. */
class FakeVariant implements OpenVariant {
  readonly added: number[] = [];
  constructor(
    private readonly rate: number,
    private readonly head: number,
    private run: number,
    private readonly noise: number,
    private readonly failAt?: number,
  ) {}
  blocks(): number {
    return this.run;
  }
  async add(count: number): Promise<BenchmarkReport | undefined> {
    if (this.failAt !== undefined && this.run + count > this.failAt) {
      const name = `serve/rate-${this.rate}`;
      return {
        name,
        source: name,
        format: 'auto',
        verdict: 'error',
        metrics: [],
        warnings: [],
        error: 'run 9 failed',
      };
    }
    this.added.push(count);
    this.run += count;
    return undefined;
  }
  async sides(): Promise<VariantSides> {
    return {
      base: measured('base', this.rate, 10, this.run, this.noise),
      head: measured('head', this.rate, this.head, this.run, this.noise),
    };
  }
}

function variants(head: number, blocks: (rate: number) => number, noise: number, failAt?: number) {
  return new Map(
    RATES.map((rate) => [
      `serve/rate-${rate}`,
      new FakeVariant(rate, head, blocks(rate), noise, failAt),
    ]),
  );
}

const OPTIONS = {
  config: { confidence: 0.95, failOnInconclusive: false },
  budget: 0.005 / 6,
  baseLabel: 'main',
  confirmBlocks: 4,
  maxBlocks: 6,
  log: new MemoryLogger(),
};

const capacityOf = (reports: BenchmarkReport[]) =>
  reports[0]!.metrics.find((m) => m.id === 'capacity')!;
/** Run-to-run noise (±15%) that leaves a 10% loss open at 2 blocks; at ±2.5% it fails at once. */
const NOISY = 0.3;
const QUIET = 0.05;

describe('A/B capacity: confirmation blocks', () => {
  it('adds a block to every variant while the capacity is open, and judges it on all of them', async () => {
    const open = variants(9, () => 2, NOISY);
    const judged = await confirmAbCapacity(SWEEP, open, OPTIONS);
    // The plan's looks at 4 confirm-blocks: 1, 2, then 4 more; settled at the first.
    expect([...open.values()].map((v) => v.added)).toEqual(RATES.map(() => [1]));
    expect(judged.added).toBe(1);
    expect(judged.blocks).toBe(3);
    const head = judged.reports[0]!.result!.metrics.find((m) => m.id === 'capacity')!;
    expect(head.blocks).toEqual([0, 0, 1, 1, 2, 2]);
    expect(capacityOf(judged.reports).method).toBe('paired-t');
    expect(capacityOf(judged.reports).verdict).toBe('regression');
  });

  it('adds no block once the capacity is settled at its first look', async () => {
    const open = variants(9, () => 2, QUIET);
    const judged = await confirmAbCapacity(SWEEP, open, OPTIONS);
    expect([...open.values()].every((v) => v.added.length === 0)).toBe(true);
    expect(judged.added).toBe(0);
    expect(capacityOf(judged.reports).verdict).toBe('regression');
  });

  it('lets a variant that has the blocks from its own confirmation sit the look out', async () => {
    const open = variants(9, (rate) => (rate === 8 ? 3 : 2), NOISY);
    const judged = await confirmAbCapacity(SWEEP, open, OPTIONS);
    expect(open.get('serve/rate-8')!.added).toEqual([]);
    expect(open.get('serve/rate-1')!.added).toEqual([1]);
    expect(judged.blocks).toBe(3);
  });

  it('judges on the blocks before, and says so, when a confirmation block fails', async () => {
    const open = variants(9, () => 2, NOISY, 2);
    const judged = await confirmAbCapacity(SWEEP, open, OPTIONS);
    expect(judged.added).toBe(0);
    expect(judged.blocks).toBe(2);
    expect(judged.reports[0]!.warnings).toContainEqual(
      'capacity: confirmation stopped at serve/rate-1 (run 9 failed); judged on the blocks before',
    );
  });

  it('takes no block beyond blocks + confirm-blocks in all', async () => {
    const open = variants(9, () => 2, NOISY);
    await confirmAbCapacity(SWEEP, open, { ...OPTIONS, maxBlocks: 2 });
    expect([...open.values()].every((v) => v.added.length === 0)).toBe(true);
  });
});

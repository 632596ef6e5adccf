// A sweep's capacity in A/B through runAbBenchmarks (src/ab/run-ab.ts) with real processes:
// each variant's runs stay open after its own looks, the capacity adds blocks to every
// variant while it is open, and the variants keep the verdicts and values of their own
// blocks, with a note of what the capacity added. Each run copies the next of a side's
// pre-made `vllm bench serve` results at its rate (test/support/serve-result.ts), so the
// outcome is the same every time.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAbBenchmarks, type AbBenchmark } from '../../src/ab/run-ab.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import { abProject, nodeEnv, sidesIn } from '../support/ab-in-process.js';
import { SWEEP_RATES as RATES, sweepRunText } from '../support/ab-capacity-sweep.js';

const RUNS = 12;

const BENCH = `const fs = require('node:fs');
const side = process.env.PERF_GATE_SIDE;
const rate = process.env.PERF_GATE_PARAM_REQUEST_RATE;
const file = side + '-' + rate + '.count';
const n = (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0) + 1;
fs.writeFileSync(file, String(n));
fs.copyFileSync('results/' + side + '-' + rate + '-' + n + '.json', process.env.PERF_GATE_OUTPUT);
`;

/** Each side's runs at each rate (ab-capacity-sweep.ts), its server saturating at `saturation`. */
async function results(root: string, saturation: Record<string, number>, noise: number) {
  await mkdir(join(root, 'results'));
  for (const [side, at] of Object.entries(saturation)) {
    for (const rate of RATES) {
      for (let run = 1; run <= RUNS; run += 1) {
        const text = sweepRunText(side, rate, at, run, noise);
        await writeFile(join(root, 'results', `${side}-${rate}-${run}.json`), text);
      }
    }
  }
}

async function abSweep(head: number, noise: number) {
  const root = await abProject('perf-gate-ab-capacity-blocks-', { 'bench.cjs': BENCH }, [
    'benchmarks:',
    '  - name: serve',
    '    command: node bench.cjs',
    '    format: vllm-bench-serve',
    '    slo: { ttft: { p99: 450ms } }',
    // The variants' own metrics shown, not gated: no block of their own, so any is the capacity's.
    "    thresholds: { default: 'off', capacity: 5% }",
    '    sweep:',
    '      variants:',
    ...RATES.map((rate) => `        - { name: rate-${rate}, request-rate: ${rate} }`),
  ]);
  await results(root, { base: 10, head }, noise);
  const sides = sidesIn(root, {
    base: { PERF_GATE_SIDE: 'base' },
    head: { PERF_GATE_SIDE: 'head' },
  });
  const config = await resolveGateConfig({}, { workspace: root });
  const measured = await runAbBenchmarks(
    config,
    sides,
    root,
    { blocks: 2, confirmBlocks: 4 },
    {
      runner: createProcessRunner(),
      log: new MemoryLogger(),
      env: nodeEnv(root),
    },
  );
  const capacity = measured.find((m) => m.reports[0]!.name === 'serve/capacity')!;
  return { root, capacity, variants: measured.filter((m) => m !== capacity) };
}

/** Runs each side made at each rate, read from the bench's own counters. */
async function runsMade(root: string, side: string): Promise<number[]> {
  return Promise.all(
    RATES.map(async (rate) => Number(await readFile(join(root, `${side}-${rate}.count`), 'utf8'))),
  );
}

const blocksOf = (outcome: AbBenchmark) => new Set(outcome.order.map((run) => run.block)).size;

const NOTE =
  "its sweep's capacity added block 3 to it; this verdict and these values are of its own blocks 1–2";

describe('A/B capacity with confirmation blocks (in-process)', () => {
  it('adds a block to every variant while open; the variants keep their own looks', async () => {
    // A 10% loss: open at 2 blocks (8.3% lower, 95% CI 5.8% to 10.8%), failed at 3.
    const { root, capacity, variants } = await abSweep(9, 0.3);
    expect(capacity.addedBlocks).toBe(1);
    expect(blocksOf(capacity)).toBe(3);
    const metric = capacity.reports[0]!.metrics.find((m) => m.id === 'capacity')!;
    expect(metric.verdict).toBe('regression');
    expect(capacity.reports[0]!.result!.metrics[0]!.blocks).toEqual([0, 0, 1, 1, 2, 2]);
    expect(await runsMade(root, 'base')).toEqual(RATES.map(() => 6));
    expect(await runsMade(root, 'head')).toEqual(RATES.map(() => 6));
    for (const variant of variants) {
      expect(blocksOf(variant)).toBe(2);
      expect(variant.addedBlocks).toBe(0);
      expect(variant.reports[0]!.result!.metrics[0]!.values).toHaveLength(4);
      expect(variant.reports[0]!.warnings).toContain(NOTE);
    }
  }, 120_000);

  it('adds none once the capacity is settled at its first look', async () => {
    const { root, capacity, variants } = await abSweep(10, 0.3);
    expect(capacity.addedBlocks).toBe(0);
    expect(blocksOf(capacity)).toBe(2);
    expect(await runsMade(root, 'head')).toEqual(RATES.map(() => 4));
    for (const variant of variants) expect(variant.reports[0]!.warnings).not.toContain(NOTE);
  }, 120_000);
});

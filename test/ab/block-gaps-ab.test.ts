// A/B's blocks and what stops them (src/ab/run-ab.ts, stats/paired.ts): a block one side
// has no value of a metric in is left out of that metric's pairing and named, never
// compared across blocks nor turned into NaN; and confirmation blocks are added only while
// a gated metric is open, never for a metric that is shown and not gated.

import { describe, expect, it } from 'vitest';
import type { AbSettings } from '../../src/ab/run-ab.js';
import { abIn, abProject, nodeEnv, sidesIn } from '../support/ab-in-process.js';

// Each side counts its own runs; `request` is steady, `other` has a fixed noise pattern
// (NOISE: its relative size), is OTHER_SCALE times higher on the head, and is left out of
// the runs GAP lists (side:run,...).
const BENCH = `const fs = require('node:fs');
const side = process.env.PERF_GATE_SIDE;
const file = side + '.count';
const n = (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0) + 1;
fs.writeFileSync(file, String(n));
const wiggle = [0.3, -0.8, 0.9, -0.1, 0.6, -0.5, 0.2, -0.9, 0.7, -0.3, 0.1, -0.6][(n - 1) % 12];
const out = [{ name: 'request', unit: 'ms', value: 10 + 0.01 * wiggle }];
const gap = (process.env.GAP || '').split(',').includes(side + ':' + n);
const scale = side === 'head' ? Number(process.env.OTHER_SCALE || 1) : 1;
if (!gap) out.push({ name: 'other', unit: 'ms', value: 20 * scale * (1 + Number(process.env.NOISE || 0.01) * wiggle) });
fs.writeFileSync(process.env.PERF_GATE_OUTPUT, JSON.stringify(out));
`;

async function ab(settings: AbSettings, env: Record<string, string>, thresholds = '') {
  const root = await abProject('perf-gate-ab-blocks-', { 'bench.cjs': BENCH }, [
    'benchmarks:',
    '  - name: blocks',
    '    command: node bench.cjs',
    '    format: custom-smaller-is-better',
    ...(thresholds ? [`    thresholds: ${thresholds}`] : []),
  ]);
  const sides = sidesIn(root, {
    base: { ...env, PERF_GATE_SIDE: 'base' },
    head: { ...env, PERF_GATE_SIDE: 'head' },
  });
  return abIn(root, sides, settings, nodeEnv(root));
}

/** Throws on a NaN anywhere in the report: JSON would quietly write it as null. */
function withoutNaN(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && Number.isNaN(v)) throw new Error('NaN in the report');
    return v;
  });
}

describe('a block with one side missing', () => {
  it("is left out of that metric's pairing, and its reason says which", async () => {
    // The head's two runs of block 2 (its 3rd and 4th) give no value of `other`.
    const measured = await ab({ blocks: 3, confirmBlocks: 0 }, { GAP: 'head:3,head:4' });
    const report = measured.reports[0]!;
    const other = report.metrics.find((m) => m.id === 'other')!;
    expect(other.method).toBe('paired-t');
    expect(other.reason).toMatch(/; block 2: head has no value, not paired$/);
    expect(report.result!.metrics.find((m) => m.id === 'other')!.blocks).toEqual([0, 0, 2, 2]);
    // The metric every run gave is paired in all three blocks, and says nothing of gaps.
    const request = report.metrics.find((m) => m.id === 'request')!;
    expect(request.method).toBe('paired-t');
    expect(request.reason).not.toMatch(/not paired/);
    expect(() => withoutNaN(measured)).not.toThrow();
  }, 60_000);

  it('leaves no pairing, and says so, when fewer than two blocks keep both sides', async () => {
    const measured = await ab({ blocks: 2, confirmBlocks: 0 }, { GAP: 'base:1,base:2' });
    const other = measured.reports[0]!.metrics.find((m) => m.id === 'other')!;
    expect(other.method).toBe('none');
    expect(other.ci).toBe(null);
    expect(Number.isFinite(other.change)).toBe(true);
    expect(other.reason).toMatch(
      /no pairing: 1 block has a value of both sides.*; block 1: base has no value, not paired$/,
    );
    expect(() => withoutNaN(measured)).not.toThrow();
  }, 60_000);

  it('keeps a block paired on the runs that gave a value', async () => {
    const measured = await ab({ blocks: 2, confirmBlocks: 0 }, { GAP: 'head:1' });
    const report = measured.reports[0]!;
    const other = report.metrics.find((m) => m.id === 'other')!;
    expect(other.method).toBe('paired-t');
    expect(other.reason).not.toMatch(/not paired/);
    expect(report.result!.metrics.find((m) => m.id === 'other')!.blocks).toEqual([0, 1, 1]);
  }, 60_000);
});

describe('confirmation blocks', () => {
  // `other` scatters ±8% a run: with 2 blocks its interval reaches past twice a 5%
  // threshold, and the blocks left could settle it.
  const noisy = { NOISE: '0.08' };

  it('are added while a gated metric is open', async () => {
    const measured = await ab({ blocks: 2, confirmBlocks: 4 }, noisy, '{ other: 5% }');
    const first = measured.reports[0]!;
    expect(first.metrics.find((m) => m.id === 'request')!.verdict).toBe('unchanged');
    expect(measured.addedBlocks).toBeGreaterThan(0);
  }, 120_000);

  it('are not added for a metric that is shown and not gated, however open', async () => {
    const measured = await ab({ blocks: 2, confirmBlocks: 4 }, noisy, '{ other: off }');
    expect(measured.addedBlocks).toBe(0);
    expect(measured.order).toHaveLength(8);
    const other = measured.reports[0]!.metrics.find((m) => m.id === 'other')!;
    expect(other.threshold).toBe(null);
    expect(other.worthConfirming).toBeUndefined();
  }, 60_000);

  it('are not added for a metric that is not gated, even one clearly worse', async () => {
    // 30% worse with ±8% a run: were it gated at any threshold, the blocks left could
    // settle it; with none, nothing asks for them.
    const measured = await ab(
      { blocks: 2, confirmBlocks: 4 },
      { ...noisy, OTHER_SCALE: '1.3' },
      '{ other: off }',
    );
    expect(measured.addedBlocks).toBe(0);
    const other = measured.reports[0]!.metrics.find((m) => m.id === 'other')!;
    expect(other.change).toBeGreaterThan(0.2);
    expect(other.reason).toMatch(/not gated/);
  }, 60_000);
});

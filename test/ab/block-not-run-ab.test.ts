// A run of one side that never ran (runConfirmationRuns gave no outcome, runOnce's
// undefined): its block is left out of every metric's pairing, each reason names it, and
// the benchmark's warnings say which side of which block did not run.

import { expect, it, vi } from 'vitest';
import * as benchmark from '../../src/runner/benchmark.js';
import { abIn, abProject, nodeEnv, sidesIn } from '../support/ab-in-process.js';

vi.mock('../../src/runner/benchmark.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/runner/benchmark.js')>();
  return { ...original, runConfirmationRuns: vi.fn(original.runConfirmationRuns) };
});

const BENCH = `const fs = require('node:fs');
const side = process.env.PERF_GATE_SIDE;
const file = side + '.count';
const n = (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0) + 1;
fs.writeFileSync(file, String(n));
fs.writeFileSync(process.env.PERF_GATE_OUTPUT,
  JSON.stringify([{ name: 'request', unit: 'ms', value: 10 + 0.1 * ((n * 7) % 5) }]));
`;

it('leaves a block whose base runs never ran out of the pairing, and says so', async () => {
  const real = await vi.importActual<typeof import('../../src/runner/benchmark.js')>(
    '../../src/runner/benchmark.js',
  );
  // The base side's runs of block 2 give no outcome.
  vi.mocked(benchmark.runConfirmationRuns).mockImplementation(async (spec, options) =>
    options.purpose === 'base side, block' && options.step === 2
      ? []
      : real.runConfirmationRuns(spec, options),
  );
  const root = await abProject('perf-gate-ab-not-run-', { 'bench.cjs': BENCH }, [
    'benchmarks:',
    '  - name: gaps',
    '    command: node bench.cjs',
    '    format: custom-smaller-is-better',
  ]);
  const sides = sidesIn(root, {
    base: { PERF_GATE_SIDE: 'base' },
    head: { PERF_GATE_SIDE: 'head' },
  });
  const measured = await abIn(root, sides, { blocks: 3, confirmBlocks: 0 }, nodeEnv(root));

  const report = measured.reports[0]!;
  expect(report.verdict).not.toBe('error');
  expect(report.warnings.filter((w) => /did not run/.test(w))).toEqual([
    'block 2: base did not run, not paired',
  ]);
  const request = report.metrics.find((m) => m.id === 'request')!;
  expect(request.method).toBe('paired-t');
  expect(request.reason).toMatch(/; block 2: base has no value, not paired$/);
  expect(measured!.base[0]!.metrics.find((m) => m.id === 'request')!.blocks).toEqual([0, 0, 2, 2]);
}, 60_000);

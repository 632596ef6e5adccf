// A run of one side that never ran (runConfirmationRuns gave no outcome, runOnce's
// undefined): its block is left out of every metric's pairing, each reason names it, and
// the benchmark's warnings say which side of which block did not run.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { runAbBenchmarks } from '../../src/ab/run-ab.js';
import type { PreparedSide } from '../../src/ab/sides.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import * as benchmark from '../../src/runner/benchmark.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { tempDir } from '../support/offline-result.js';

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
  const root = await tempDir('perf-gate-ab-not-run-');
  await mkdir(join(root, '.github'));
  await writeFile(join(root, 'bench.cjs'), BENCH);
  await writeFile(
    join(root, '.github/perf-gate.yml'),
    [
      'benchmarks:',
      '  - name: gaps',
      '    command: node bench.cjs',
      '    format: custom-smaller-is-better',
    ].join('\n'),
  );
  const config = await resolveGateConfig({}, { workspace: root });
  const side = (name: 'base' | 'head'): PreparedSide => ({
    side: name,
    label: name,
    dir: root,
    outDir: join(root, 'out', name),
    env: { PERF_GATE_SIDE: name },
  });
  const [measured] = await runAbBenchmarks(
    config,
    { base: side('base'), head: side('head') },
    root,
    { blocks: 3, confirmBlocks: 0 },
    {
      runner: createProcessRunner(),
      log: new MemoryLogger(),
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: root },
    },
  );

  const report = measured!.reports[0]!;
  expect(report.verdict).not.toBe('error');
  expect(report.warnings.filter((w) => /did not run/.test(w))).toEqual([
    'block 2: base did not run, not paired',
  ]);
  const request = report.metrics.find((m) => m.id === 'request')!;
  expect(request.method).toBe('paired-t');
  expect(request.reason).toMatch(/; block 2: base has no value, not paired$/);
  expect(measured!.base[0]!.metrics.find((m) => m.id === 'request')!.blocks).toEqual([0, 0, 2, 2]);
}, 60_000);

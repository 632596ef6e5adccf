// A/B mode and `startup:`: each side's warm starts are `benchmark_startup`, judged paired
// within the blocks; a run that compiled graphs is left out, and a block left with one
// side's starts only is named and not paired; `cold_startup` is named as not measured.
// The benchmark sleeps START_S before its ready line: the head's start-up is made several
// times the base's, far beyond a loaded host's jitter, so the verdicts do not hang on it.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AbBenchmark } from '../../src/ab/run-ab.js';
import { COLD_STARTUP_IN_AB } from '../../src/ab/ab-startup.js';
import { abIn, abProject, nodeEnv, sidesIn } from '../support/ab-in-process.js';

// COMPILE_RUNS: the side's runs up to that index add a graph to the compile cache (the
// Neuron layout) and say so as neuronx-cc does, as a run that missed the cache would.
const BENCH = [
  'if [ "$PERF_GATE_RUN" -le "${COMPILE_RUNS:-0}" ]; then',
  '  entry="$NEURON_COMPILE_CACHE_URL/neuronxcc-2.21/MODULE_${PERF_GATE_SIDE}_$PERF_GATE_RUN+1"',
  '  mkdir -p "$entry" && touch "$entry/model.neff"',
  'fi',
  'sleep "${START_S:-0.3}"',
  'echo "READY: serving"',
  // Still running after its ready line: one that came only as the run ended is no start-up.
  'sleep 0.3',
  `echo '[{"name": "request", "unit": "ms", "value": 10}]' > "$PERF_GATE_OUTPUT"`,
].join('\n');

async function ab(
  env: { base: Record<string, string>; head: Record<string, string> },
  startup = "{ ready-log: 'READY: serving' }",
): Promise<AbBenchmark> {
  const root = await abProject('perf-gate-ab-startup-', { 'bench.sh': BENCH }, [
    'benchmarks:',
    '  - name: starts',
    '    command: bash bench.sh',
    '    format: custom-smaller-is-better',
    '    profile: false',
    `    startup: ${startup}`,
  ]);
  const cache = { NEURON_COMPILE_CACHE_URL: join(root, 'cache') };
  return abIn(
    root,
    sidesIn(root, { base: { ...env.base, ...cache }, head: { ...env.head, ...cache } }),
    { blocks: 3, confirmBlocks: 0 },
    nodeEnv(root),
  );
}

const startupOf = (measured: AbBenchmark) =>
  measured.reports[0]!.metrics.find((m) => m.id === 'benchmark_startup')!;

describe('A/B and startup:', () => {
  it('fails a head whose start-up is slower, paired within the blocks', async () => {
    const measured = await ab({ base: { START_S: '0.2' }, head: { START_S: '1.2' } });

    const startup = startupOf(measured);
    expect(startup.verdict).toBe('regression');
    expect(startup.method).toMatch(/paired/);
    expect(startup.change!).toBeGreaterThan(1);
    expect(measured.reports[0]!.verdict).toBe('regression');
    // Each side's six warm starts, one per run, each with its block.
    const head = measured.reports[0]!.result!.metrics.find((m) => m.id === 'benchmark_startup')!;
    expect(head.values).toHaveLength(6);
    expect(head.blocks).toEqual([0, 0, 1, 1, 2, 2]);
  }, 120_000);

  it('passes an unchanged start-up, and names cold_startup as not measured in A/B', async () => {
    const measured = await ab(
      { base: { START_S: '0.4' }, head: { START_S: '0.4' } },
      "{ ready-log: 'READY: serving', cold: true }",
    );

    const startup = startupOf(measured);
    // A loaded host can widen six 0.4 s start-ups' interval past the threshold: that is
    // "inconclusive", which passes; what must not happen is a regression.
    expect(['unchanged', 'inconclusive']).toContain(startup.verdict);
    expect(startup.method).toMatch(/paired/);
    expect(measured.reports[0]!.verdict).toBe('pass');
    const cold = measured.reports[0]!.metrics.find((m) => m.id === 'cold_startup')!;
    expect(cold).toMatchObject({
      verdict: 'missing',
      reason: `not measured: ${COLD_STARTUP_IN_AB}`,
    });
  }, 120_000);

  it('leaves out the runs that compiled, and names the block left with one side', async () => {
    // The head's runs 1 and 2 (its whole first block) compile: no warm start there.
    const measured = await ab({
      base: { START_S: '0.2' },
      head: { START_S: '1.2', COMPILE_RUNS: '2' },
    });

    const report = measured.reports[0]!;
    const head = report.result!.metrics.find((m) => m.id === 'benchmark_startup')!;
    expect(head.values).toHaveLength(4);
    expect(head.blocks).toEqual([1, 1, 2, 2]);
    expect(report.result!.startup?.compiledRuns).toEqual([1, 2]);
    const startup = startupOf(measured);
    expect(startup.verdict).toBe('regression');
    expect(startup.reason).toContain('block 1: head has no value, not paired');
    expect(report.warnings).toContain(
      'head: startup: run 1 (block 1) compiled graphs: no warm start, left out of benchmark_startup',
    );
  }, 120_000);
});

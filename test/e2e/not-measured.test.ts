// A sweep whose SLO fails at its lowest load already, through the bundled action on the
// simulator: examples/vllm-serve/perf-gate.yml at two rates, a baseline whose capacity was
// measured, then a head whose server takes 5 s to a first token (the SLO asks 500 ms), so
// no rate holds and `capacity` is not measured. The capacity benchmark's stored verdict
// stays `pass` (a metric not measured fails nothing); the job summary reads it as
// "⚪ not measured" with why, in the overview row and its summary, never "✅ pass".
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { useResultsService } from '../support/action-run.js';
import { pullRequestGate, servedExampleWorkspace } from '../support/served-example.js';

/** The simulated server 25× faster than inf2's time, 24 requests a run, ready after 1 s. */
const FAST = { SIM_SERVE_SPEEDUP: '25', SIM_SERVE_PROMPTS: '24', SIM_SERVE_STARTUP: '1' };

/** The example at rates 1 and 2, two runs each, no profiled run. */
function ratesOneAndTwo(example: string): string {
  const edited = example
    .replace(/ {8}- \{ name: rate-[468], request-rate: [468] \}\n/g, '')
    .replace('runs: 3', 'runs: 2')
    .replace('profile: on-change', 'profile: false');
  expect(edited).not.toContain('rate-4');
  expect(edited).toContain('runs: 2');
  return edited;
}

describe('a sweep whose SLO fails at the lowest load', () => {
  const results = useResultsService();

  it('shows its capacity as not measured, with why, never as a pass', async () => {
    const { workspace } = await servedExampleWorkspace('perf-gate-not-measured-', ratesOneAndTwo);
    const gate = (label: string, env: Record<string, string>, inputs: Record<string, string>) =>
      pullRequestGate({
        workspace,
        label,
        pr: 56,
        env: { ...FAST, ...results.env(), ...env },
        inputs,
      });
    const base = await gate('base', { SIM_SEED: '5' }, { 'save-baseline': 'baseline.json' });
    expect(base.code, base.stdout).toBe(0);
    const stored = JSON.parse(await readFile(base.outputs.report!, 'utf8')) as GateReport;
    const capacityOf = (report: GateReport) =>
      report.benchmarks.find((b) => b.name === 'qwen3-serve/capacity')!;
    expect(capacityOf(stored).metrics.find((m) => m.id === 'capacity')?.current).toBeGreaterThan(1);

    const head = await gate(
      'head',
      { SIM_SEED: '6', SIM_SERVE_TTFT_MS: '5000' },
      { 'baseline-path': 'baseline.json' },
    );
    // The rates' TTFT regressed; the capacity fails nothing.
    expect(head.outputs.verdict, head.stdout).toBe('regression');
    const report = JSON.parse(await readFile(head.outputs.report!, 'utf8')) as GateReport;
    const capacity = capacityOf(report);
    expect(capacity.verdict).toBe('pass');
    expect(capacity.metrics.find((m) => m.id === 'capacity')).toMatchObject({
      current: null,
      verdict: 'missing',
    });

    const row = head.summary.split('\n').find((line) => line.startsWith('| qwen3-serve/capacity'));
    expect(row).toMatch(
      /^\| qwen3-serve\/capacity +\| ⚪ not measured +\| capacity: the SLO fails at the lowest load of the sweep already \(request_rate 1\)/,
    );
    expect(head.summary).toContain(
      '<summary><b>qwen3-serve/capacity</b> — ⚪ not measured · capacity: the SLO fails at the lowest load',
    );
    expect(head.summary).not.toMatch(/qwen3-serve\/capacity.*✅ pass/);
  }, 300_000);
});

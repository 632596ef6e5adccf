// `capacity: search` through the bundled action on the simulator: examples/vllm-serve's
// sweep with an SLO whose crossing lies inside the rates (the E2E median within 2.5 s),
// without its --max-num-seqs (whose queue would cap the rate whatever the server's
// capacity), so the crossing moves with SIM_SERVE_CAPACITY: the capacity found by one boundary search per
// run index, each starting from the grid's runs of that index and probing rates of its own
// against the same server. The searched capacity lies in a bracket narrower than the
// resolution whose low end held and high end failed, near the grid's; the comment says how
// it was searched; and a server with 20% less nominal capacity fails on it. (Runs of 40
// requests do not reach the steady state, where the crossing would move with the capacity:
// a nominal 10% (SIM_SERVE_CAPACITY 9) moved the searched capacity 3.8% on this host.)
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { useResultsService } from '../support/action-run.js';
import { pullRequestGate, servedExampleWorkspace } from '../support/served-example.js';

const RATES = [1, 2, 4, 6, 8];
/** 40 requests a run at a tenth of inf2's time reach the crossing inside the sweep. */
const SIM = { SIM_SERVE_SPEEDUP: '10', SIM_SERVE_PROMPTS: '40', SIM_SERVE_STARTUP: '1' };

/** The example with capacity: search, an E2E median objective, no queue cap, no profiled run. */
function withSearch(example: string): string {
  const edited = example
    .replace(/--max-num-seqs \d+ /, '')
    .replace('e2el: { p99: 4s }', 'e2el: { p50: 2.5s }\n      capacity: search')
    .replace('profile: on-change', 'profile: false')
    .replace('confirm-runs: 1', 'confirm-runs: 0');
  expect(edited).toContain('capacity: search');
  expect(edited).not.toContain('--max-num-seqs');
  return edited;
}

function gate(
  workspace: string,
  label: string,
  env: Record<string, string>,
  inputs: Record<string, string>,
) {
  return pullRequestGate({ workspace, label, pr: 31, env: { ...SIM, ...env }, inputs });
}

interface SearchInfo {
  summary: string;
  searches: {
    kind: string;
    value: number;
    bracket: [number, number];
    interval: [number, number];
    resolved: boolean;
    runs: number;
    seeded: number;
    probes: { load: number; margin: number }[];
  }[];
}

describe('capacity: search on the simulator, through the bundled action', () => {
  const results = useResultsService();

  it('searches the capacity within its resolution, says so, and fails a lower capacity', async () => {
    const { workspace } = await servedExampleWorkspace('perf-gate-capacity-search-', withSearch);
    const base = await gate(
      workspace,
      'base',
      { SIM_SEED: '5', ...results.env() },
      { 'save-baseline': 'baseline.json' },
    );
    expect(base.code, base.stdout).toBe(0);
    const report = JSON.parse(await readFile(base.outputs.report!, 'utf8')) as GateReport;
    expect(report.benchmarks.map((b) => b.name)).toEqual([
      ...RATES.map((rate) => `qwen3-serve/rate-${rate}`),
      'qwen3-serve/capacity',
    ]);
    const capacity = report.benchmarks.at(-1)!;
    const metric = capacity.metrics.find((m) => m.id === 'capacity')!;
    const search = capacity.result?.info?.search as SearchInfo;
    // One search per run index, each a value of the capacity.
    expect(search.searches).toHaveLength(3);
    expect(capacity.result?.metrics[0]?.values).toEqual(search.searches.map((s) => s.value));
    for (const s of search.searches) {
      expect(s.kind).toBe('crossed');
      expect(s.resolved).toBe(true);
      // Narrower than 5% of the rate that held, the value inside, its low end held.
      expect(s.bracket[1] - s.bracket[0]).toBeLessThanOrEqual(0.05 * s.bracket[0] + 1e-9);
      expect(s.value).toBeGreaterThanOrEqual(s.bracket[0]);
      expect(s.value).toBeLessThanOrEqual(s.bracket[1]);
      expect(s.interval[0]).toBeLessThanOrEqual(s.bracket[0]);
      const at = (load: number) => s.probes.find((p) => p.load === load)!.margin;
      expect(at(s.bracket[0])).toBeGreaterThanOrEqual(0);
      expect(at(s.bracket[1])).toBeLessThan(0);
      // The grid's five runs of its index, then fewer probes of its own than a grid pass.
      expect(s.seeded).toBe(5);
      expect(s.runs - s.seeded).toBeGreaterThanOrEqual(1);
      expect(s.runs - s.seeded).toBeLessThanOrEqual(5);
    }
    // Inside the grid's bracket (rates 2 to 6 on this host), about 4 a second.
    expect(metric.current).toBeGreaterThan(2);
    expect(metric.current).toBeLessThan(6);
    expect(base.summary).toContain('searched: 3 searches,');
    expect(base.summary).toMatch(/resolution 5%, intervals [\d.–, ]+ requests\/s/);

    // The same server with 20% less nominal capacity (SIM_SERVE_CAPACITY 8 for 10).
    const head = await gate(
      workspace,
      'head',
      { SIM_SEED: '6', SIM_SERVE_CAPACITY: '8', ...results.env() },
      { 'baseline-path': 'baseline.json' },
    );
    const after = JSON.parse(await readFile(head.outputs.report!, 'utf8')) as GateReport;
    const judged = after.benchmarks
      .find((b) => b.name === 'qwen3-serve/capacity')!
      .metrics.find((m) => m.id === 'capacity')!;
    expect(judged.change, head.stdout).toBeLessThan(-0.05);
    expect(judged.verdict, head.stdout).toBe('regression');
    expect(head.code).toBe(1);
  }, 600_000);
});

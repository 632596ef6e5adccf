// The agreement check in stored mode through the bundled CLI, on the simulator: a run that
// saves a baseline keeps its answers and their A/A with it; a later run is scored on them
// and passes when it is the same build; a build 10% faster that flips 5% of its tokens
// fails on its answers, first in its comment; a run that saves nothing keeps no answers.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkResult, GateReport } from '../../src/model.js';
import { agreementRepo, SERVE } from '../support/agreement-repo.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';

let repo: string;

beforeAll(async () => {
  repo = (await agreementRepo('perf-gate-stored-agreement-')).repo;
});

async function run(out: string, args: string[], env: Record<string, string> = {}) {
  const result = await runNode(
    CLI,
    ['run', '--config', '.github/perf-gate.yml', '--quiet', '--out', out, ...args],
    { cwd: repo, env: simulatorEnv({ ...SERVE, ...env }) },
  );
  const report = JSON.parse(await readFile(join(repo, out, 'report.json'), 'utf8')) as GateReport;
  return { result, report, comment: await readFile(join(repo, out, 'comment.md'), 'utf8') };
}

async function savedResults(file: string): Promise<BenchmarkResult[]> {
  const saved = JSON.parse(await readFile(join(repo, file), 'utf8')) as {
    benchmarks?: BenchmarkResult[];
  };
  return saved.benchmarks ?? (saved as unknown as BenchmarkResult[]);
}

describe('neuron-perf-gate run (bundled): the agreement check against stored answers', () => {
  beforeAll(async () => {
    const { result, report } = await run('out-store', ['--save-baseline', 'baseline.json']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // Nothing to compare with yet: no check, its answers kept.
    expect(report.benchmarks[0]!.agreement).toBeUndefined();
  }, 600_000);

  it('keeps the answers and their A/A with the saved baseline', async () => {
    const [saved] = await savedResults('baseline.json');
    const answers = saved!.answers!;
    expect(answers.prompts).toHaveLength(48);
    expect(answers.maxTokens).toBe(32);
    expect(answers.aa).toHaveLength(48);
    expect(answers.aa.reduce((n, p) => n + p.flips, 0)).toBeLessThan(48 * 32 * 0.01);
    expect(answers.answers.length).toBeGreaterThan(10_000);
  });

  it('passes the same build, scored on the stored answers, keeping none of its own', async () => {
    const { result, report, comment } = await run('out-same', ['--baseline', 'baseline.json']);
    expect(result.code, result.stdout).toBe(0);
    const [benchmark] = report.benchmarks;
    expect(benchmark!.agreement!.verdict).toBe('pass');
    expect(benchmark!.agreement!.reference).toMatch(/^the answers stored with the baseline/);
    expect(benchmark!.result!.answers).toBeUndefined();
    expect(comment).toContain('✅ **Answers agree** — this run flips');
    expect(comment).toContain('| The stored run vs itself | This run |');
  }, 600_000);

  it('fails a build 10% faster that flips 5% of its tokens, on its answers first', async () => {
    const { result, report, comment } = await run('out-flips', ['--baseline', 'baseline.json'], {
      SIM_TOKEN_FLIPS: '0.05',
      SIM_SERVE_TTFT_MS: '54',
      SIM_SERVE_ITL_MS: '10.8',
    });
    expect(result.code, result.stdout).toBe(1);
    const [benchmark] = report.benchmarks;
    expect(benchmark!.verdict).toBe('regression');
    expect(benchmark!.agreement!.verdict).toBe('regression');
    expect(benchmark!.agreement!.flips.head).toBeGreaterThan(0.03);
    expect(benchmark!.metrics.every((m) => m.verdict !== 'regression')).toBe(true);
    expect(comment).toContain('## ❌ neuron-perf-gate: the answers changed');
    const section = comment.slice(comment.indexOf('### qwen3-serve'));
    expect(section.indexOf('❌ **Answers changed**')).toBeGreaterThan(0);
    expect(section.indexOf('❌ **Answers changed**')).toBeLessThan(section.indexOf('| Metric'));
  }, 600_000);
});

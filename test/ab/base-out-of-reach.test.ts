// The head side (a pull request's code) cannot steer the base side of `ab` (issue 50): run
// in the sandbox, it renames the parent of the hidden base worktree or the out-dir, puts a
// folder of its own in their place, or rewrites the base's earlier results; the gate, run
// in-process from src/ on a real repository whose head is 25% slower, must still fail it.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { GateReport } from '../../src/model.js';
import { simulatorEnv } from '../support/bundled.js';
import {
  ATTACK_CASES,
  commitBaseAndSlowerHead,
  configOf,
  type Attack,
} from '../support/ab-attacks.js';

/** A plain clone, and one where an Actions runner keeps it (its folder read-only inside). */
const repos: Record<'plain' | 'runner', string> = { plain: '', runner: '' };
let runnerTemp: string;
let gateTmp: string;
const savedTmp = process.env.TMPDIR;

beforeAll(async () => {
  // The gate's temporary folders in one of this test's own: the attack renames what it
  // finds next to its TMPDIR, which must never be another process's.
  gateTmp = await mkdtemp(join(tmpdir(), 'perf-gate-reach-'));
  process.env.TMPDIR = gateTmp;
  await mkdir(join(gateTmp, 'child', 'tmp'), { recursive: true });
  repos.plain = await mkdtemp(join(gateTmp, 'repo-'));
  repos.runner = join(gateTmp, 'actions-runner', '_work', 'repo', 'repo');
  runnerTemp = join(gateTmp, 'actions-runner', '_work', '_temp');
  await mkdir(runnerTemp, { recursive: true });
  await mkdir(repos.runner, { recursive: true });
  // The base side runs by its own commit's config; the head's, with the attack, is
  // written in the working tree by each test.
  for (const repo of Object.values(repos)) await commitBaseAndSlowerHead(repo);
});

afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(gateTmp, { recursive: true, force: true });
});

async function abWith(
  attacks: readonly Attack[],
  isolation: string,
  layout: keyof typeof repos = 'plain',
) {
  const repo = repos[layout];
  const where: Record<string, string> =
    layout === 'runner' ? { RUNNER_TEMP: runnerTemp, GITHUB_WORKSPACE: repo } : {};
  for (const name of await readdir(repo)) {
    if (name.startsWith('perf-gate-ab'))
      await rm(join(repo, name), { recursive: true, force: true });
  }
  await writeFile(join(repo, 'perf-gate.yml'), configOf(attacks));
  const out: string[] = [];
  const code = await runCli(
    [
      'ab',
      '--config',
      'perf-gate.yml',
      '--base',
      'HEAD~1',
      '--blocks',
      '3',
      '--confirm-blocks',
      '0',
      '--quiet',
    ].concat(['--isolation', isolation]),
    {
      cwd: repo,
      // Without a sandbox the head's TMPDIR is this one: two levels below the gate's.
      env: simulatorEnv({ TMPDIR: join(gateTmp, 'child', 'tmp'), ...where }),
      stdout: () => {},
      stderr: (text) => out.push(text),
    },
  );
  const report = JSON.parse(
    await readFile(join(repo, 'perf-gate-ab', 'report.json'), 'utf8').catch(() => 'null'),
  ) as GateReport | null;
  return { code, report, log: out.join('') };
}

function p50Of(report: GateReport | null) {
  return report?.benchmarks[0]?.metrics.find((m) => m.id === 'latency_p50');
}

describe.each([
  ['bubblewrap', 'plain'],
  ['unshare', 'plain'],
  ['bubblewrap', 'runner'],
  ['unshare', 'runner'],
] as const)('ab: the head cannot reach the base side (%s, %s clone)', (isolation, layout) => {
  it.each<[string, Attack[]]>([
    ...ATTACK_CASES,
    ["the base's results written in place", ['direct']],
  ])(
    '%s: a head a quarter slower still fails',
    async (_name, attacks) => {
      const { code, report, log } = await abWith(attacks, isolation, layout);
      expect(code, log).toBe(1);
      expect(report?.verdict, log).toBe('regression');
      const p50 = p50Of(report);
      expect(p50?.verdict).toBe('regression');
      expect(p50!.change!).toBeGreaterThan(0.2);
      expect(p50!.change!).toBeLessThan(0.3);
    },
    180_000,
  );
});

describe('ab without isolation: what the head changes in the base side is an error, never a pass', () => {
  it.each<[string, Attack[], RegExp]>([
    [
      'the base worktree parent swapped',
      ['worktree'],
      /the base side \(HEAD~1 \([0-9a-f]{7}\)\) changed between its runs: .*\/base-[0-9a-f]{12} is no longer the folder the gate made/,
    ],
    [
      'the out-dir swapped',
      ['outDir'],
      /changed between its runs: .*\/perf-gate-ab\/base is no longer the folder the gate made/,
    ],
    [
      "the base's results rewritten between runs",
      ['rewrite'],
      /the base side's results changed after its runs: .*\/run-1\.clean\.json is not the file its run wrote/,
    ],
  ])(
    '%s',
    async (_name, attacks, message) => {
      const { code, report, log } = await abWith(attacks, 'none');
      expect(code, log).toBe(3);
      expect(report?.verdict).toBe('error');
      expect(report?.benchmarks[0]?.error).toMatch(message);
    },
    180_000,
  );
});

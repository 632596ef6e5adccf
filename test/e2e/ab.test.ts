// `neuron-perf-gate ab` (the bundled CLI) on a real git repository of two commits, the
// head 10% slower through the simulator's commit-indexed knobs, with host drift on: real
// worktrees, real setup and benchmark processes in the sandbox, real probes.
import { gitIn } from '../support/git.js';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';

const CONFIG = `setup: echo "set up $PERF_GATE_SIDE at $PERF_GATE_COMMIT in $PWD" > setup-ran
benchmarks:
  - name: reranker
    command: test -f setup-ran && offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    profile: false
    timeout-minutes: 2
    env: { SIM_KNOBS_FILE: sim-knobs.env }
`;

/** The host drifts ±5% over 2 s: far more than the runs' noise, shared by both sides. */
const DRIFT = { SIM_HOST_DRIFT: '0.05', SIM_HOST_DRIFT_PERIOD: '2' };

/**
 * The head (a pull request's code) tries to make the base look as slow as itself: it plants
 * a file in the base's worktree and blanks the base's result files. Committed, so the base
 * side (a commit, run by its own commit's config) has it too.
 */
const ATTACK = [
  'if [ "$PERF_GATE_SIDE" = head ]; then',
  '  for d in /tmp/perf-gate-bisect-*/base-*; do touch "$d/planted" 2>/dev/null; done',
  '  base="$(dirname "$(dirname "$(dirname "$PERF_GATE_OUTPUT")")")/../base"',
  '  find "$base" -name \'*.json\' -exec sh -c \'echo {} > "$1"\' _ {} \\; 2>/dev/null',
  'fi',
  'if [ -e planted ]; then echo "the head wrote into the base side" >&2; exit 9; fi',
  'offline-benchmark --output-file "$PERF_GATE_OUTPUT"',
].join('\n');
const ATTACK_CONFIG = `benchmarks:\n  - name: reranker\n    command: |\n${ATTACK.replace(/^/gm, '      ')}\n    format: offline-benchmark\n    profile: false\n`;

let repo: string;

const git = (args: string[]) => gitIn(repo, args);

function ab(args: string[], extra: Record<string, string> = {}) {
  return runNode(CLI, ['ab', '--config', 'perf-gate.yml', '--quiet', ...args], {
    cwd: repo,
    env: simulatorEnv({ ...DRIFT, ...extra }),
  });
}

async function reportOf(): Promise<GateReport> {
  return JSON.parse(await readFile(join(repo, 'perf-gate-ab', 'report.json'), 'utf8'));
}

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'perf-gate-ab-repo-'));
  git(['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(repo, 'perf-gate.yml'), CONFIG);
  await writeFile(join(repo, 'perf-gate-attack.yml'), ATTACK_CONFIG);
  await writeFile(join(repo, '.gitignore'), 'perf-gate-ab/\nsetup-ran\nperf-gate-env.yml\n');
  await writeFile(join(repo, 'sim-knobs.env'), 'SIM_SLOWDOWN=1\n');
  git(['add', '-A']);
  git(['commit', '--quiet', '-m', 'fast']);
  await writeFile(join(repo, 'sim-knobs.env'), 'SIM_SLOWDOWN=1.10\n');
  git(['commit', '--quiet', '-am', 'ten percent slower']);
});

describe('neuron-perf-gate ab (bundled) on a real repository with host drift', () => {
  it('fails a head 10% slower than its base, judged paired in ABBA blocks', async () => {
    const result = await ab(['--base', 'HEAD~1']);
    expect(result.code, result.stderr).toBe(1);
    const report = await reportOf();
    expect(report.verdict).toBe('regression');
    const p50 = report.benchmarks[0]!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.method).toBe('paired-t');
    expect(p50.verdict).toBe('regression');
    expect(p50.change!).toBeGreaterThan(0.07);
    expect(p50.change!).toBeLessThan(0.13);
    expect(report.ab!.base.label).toMatch(/^HEAD~1 \([0-9a-f]{7}\)$/);
    expect(report.ab!.head.label).toBe('the working tree');
    expect(report.ab!.base.setupSeconds).toBeGreaterThanOrEqual(0);
    expect(result.stdout).toContain('A/B on one host');
    // The configuration says what A/B ran, not the stored mode's baseline and runs.
    expect(result.stdout).toContain('A/B: both sides measured here, no stored baseline');
    expect(result.stdout).toMatch(/\| \d+ a side, in blocks \|/);
    expect(result.stdout).not.toContain('baseline of the newest');
    // Each side's runs, block by block, in the order they ran.
    const runs = report.ab!.runs!.reranker!;
    expect(runs.metric).toBe('latency_p50');
    expect(runs.blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of runs.blocks) {
      expect(block.base).toHaveLength(2);
      expect(block.head).toHaveLength(2);
    }
    expect(result.stdout).toContain('<summary>Runs in the order they ran</summary>');
    expect(result.stdout).toMatch(
      /\| reranker: latency_p50 \(ms\) +\| 1 +\| [\d.]+ +\| [\d.]+ +\| [\d.]+ +\| [\d.]+ +\|/,
    );
    // Each side's setup ran in its own folder before its runs, and its runs alternated.
    const log = result.stderr;
    expect(log).toMatch(/base \(HEAD~1 \([0-9a-f]{7}\)\): setup took/);
    const order = [...log.matchAll(/^▶ reranker: (base|head) side, block (\d)/gm)].map(
      (m) => `${m[1]}${m[2]}`,
    );
    expect(order.slice(0, 8)).toEqual([
      'base1',
      'head1',
      'head1',
      'base1',
      'base2',
      'head2',
      'head2',
      'base2',
    ]);
    // No worktree is left behind.
    expect(git(['worktree', 'list']).trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('passes a head that changed nothing, and the docs example --base HEAD~1 passes on the base commit itself', async () => {
    const unchanged = await ab(['--base', 'HEAD~1', '--head', 'HEAD~1'], {});
    // The same commit on both sides measures nothing: refused, exit 2.
    expect(unchanged.code).toBe(2);
    expect(unchanged.stderr).toMatch(/the base and head sides are the same/);
    git(['checkout', '--quiet', 'HEAD~1']);
    try {
      const result = await ab(['--base', 'main~1']);
      expect(result.code, result.stdout).toBe(0);
      expect((await reportOf()).verdict).toBe('pass');
    } finally {
      git(['checkout', '--quiet', 'main']);
    }
  }, 120_000);

  it('names the SDK component when two environments differ only in the compiler version', async () => {
    const result = await ab(
      [
        '--base-env',
        'SIM_NEURONX_CC_VERSION=2.21.18209.0+043b1bf7',
        '--head-env',
        'SIM_NEURONX_CC_VERSION=2.22.5122.0+1c2d3e4f',
      ],
      // The new compiler's graphs are 12% slower; the code on both sides is the same.
      { SIM_COMPILER_SLOWDOWNS: '2.22.5122.0+1c2d3e4f=1.12' },
    );
    expect(result.code, result.stderr).toBe(1);
    const report = await reportOf();
    expect(report.ab!.differs).toEqual([
      { component: 'compilerVersion', base: '2.21.18209.0+043b1bf7', head: '2.22.5122.0+1c2d3e4f' },
    ]);
    expect(result.stdout).toContain(
      "The sides differ in: Neuron compiler `2.21.18209.0+043b1bf7` → `2.22.5122.0+1c2d3e4f`, as each side's benchmark ran (read in its shell after the command's own set-up).",
    );
    expect(report.ab!.versionsSeen).toBe('in-benchmark-shell');
    // Whose NEFFs each side loads: one cache here (the test process's own, which
    // simulatorEnv sets), its graphs kept apart by compiler.
    const cache = simulatorEnv().NEURON_COMPILE_CACHE_URL;
    expect(result.stdout).toContain(
      `NEFF compile cache: base \`${cache}\` (neuronx-cc \`2.21.18209.0+043b1bf7\`), head \`${cache}\` (neuronx-cc \`2.22.5122.0+1c2d3e4f\`); one cache, kept apart by compiler version.`,
    );
  }, 120_000);

  it("names the side and the command when a side's setup fails, and measures nothing", async () => {
    await writeFile(
      join(repo, 'perf-gate.yml'),
      CONFIG.replace(/^setup: .*$/m, 'setup: test "$PERF_GATE_SIDE" != head'),
    );
    try {
      const result = await ab(['--base', 'HEAD~1']);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(
        /ab: the head side \(the working tree\): setup "test \\"\$PERF_GATE_SIDE\\" != head" exited with code 1 \(full log: .*setup\.log\); nothing was measured/,
      );
      expect(result.stderr).not.toMatch(/block 1/);
    } finally {
      git(['checkout', '--quiet', '--', 'perf-gate.yml']);
    }
  }, 60_000);

  it('gives each of two environments a folder of its own, so neither side runs what the other built', async () => {
    // Setup builds into the side's folder; the benchmark runs only on its own side's build.
    await writeFile(
      join(repo, 'perf-gate-env.yml'),
      CONFIG.replace(/^setup: .*$/m, 'setup: echo "$PERF_GATE_SIDE" > setup-ran').replace(
        'test -f setup-ran',
        'grep -qx "$PERF_GATE_SIDE" setup-ran',
      ),
    );
    const result = await runNode(
      CLI,
      ['ab', '--config', 'perf-gate-env.yml', '--quiet', '--base-env', 'X=1', '--head-env', 'X=2'],
      { cwd: repo, env: simulatorEnv(DRIFT) },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = await reportOf();
    expect(report.ab!.base.label).toMatch(/^HEAD \([0-9a-f]{7}\) with X$/);
    expect(report.ab!.head.label).toMatch(/^HEAD \([0-9a-f]{7}\) with X$/);
    expect(git(['worktree', 'list']).trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('checks both sides before setting either up, and leaves no earlier report behind', async () => {
    const passed = await ab(['--base', 'HEAD~1']);
    expect(passed.code).toBe(1);
    const wrong = await ab(['--base', 'HEAD~1', '--head', 'no-such-ref']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--head no-such-ref: no such commit/);
    expect(wrong.stderr).not.toMatch(/setup/);
    // The earlier comparison's verdict is gone with it, not left looking like this one's.
    await expect(readFile(join(repo, 'perf-gate-ab', 'report.json'), 'utf8')).rejects.toThrow(
      /ENOENT/,
    );
  }, 120_000);

  it.each(['bubblewrap', 'unshare'])(
    "keeps the head side's code from rewriting the base side's code or results (%s)",
    async (isolation) => {
      const result = await runNode(
        CLI,
        [
          'ab',
          '--config',
          'perf-gate-attack.yml',
          '--quiet',
          '--base',
          'HEAD',
          '--isolation',
          isolation,
        ],
        { cwd: repo, env: simulatorEnv({}) },
      );
      expect(result.code, result.stderr).toBe(0);
      expect((await reportOf()).verdict).toBe('pass');
    },
    120_000,
  );

  it.each([
    [
      [],
      /ab needs --base REF .*, --base-env NAME=VALUE for two environments, or --base-config\/--head-config for two stacks/,
    ],
    [['--base', 'HEAD~1', '--blocks', '1'], /--blocks '1': allowed: a whole number from 2 to 50/],
    [
      ['--base', 'HEAD~1', '--blocks', 'many'],
      /--blocks 'many': allowed: a whole number from 2 to 50/,
    ],
    [
      ['--base', 'HEAD~1', '--confirm-blocks', '51'],
      /--confirm-blocks '51': allowed: a whole number from 0 to 50/,
    ],
    [['--base-env', 'export PATH=/x'], /--base-env 'export PATH=\/x': expected NAME=VALUE/],
    [['--base', ''], /--base needs a commit \(a SHA, a tag or a branch\), got ''/],
  ])('refuses %j with exit 2, saying what is allowed', async (args, message) => {
    const result = await runNode(CLI, ['ab', '--config', 'perf-gate.yml', '--quiet', ...args], {
      cwd: repo,
      env: simulatorEnv({}),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('shows ab --base HEAD~1 in its help', async () => {
    const result = await runNode(CLI, ['ab', '--help'], { cwd: repo, env: simulatorEnv({}) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ab --base HEAD~1');
  });
});

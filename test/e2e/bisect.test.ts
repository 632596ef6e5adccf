// `neuron-perf-gate bisect` (the bundled CLI) on a real git repository whose commits carry
// the simulator's knobs: real worktrees, real benchmark processes, real probes.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBisectRepo, type BisectRepo } from '../support/bisect-repo.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';

function cli(args: string[], cwd: string, extra: Record<string, string> = {}) {
  return runNode(CLI, ['bisect', ...args], { cwd, env: simulatorEnv(extra) });
}

function worktrees(dir: string): string[] {
  return execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('worktree '));
}

/** The temporary folders bisect said it checked commits out in. */
function checkoutDirs(stderr: string): string[] {
  return [...stderr.matchAll(/checked out in (\S+)/g)].map((m) => m[1]!);
}

describe('neuron-perf-gate bisect (bundled) on a real repository', () => {
  let repo: BisectRepo;
  beforeAll(async () => {
    // Commit 5 of 8 is 8% slower and moves to Neuron SDK 2.27, a new compiler and vLLM.
    repo = await createBisectRepo({
      commits: 8,
      culprit: 5,
      slowdown: 1.08,
      culpritKnobs: {
        SIM_NEURON_TOOLS_VERSION: '2.27.7.0',
        SIM_NEURONX_CC_VERSION: '2.22.5122.0+1c2d3e4f',
        SIM_VLLM_VERSION: '0.11.1',
      },
    });
  });

  it('names the first bad commit, its step with an interval and the SDK change, and leaves no worktree', async () => {
    const [good, bad] = [repo.shas[0]!, repo.shas[8]!];
    const result = await cli(
      [
        '--good',
        good,
        '--bad',
        bad,
        '--config',
        'perf-gate.yml',
        '--command',
        'echo "built $PERF_GATE_COMMIT in $PWD"',
        '--json',
        '--quiet',
        '--out',
        'bisect-out',
      ],
      repo.dir,
    );
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.firstBad.sha).toBe(repo.shas[5]);
    expect(report.firstBad.subject).toBe('change 5 (the slow one)');
    expect(report.lastGood.sha).toBe(repo.shas[4]);
    expect(report.steps).toHaveLength(3);
    expect(report.step.change).toBeGreaterThan(0.04);
    expect(report.step.ci[0]).toBeGreaterThan(0);
    // Probed in each worktree (neuron-ls, pip list), so the step names each component.
    expect(report.environmentChange).toEqual([
      { field: 'neuronSdkVersion', label: 'Neuron SDK', baseline: '2.26', current: '2.27' },
      {
        field: 'compilerVersion',
        label: 'neuronx-cc',
        baseline: '2.21.18209.0+043b1bf7',
        current: '2.22.5122.0+1c2d3e4f',
      },
      { field: 'vllmVersion', label: 'vLLM', baseline: '0.10.2', current: '0.11.1' },
    ]);
    // The hook ran in each checkout before its benchmark; its output is in the run logs.
    const hookLog = await readFile(
      join(repo.dir, 'bisect-out', repo.shas[5]!.slice(0, 7), 'command.log'),
      'utf8',
    );
    expect(hookLog).toMatch(
      new RegExp(`^built ${repo.shas[5]} in /\\S+/${repo.shas[5]!.slice(0, 12)}\n$`),
    );
    const dirs = checkoutDirs(result.stderr);
    expect(dirs).toHaveLength(5);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    expect(worktrees(repo.dir)).toHaveLength(1);
  });

  it('prints the result as text', async () => {
    const result = await cli(
      ['--good', repo.shas[3]!, '--bad', repo.shas[6]!, '--config', 'perf-gate.yml', '--quiet'],
      repo.dir,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^First bad commit: ${repo.shas[5]} "change 5 \\(the slow one\\)"\n`),
    );
    expect(result.stdout).toContain(
      'the environment changed at this commit: Neuron SDK 2.26 → 2.27, neuronx-cc 2.21.18209.0+043b1bf7 → 2.22.5122.0+1c2d3e4f, vLLM 0.10.2 → 0.11.1\n',
    );
    expect(result.stdout).toMatch(
      /latency_p50 \+\d+\.\d% \(CI \+\d+\.\d% to \+\d+\.\d%\) against its parent/,
    );
  });

  it('refuses unknown commits, swapped ends and a dirty tree with exit 2', async () => {
    const unknown = await cli(
      ['--good', 'deadbeef', '--bad', 'HEAD', '--config', 'perf-gate.yml'],
      repo.dir,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--good deadbeef: no such commit in');
    const swapped = await cli(
      ['--good', 'HEAD', '--bad', repo.shas[0]!, '--config', 'perf-gate.yml'],
      repo.dir,
    );
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toContain('they look swapped');
    const cache = await cli(
      ['--good', repo.shas[0]!, '--bad', 'HEAD', '--metric', 'graphs_compiled'],
      repo.dir,
    );
    expect(cache.code).toBe(2);
    expect(cache.stderr).toContain(
      "--metric graphs_compiled: the compile cache's metrics cannot be bisected",
    );
    await appendFile(join(repo.dir, 'src', 'model.py'), '# local edit\n');
    try {
      const dirty = await cli(
        ['--good', repo.shas[0]!, '--bad', 'HEAD', '--config', 'perf-gate.yml'],
        repo.dir,
      );
      expect(dirty.code).toBe(2);
      expect(dirty.stderr).toContain('uncommitted changes to tracked files (src/model.py)');
    } finally {
      execFileSync('git', ['checkout', '--', 'src/model.py'], { cwd: repo.dir });
    }
  });

  it('stops with exit 3 naming the commit when the hook fails, and cleans up', async () => {
    const result = await cli(
      [
        '--good',
        repo.shas[0]!,
        '--bad',
        repo.shas[8]!,
        '--config',
        'perf-gate.yml',
        '--command',
        'echo cannot build >&2; exit 4',
        '--quiet',
      ],
      repo.dir,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `commit ${repo.shas[0]!.slice(0, 7)}: --command "echo cannot build >&2; exit 4" exited with code 4`,
    );
    expect(result.stderr).toContain('cannot build');
    for (const dir of checkoutDirs(result.stderr)) expect(existsSync(dir)).toBe(false);
    expect(worktrees(repo.dir)).toHaveLength(1);
  });

  it('removes its worktrees when interrupted (SIGINT)', async () => {
    // Slow runs (SIM_SLEEP), so that the interrupt lands during a benchmark run.
    const child = spawn(
      process.execPath,
      [
        CLI,
        'bisect',
        '--good',
        repo.shas[0]!,
        '--bad',
        repo.shas[8]!,
        '--config',
        'perf-gate.yml',
        '--quiet',
      ],
      { cwd: repo.dir, env: simulatorEnv({ SIM_SLEEP: '0.05' }) },
    );
    let stderr = '';
    let interrupted = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!interrupted && /▶ reranker: \S+ run 1 of/.test(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
        // An impatient second Ctrl-C during the cleanup must not leave worktrees behind.
        setTimeout(() => child.kill('SIGINT'), 5);
      }
    });
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    expect(code).toBe(130);
    const dirs = checkoutDirs(stderr);
    expect(dirs.length).toBeGreaterThan(0);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    expect(worktrees(repo.dir)).toHaveLength(1);
  });
});

describe('neuron-perf-gate bisect (bundled) over commits that cannot be built or run', () => {
  let repo: BisectRepo;
  // The hook "builds" by reading the checked-out tree: revisions 4 and 5 do not build.
  const hook =
    'if grep -qx "# revision [45]" src/model.py; then echo "model.py: syntax error" >&2; exit 1; fi';
  beforeAll(async () => {
    // Commit 5 of 8 is 8% slower; commit 3 builds but its benchmark crashes at model load.
    repo = await createBisectRepo({
      commits: 8,
      culprit: 5,
      slowdown: 1.08,
      knobsAt: { 3: { SIM_FAIL: 'load' } },
    });
  });

  it('skips them, measures their neighbours and names the range the culprit is in', async () => {
    const result = await cli(
      [
        ...['--good', repo.shas[0]!, '--bad', repo.shas[8]!, '--config', 'perf-gate.yml'],
        ...['--command', hook, '--quiet', '--out', 'bisect-out'],
      ],
      repo.dir,
    );
    expect(result.code).toBe(0);
    const [c3, c4, c5, c6] = [3, 4, 5, 6].map((i) => repo.shas[i]!.slice(0, 7));
    expect(result.stdout).toContain(
      `First bad commit is one of ${c3}..${c6} (4 commits); ${c3}, ${c4}, ${c5} could not be built or measured:\n` +
        `  ${repo.shas[3]} "change 3" (skipped)\n` +
        `  ${repo.shas[4]} "change 4" (skipped)\n` +
        `  ${repo.shas[5]} "change 5 (the slow one)" (skipped)\n` +
        `  ${repo.shas[6]} "change 6" (measured bad)\n`,
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `latency_p50 \\+\\d+\\.\\d% \\(CI \\+[^)]*\\) from the last good ${repo.shas[2]!.slice(0, 7)} "change 2" to ${c6}`,
      ),
    );
    // Why each was skipped: the benchmark's crash, the hook's exit.
    expect(result.stdout).toMatch(new RegExp(`  ${c3} \\(3 of 8\\): run \\d+ failed: `));
    expect(result.stdout).toContain(
      `  ${c4} (4 of 8): --command ${JSON.stringify(hook)} exited with code 1`,
    );
    expect(result.stderr).toContain(`skipped ${c5} (5 of 8): it cannot be measured`);
    const hookLog = await readFile(join(repo.dir, 'bisect-out', c4!, 'command.log'), 'utf8');
    expect(hookLog).toContain('model.py: syntax error');
    for (const dir of checkoutDirs(result.stderr)) expect(existsSync(dir)).toBe(false);
    expect(worktrees(repo.dir)).toHaveLength(1);
  });

  it('still names the culprit itself when only other commits are skipped (JSON)', async () => {
    const result = await cli(
      [
        ...['--good', repo.shas[4]!, '--bad', repo.shas[8]!, '--config', 'perf-gate.yml'],
        ...['--command', 'if grep -qx "# revision 6" src/model.py; then exit 2; fi'],
        ...['--json', '--quiet', '--out', 'bisect-out-2'],
      ],
      repo.dir,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.firstBad.sha).toBe(repo.shas[5]);
    expect(report.lastGood.sha).toBe(repo.shas[4]);
    expect(report.undecided).toEqual([]);
    expect(report.skipped).toEqual([
      {
        commit: repo.shas[6],
        position: 2,
        reason: expect.stringMatching(/--command .* exited with code 2/),
      },
    ]);
  });

  it('stops with exit 3 when an end cannot be run', async () => {
    const result = await cli(
      ['--good', repo.shas[3]!, '--bad', repo.shas[8]!, '--config', 'perf-gate.yml', '--quiet'],
      repo.dir,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`commit ${repo.shas[3]!.slice(0, 7)}: run 1 failed`);
    expect(result.stderr).toContain('The --good end must be measured');
    expect(worktrees(repo.dir)).toHaveLength(1);
  });
});

describe('neuron-perf-gate bisect (bundled) of a device memory regression', () => {
  it('follows device_memory_peak when the benchmark has monitor: and memory is what changed', async () => {
    // Commit 3 of 4 takes 20% more device memory and is no slower.
    const repo = await createBisectRepo({
      commits: 4,
      culprit: 3,
      slowdown: 1,
      culpritKnobs: { SIM_DEVICE_MEMORY_GROWTH: '1.2' },
      monitor: '{ period: 0.2s }',
    });
    const result = await cli(
      [
        ...['--good', repo.shas[0]!, '--bad', repo.shas[4]!, '--config', 'perf-gate.yml'],
        ...['--metric', 'device_memory_peak', '--max-runs', '4', '--json', '--quiet'],
      ],
      repo.dir,
      // Each run takes about 1.5 s, several of neuron-monitor's periods.
      { SIM_SLEEP: '0.03', SIM_NOISE: '0' },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.metric).toMatchObject({ id: 'device_memory_peak', unit: 'MiB' });
    expect(report.firstBad.sha).toBe(repo.shas[3]);
    expect(report.lastGood.sha).toBe(repo.shas[2]);
    expect(report.ends.change).toBeCloseTo(0.2, 2);
    expect(worktrees(repo.dir)).toHaveLength(1);
  });
});

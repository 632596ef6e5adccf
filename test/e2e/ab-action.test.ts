// `compare-with: merge-base` through the bundled action on a pull request: the checkout is
// the pull request's merge commit in a real git repository, its first parent the base
// branch; both measured on this runner in blocks with host drift on, no stored baseline.
import { execFileSync } from 'node:child_process';
import { gitIn } from '../support/git.js';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import {
  pullRequestPayload,
  runActionProcess,
  simulatorInputs,
  useActionGitHubApi,
} from '../support/action-run.js';
import { gateStepInputs } from '../support/workflow-example.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { withRecordPaths } from '../../src/history/series.js';
import { makeRepos } from '../baseline/git/support.js';
import { tempDir } from '../support/offline-result.js';

const CONFIG = `setup: echo "set up $PERF_GATE_SIDE" > setup-ran
baseline-store: file
upload-profiles: false
benchmarks:
  - name: reranker
    command: test -f setup-ran && offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    profile: false
    timeout-minutes: 2
    env: { SIM_KNOBS_FILE: sim-knobs.env }
`;

/**
 * The pull request's config, when it changes it: a `setup:` that makes the base side as
 * slow as a 25% slower head, were the base run by it.
 */
const SLOWS_THE_BASE = CONFIG.replace(
  /^setup: .*$/m,
  'setup: echo "set up $PERF_GATE_SIDE" > setup-ran; if [ "$PERF_GATE_SIDE" = base ]; then echo SIM_SLOWDOWN=1.25 > sim-knobs.env; fi',
);

/**
 * A repository whose HEAD merges a pull request (`knobs` in its head) into main; `config`
 * the pull request's config when it changes it, `baseWithoutConfig` when main has none.
 */
async function mergedPullRequest(
  knobs: string,
  options: { depth?: number; config?: string; baseWithoutConfig?: boolean } = {},
): Promise<string> {
  const { depth, config } = options;
  const dir = await tempDir('perf-gate-ab-action-');
  const git = (...args: string[]) => gitIn(dir, args);
  git('init', '--quiet', '-b', 'main');
  if (!options.baseWithoutConfig) await writeFile(join(dir, 'perf-gate.yml'), CONFIG);
  await writeFile(join(dir, '.gitignore'), 'perf-gate-output/\nsetup-ran\n*.md\n*.txt\n');
  await writeFile(join(dir, 'sim-knobs.env'), 'SIM_SLOWDOWN=1\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'main');
  git('checkout', '--quiet', '-b', 'feature');
  await writeFile(join(dir, 'sim-knobs.env'), knobs);
  await writeFile(join(dir, 'model.py'), '# the change\n');
  if (config !== undefined || options.baseWithoutConfig) {
    await writeFile(join(dir, 'perf-gate.yml'), config ?? CONFIG);
  }
  git('add', '-A');
  git('commit', '--quiet', '-m', 'the pull request');
  git('checkout', '--quiet', 'main');
  await writeFile(join(dir, 'other.py'), '# main moved on\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'main moves on');
  // actions/checkout of refs/pull/N/merge: the merge commit, main its first parent.
  git('merge', '--quiet', '--no-ff', '-m', 'Merge feature into main', 'feature');
  if (depth === undefined) return dir;
  const shallow = await tempDir('perf-gate-ab-shallow-');
  execFileSync('git', ['clone', '--quiet', `--depth=${depth}`, `file://${dir}`, shallow]);
  return shallow;
}

async function gate(workspace: string, inputs: Record<string, string> = {}) {
  const result = await runActionProcess({
    workspace,
    label: 'ab',
    inputs: {
      ...simulatorInputs({
        config: 'perf-gate.yml',
        'compare-with': 'merge-base',
        comment: 'never',
      }),
      command: '',
      name: '',
      format: '',
      runs: '',
      ...inputs,
    },
    event: {
      name: 'pull_request',
      payload: pullRequestPayload({ number: 5, headSha: 'c'.repeat(40) }),
      ref: 'refs/pull/5/merge',
      sha: 'd'.repeat(40),
    },
    env: { SIM_HOST_DRIFT: '0.05', SIM_HOST_DRIFT_PERIOD: '2' },
  });
  const report = JSON.parse(
    await readFile(join(workspace, 'perf-gate-output', 'report.json'), 'utf8').catch(() => 'null'),
  ) as GateReport | null;
  return { ...result, report };
}

describe('compare-with: merge-base (bundled action, pull_request)', () => {
  it('fails a pull request that makes the benchmark 10% slower than the branch it merges into', async () => {
    const result = await gate(await mergedPullRequest('SIM_SLOWDOWN=1.10\n'));
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs.verdict).toBe('regression');
    expect(result.report!.ab!.base.label).toMatch(/^the base branch \([0-9a-f]{7}\)$/);
    const p50 = result.report!.benchmarks[0]!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.method).toBe('paired-t');
    expect(result.summary).toContain('A/B on one host');
  }, 120_000);

  it('passes one that changes nothing the benchmark measures', async () => {
    const result = await gate(await mergedPullRequest('SIM_SLOWDOWN=1\n'));
    expect(result.code, result.stdout).toBe(0);
    expect(result.outputs.verdict).toBe('pass');
  }, 120_000);

  it("runs the base side by the base's config: a setup that slows only the base does not hide a 25% slower head", async () => {
    const result = await gate(
      await mergedPullRequest('SIM_SLOWDOWN=1.25\n', { config: SLOWS_THE_BASE }),
    );
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs.verdict).toBe('regression');
    const p50 = result.report!.benchmarks[0]!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.verdict).toBe('regression');
    expect(p50.change).toBeGreaterThan(0.15);
  }, 120_000);

  it('stops, naming the fix, when the base branch has no config (the pull request adds it)', async () => {
    const workspace = await mergedPullRequest('SIM_SLOWDOWN=1\n', { baseWithoutConfig: true });
    const result = await gate(workspace);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /::error::neuron-perf-gate: the base side \(the base branch \([0-9a-f]{7}\)\) runs by its own commit's config, and that commit has none/,
    );
    expect(result.stdout).toMatch(
      /merge the config first, or run this pull request with compare-with: stored/,
    );
    // Nothing of the pull request's config ran as the base.
    expect(result.stdout).not.toMatch(/::group::base .*: setup:/);
  }, 60_000);

  it('says to fetch one commit more when the checkout has no parent', async () => {
    const result = await gate(await mergedPullRequest('SIM_SLOWDOWN=1\n', { depth: 1 }));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/::error::neuron-perf-gate: .*fetch-depth: 2/);
  }, 60_000);
});

describe('compare-with: environments (examples/workflows/sdk-upgrade.yml, by hand)', () => {
  const github = useActionGitHubApi();
  const OLD = '2.21.18209.0+043b1bf7';
  const NEW = '2.22.5122.0+1c2d3e4f';

  async function compare(workspace: string, slowdowns: string) {
    // The recipe's inputs, its two virtualenvs standing for two simulated compilers.
    const recipe = gateStepInputs('sdk-upgrade.yml');
    // Its compile cache, here one of the workspace's, emptied first as the recipe's step does.
    const cache = join(workspace, '.neuron-compile-cache-sdk-upgrade');
    await rm(cache, { recursive: true, force: true });
    const sideEnv = (env: string, compiler: string) =>
      env
        .split('\n')
        .filter((line) => line !== '' && !/^(PATH|VIRTUAL_ENV)=/.test(line))
        .map((line) => line.replace('/var/tmp/neuron-compile-cache-sdk-upgrade', cache))
        .concat(`SIM_NEURONX_CC_VERSION=${compiler}`, '')
        .join('\n');
    return runActionProcess({
      workspace,
      label: 'sdk',
      inputs: {
        ...simulatorInputs({
          config: 'perf-gate.yml',
          command: '',
          name: '',
          format: '',
          runs: '',
        }),
        'compare-with': recipe['compare-with']!,
        'comment-key': recipe['comment-key']!,
        'base-env': sideEnv(recipe['base-env']!, OLD),
        'head-env': sideEnv(recipe['head-env']!, NEW),
        'nightly-issue': 'true',
        'github-token': 'ghs_sdk',
      },
      event: {
        name: 'workflow_dispatch',
        payload: { repository: { full_name: 'octo/inference', default_branch: 'main' } },
        ref: 'refs/heads/main',
        sha: 'e'.repeat(40),
      },
      env: { GITHUB_API_URL: github.api.url, SIM_COMPILER_SLOWDOWNS: slowdowns },
    });
  }

  it('keeps each comparison as an A/B record on the data branch, never as a baseline, and the dashboard shows its changes', async () => {
    const repos = await makeRepos();
    await writeFile(
      join(repos.checkout, 'perf-gate.yml'),
      CONFIG.replace('baseline-store: file\n', '').replace(/\n {4}env: \{[^\n]*\}/, ''),
    );
    const stored = await compare(repos.checkout, `${NEW}=1.12`);
    expect(stored.code, stored.stdout).toBe(1);
    const store = new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await tempDir('perf-gate-ab-store-'),
    });
    const { records } = await store.readRecords('sdk-upgrade');
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record.ab!.base.environment.compilerVersion).toBe(OLD);
    expect(record.environment.compilerVersion).toBe(NEW);
    expect(record.ab!.blocks).toBeGreaterThanOrEqual(2);
    expect(record.ab!.changes.latency_p50!.change).toBeGreaterThan(0.08);
    // No baseline of any gate is made of it, and the dashboard shows it as a change.
    const page = dashboardInput({ records: withRecordPaths(records), source: 'test' });
    const changes = page.series.filter((series) => series.ab);
    expect(changes.map((series) => series.metric)).toContain('latency_p50 A/B change');
    expect(page.series.filter((series) => !series.ab)).toEqual([]);
  }, 120_000);

  it('opens one issue naming the compiler while the candidate is slower, and closes it when it is not', async () => {
    const workspace = await mergedPullRequest('SIM_SLOWDOWN=1\n');
    const slower = await compare(workspace, `${NEW}=1.12`);
    expect(slower.code, slower.stdout).toBe(1);
    expect(slower.outputs.verdict).toBe('regression');
    expect(slower.stdout).toMatch(
      /an A\/B comparison is kept only as records of a record store \(git-branch, s3 or postgres\)/,
    );
    const open = () =>
      github.api.state.issues.filter((i) => i.state === 'open' && !i.isPullRequest);
    expect(open()).toHaveLength(1);
    expect(open()[0]!.body).toContain(`Neuron compiler \`${OLD}\` → \`${NEW}\``);

    // A new compiler no slower: it recompiles every graph (its cache keys), which is named.
    const fixed = await compare(workspace, `${NEW}=1`);
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.outputs.verdict).toBe('pass');
    expect(open()).toHaveLength(0);
    expect(fixed.summary).toMatch(
      /ℹ️ recompiled 4 graphs under neuronx-cc 2\.21\.18209\.0\\?\+043b1bf7 → 2\.22\.5122\.0\\?\+1c2d3e4f \(a new compiler's cache keys\), compile time \d+ min \d+ s → \d+ min \d+ s\./,
    );
  }, 120_000);
});

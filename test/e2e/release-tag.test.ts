// From a release tag to a gated pull request, as a new user gets there: scripts/release.mjs
// tags a clone of this repository and pushes v0.x.y and the moving v0 tag to a bare "GitHub"
// repository; the runner's step `uses: your-org/neuron-perf-gate@v0` is resolved the way the
// runner does, by fetching that tag; and the workflow the README links (pull-request.yml),
// with the README's command config, runs that checkout's dist/index.js with its own
// action.yml defaults, on a push to main and then on a pull request, against the loopback
// GitHub API and the simulator.
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeRepos, type Repos } from '../baseline/git/support.js';
import { ROOT } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  type ActionEvent,
  useActionGitHubApi,
} from '../support/action-run.js';

const exec = promisify(execFile);
const TOKEN = 'ghs_release_tag_token';
const README = await readFile(join(ROOT, 'README.md'), 'utf8');

async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Release Test',
    GIT_AUTHOR_EMAIL: 'release@example.com',
    GIT_COMMITTER_NAME: 'Release Test',
    GIT_COMMITTER_EMAIL: 'release@example.com',
  };
  return (await exec('git', args, { cwd, env })).stdout.trim();
}

interface Step {
  uses?: string;
  with?: Record<string, unknown>;
}

const github = useActionGitHubApi();
let repos: Repos;
let actionDir: string;
let taggedCommit: string;
let gateStep: Step;

beforeAll(async () => {
  const dir = await tempDir('perf-gate-release-');
  // "GitHub": a bare repository holding this project, and the maintainer's clone of it.
  const hub = join(dir, 'neuron-perf-gate.git');
  await git(dir, 'clone', '--quiet', '--bare', '--no-tags', ROOT, hub);
  const maintainer = join(dir, 'maintainer');
  await git(dir, 'clone', '--quiet', hub, maintainer);
  const version = JSON.parse(await readFile(join(maintainer, 'package.json'), 'utf8')).version;
  // The release checks and tags; dist/ against src/ is `npm test`'s check:dist, not repeated.
  const release = await exec(
    process.execPath,
    ['scripts/release.mjs', version, '--push', 'origin', '--skip-dist-check'],
    { cwd: maintainer },
  );
  expect(release.stdout).toContain(`v${version}`);
  taggedCommit = await git(maintainer, 'rev-parse', 'HEAD');

  // The full workflow the README links: its gate step names the action and the tag.
  expect(README).toContain('(examples/workflows/pull-request.yml)');
  const workflowText = await readFile(
    join(ROOT, 'examples', 'workflows', 'pull-request.yml'),
    'utf8',
  );
  const workflow = parse(workflowText, { schema: 'core' }) as {
    jobs: Record<string, { steps: Step[] }>;
  };
  // The job that runs a pull request's code (the push job's step names the same action).
  const steps = workflow.jobs['pull-request']!.steps;
  gateStep = steps.find((step) => step.uses?.includes('neuron-perf-gate'))!;
  const ref = /^[^/]+\/neuron-perf-gate@(.+)$/.exec(gateStep.uses ?? '')?.[1];
  expect(ref, gateStep.uses).toBe('v0');
  // The runner downloads the action at that ref; a clone of the tag is the same tree.
  actionDir = join(dir, '_actions', 'your-org', 'neuron-perf-gate', ref!);
  await git(dir, 'clone', '--quiet', '--depth', '1', '--branch', ref!, `file://${hub}`, actionDir);

  // The user's repository with the README's config, its command swapped for the simulator's.
  repos = await makeRepos();
  const configBlock = /```yaml\n(# \.github\/perf-gate\.yml\n[\s\S]*?)```/.exec(README);
  expect(configBlock, 'README has no # .github/perf-gate.yml block').not.toBeNull();
  const config = parse(configBlock![1]!) as {
    benchmarks: Record<string, unknown>[];
  };
  config.benchmarks[0]!.command = 'offline-benchmark';
  const withSimulator = { profile: false, 'upload-profiles': false, ...config };
  await mkdir(join(repos.checkout, '.github'), { recursive: true });
  await writeFile(join(repos.checkout, '.github', 'perf-gate.yml'), JSON.stringify(withSimulator));
}, 180_000);

function runTagged(event: ActionEvent, runId: number) {
  const inputs = Object.fromEntries(
    Object.entries(gateStep.with ?? {}).map(([name, value]) => [name, String(value)]),
  );
  return runActionProcess({
    workspace: repos.checkout,
    label: `tagged-${runId}`,
    inputs,
    defaultsWithToken: TOKEN,
    event,
    actionDir,
    env: { GITHUB_API_URL: github.api.url, GITHUB_RUN_ID: String(runId), SIM_SEED: String(runId) },
  });
}

describe('a workflow copied from the README, against a release tag', () => {
  it('v0 and the version tag point at the released commit, with the CLI executable', async () => {
    expect(await git(actionDir, 'rev-parse', 'HEAD')).toBe(taggedCommit);
    expect((await stat(join(actionDir, 'dist', 'cli.js'))).mode & 0o111).not.toBe(0);
    expect(await git(actionDir, 'ls-files', '--stage', 'dist/cli.js')).toMatch(/^100755 /);
    const action = parse(await readFile(join(actionDir, 'action.yml'), 'utf8'));
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  it('stores a baseline on a push to main, then judges a pull request and leaves its report for the comment job', async () => {
    const mainSha = await repos.git.run(['rev-parse', 'HEAD']);
    const push = await runTagged(
      { name: 'push', payload: pushPayload('main', mainSha), ref: 'refs/heads/main', sha: mainSha },
      7001,
    );
    expect(push.code, push.stdout + push.stderr).toBe(0);
    expect(push.outputs.verdict).toBe('no-baseline');

    github.api.state.addPullRequest({ number: 3 });
    const pr = await runTagged(
      {
        name: 'pull_request',
        payload: pullRequestPayload({ number: 3, headSha: 'c'.repeat(40) }),
        ref: 'refs/pull/3/merge',
        sha: 'd'.repeat(40),
      },
      7002,
    );
    expect(pr.code, pr.stdout + pr.stderr).toBe(0);
    expect(pr.outputs.verdict).toBe('pass');
    // comment: never: this job's token may not comment; the comment job posts the report.
    expect(github.api.state.commentsOn(3)).toEqual([]);
    const folder = join(repos.checkout, 'perf-gate-output', 'report-artifact');
    expect(JSON.parse(await readFile(join(folder, 'pr.json'), 'utf8'))).toMatchObject({
      number: 3,
    });
    expect(await readFile(join(folder, 'comment.md'), 'utf8')).toContain('qwen3-reranker');
  }, 120_000);
});

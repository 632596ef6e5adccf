// The input `dashboard` end to end: the bundled action (dist/index.js) with the git-branch
// store on a real bare `origin`, publishing the page to a Pages branch with real git, or
// uploading it to the loopback results service of an Actions runner.
import { beforeAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import { makeRepos, type Repos } from '../baseline/git/support.js';
import { readZip } from '../publish/zip.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
  useResultsService,
} from '../support/action-run.js';

const inputs = simulatorInputs({ 'github-token': '' });

let repos: Repos;
let sha: string;
let runs = 0;

function push(): ActionEvent {
  return { name: 'push', payload: pushPayload('main', sha), ref: 'refs/heads/main', sha };
}

function pullRequest(number: number): ActionEvent {
  return {
    name: 'pull_request',
    payload: pullRequestPayload({ number, headSha: 'f'.repeat(40) }),
    ref: `refs/pull/${number}/merge`,
    sha: 'e'.repeat(40),
  };
}

function run(event: ActionEvent, extra: Record<string, string>, env: Record<string, string> = {}) {
  runs += 1;
  return runActionProcess({
    workspace: repos.checkout,
    label: `dashboard-${runs}`,
    inputs: { ...inputs, ...extra },
    event,
    env: { SIM_SEED: String(40 + runs), GITHUB_RUN_ID: String(7000 + runs), ...env },
  });
}

/** The branch's tip in origin; undefined when it does not exist. */
async function tipOf(branch: string): Promise<string | undefined> {
  const found = await new Git({ cwd: repos.origin }).tryRun(['rev-parse', '--verify', branch]);
  return found.ok ? found.stdout.trim() : undefined;
}

beforeAll(async () => {
  repos = await makeRepos();
  sha = await repos.git.run(['rev-parse', 'HEAD']);
});

describe('the action with dashboard: pages', () => {
  it('commits the page of the data branch to gh-pages after a run that stored results', async () => {
    const main = await tipOf('main');
    const first = await run(push(), { dashboard: 'pages' });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/dashboard published to gh-pages @ [0-9a-f]{7}/);
    const second = await run(push(), { dashboard: 'pages' });
    expect(second.code).toBe(0);

    const origin = new Git({ cwd: repos.origin });
    const page = await origin.run(['show', 'gh-pages:index.html']);
    expect(page).toContain('<title>neuron-perf-gate: octo/inference</title>');
    // Both nights' records, linked to their runs on github.com.
    const data = JSON.parse(
      /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(page)![1]!,
    ) as { runBase: string };
    expect(data.runBase).toBe('https://github.com/octo/inference/actions/runs/');
    expect(page).toContain('qwen3-reranker');
    expect(page).toMatch(/7001/);
    expect(page).toMatch(/7002/);
    expect(await origin.run(['rev-list', '--count', 'gh-pages'])).toBe('2');
    expect((await origin.run(['ls-tree', '--name-only', 'gh-pages'])).split('\n').sort()).toEqual([
      '.neuron-perf-gate',
      '.nojekyll',
      'index.html',
    ]);
    // The code branch is untouched; the data branch holds the two records.
    expect(await tipOf('main')).toBe(main);
    expect(
      (await origin.run(['ls-tree', '-r', '--name-only', 'perf-gate-data'])).split('\n'),
    ).toHaveLength(2);
  });

  it('leaves the branch alone on a pull request, which stores nothing', async () => {
    const before = await tipOf('gh-pages');
    const pr = await run(pullRequest(9), { dashboard: 'pages' });
    expect(pr.outputs.verdict).toMatch(/^(pass|regression)$/);
    expect(pr.stdout).toContain('dashboard not published to gh-pages: this run stored no results');
    expect(await tipOf('gh-pages')).toBe(before);
  });

  it('keeps the verdict and a branch it did not create as they are', async () => {
    await repos.git.run(['push', '--quiet', 'origin', 'main:docs-site']);
    const before = await tipOf('docs-site');
    const result = await run(push(), { dashboard: 'pages', 'dashboard-branch': 'docs-site' });
    expect(result.code).toBe(0);
    expect(result.outputs.verdict).toBe('pass');
    expect(result.stdout).toMatch(
      /::warning::the dashboard was not published: the dashboard is not published to 'docs-site': the branch exists and was not written by neuron-perf-gate/,
    );
    expect(result.summary).toContain('the dashboard was not published');
    expect(await tipOf('docs-site')).toBe(before);
  });

  it('stops before running anything when the branch is the default or the data branch', async () => {
    for (const branch of ['main', 'perf-gate-data']) {
      const result = await run(push(), { dashboard: 'pages', 'dashboard-branch': branch });
      expect(result.code).toBe(1);
      expect(result.outputs.verdict).toBe('error');
      expect(result.stdout).toMatch(
        new RegExp(`::error::neuron-perf-gate: input 'dashboard-branch': found "${branch}"`),
      );
      expect(result.stdout).not.toContain('::group::');
    }
  });

  it('needs a record store (git-branch, s3 or postgres)', async () => {
    const result = await run(push(), { dashboard: 'artifact', 'baseline-store': 'file' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /::error::neuron-perf-gate: input 'dashboard': artifact builds the page from the stored records of a record store, but this run uses baseline-store 'file', which keeps none; choose baseline-store: git-branch, s3 or postgres/,
    );
  });
});

describe('the action with dashboard: artifact', () => {
  const results = useResultsService();

  it('uploads the page as an artifact, also from a pull request', async () => {
    const pages = await tipOf('gh-pages');
    const result = await run(
      pullRequest(10),
      { dashboard: 'artifact' },
      { ...results.env(), GITHUB_RUN_ATTEMPT: '2' },
    );
    expect(result.code).toBe(0);
    const [artifact] = [...results.service.artifacts.values()].filter((a) =>
      /^perf-gate-dashboard-perf-gate-[0-9a-f]{8}-attempt-2$/.test(a.name),
    );
    expect(artifact?.finalized).toBe(true);
    expect(result.stdout).toContain(`dashboard uploaded as artifact ${artifact!.name}`);
    const entries = readZip(artifact!.blob!).filter((e) => !e.isDirectory);
    expect(entries.map((e) => e.name)).toEqual(['index.html']);
    const page = entries[0]!.data.toString('utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('qwen3-reranker');
    // Uploading touches no branch.
    expect(await tipOf('gh-pages')).toBe(pages);
  });
});

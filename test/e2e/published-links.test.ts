// The folders the gate fills for publishing after the benchmarks ran (the report artifact,
// the dashboard page, the profile summaries) are below the out-dir, which pull-request
// code can write: a link it left in their place would carry the gate's writes (and its
// deletes) into folders of the runner's. Each case is an attack of the fourth outside
// round, through the bundled action on a pull request.
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeRepos, type Repos } from '../baseline/git/support.js';
import {
  pullRequestPayload,
  runActionProcess,
  simulatorInputs,
  useActionGitHubApi,
  useResultsService,
  type ActionEvent,
} from '../support/action-run.js';
import { SIMULATOR_BIN } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const github = useActionGitHubApi();
const results = useResultsService();
let repos: Repos;
let runs = 0;

beforeAll(async () => {
  repos = await makeRepos();
});

function pullRequest(number: number): ActionEvent {
  github.api.state.addPullRequest({ number });
  return {
    name: 'pull_request',
    payload: pullRequestPayload({ number, headSha: `${number}`.padStart(40, 'c') }),
    ref: `refs/pull/${number}/merge`,
    sha: `${number}`.padStart(40, 'd'),
  };
}

function gate(number: number, inputs: Record<string, string>) {
  runs += 1;
  return runActionProcess({
    workspace: repos.checkout,
    label: `links-${runs}`,
    inputs: simulatorInputs({
      runs: '1',
      'confirm-runs': '0',
      'github-token': 'ghs_links',
      ...inputs,
    }),
    event: pullRequest(number),
    env: { GITHUB_API_URL: github.api.url, ...results.env(), GITHUB_RUN_ID: String(7100 + runs) },
  });
}

describe('folders the gate fills for publishing, swapped for links by the benchmark', () => {
  it('writes no report artifact through a linked report-artifact folder', async () => {
    const victim = await tempDir('perf-gate-victim-');
    const result = await gate(60, {
      command: `offline-benchmark && mkdir -p perf-gate-output && rm -rf perf-gate-output/report-artifact && ln -sfn ${victim} perf-gate-output/report-artifact`,
      comment: 'never',
    });
    expect(result.outputs.verdict, result.stdout).toBeDefined();
    expect(await readdir(victim)).toEqual([]);
    expect(result.stdout).toMatch(/the report artifact folder: .*is a symbolic link/);
  }, 120_000);

  it('writes no dashboard page through a linked dashboard folder', async () => {
    const victim = await tempDir('perf-gate-victim-');
    const result = await gate(61, {
      command: `offline-benchmark && mkdir -p perf-gate-output && ln -sfn ${victim} perf-gate-output/dashboard`,
      dashboard: 'artifact',
      comment: 'never',
    });
    expect(result.stdout).toMatch(
      /the dashboard was not built: the dashboard folder: .*is a symbolic link/,
    );
    expect(await readdir(victim)).toEqual([]);
  }, 120_000);

  it('deletes and writes nothing through a profile folder a profiler-path wrapper swapped after the check', async () => {
    const victim = await tempDir('perf-gate-victim-');
    await mkdir(join(victim, 'perf-gate-summaries'));
    await writeFile(join(victim, 'perf-gate-summaries', 'precious.txt'), 'keep\n');
    const wrapper = join(await tempDir('perf-gate-profiler-'), 'profiler');
    await writeFile(
      wrapper,
      [
        '#!/bin/bash',
        `"${join(SIMULATOR_BIN, 'neuron-explorer')}" "$@"`,
        'P="$GITHUB_WORKSPACE/perf-gate-output/profiles/qwen3-reranker"',
        `if [ ! -L "$P" ]; then mv "$P" "$P.moved" && ln -s ${victim} "$P"; fi`,
        '',
      ].join('\n'),
    );
    await chmod(wrapper, 0o755);
    const result = await gate(62, { profile: 'true', 'profiler-path': wrapper, comment: 'never' });
    expect(await readFile(join(victim, 'perf-gate-summaries', 'precious.txt'), 'utf8')).toBe(
      'keep\n',
    );
    expect(await readdir(join(victim, 'perf-gate-summaries'))).toEqual(['precious.txt']);
    const report = JSON.parse(
      await readFile(join(repos.checkout, 'perf-gate-output', 'report.json'), 'utf8'),
    );
    expect(report.benchmarks[0].profile.note).toMatch(/is a symbolic link the profiler left/);
    expect(result.code, result.stdout).toBe(0);
  }, 120_000);
});

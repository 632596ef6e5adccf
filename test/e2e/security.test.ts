// The bundled action on a self-hosted runner, attacked from the pull request's side: what
// the benchmark, profiler and probe (pull-request code) can reach, and what the gate
// publishes. Real processes, a loopback GitHub API and a loopback artifact results.service.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { livePidsWith } from '../support/processes.js';
import {
  pullRequestPayload,
  runActionProcess,
  useActionGitHubApi,
  useResultsService,
  type ActionEvent,
} from '../support/action-run.js';
import { SIMULATOR_BIN } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { readZip } from '../publish/zip.js';
import { reportArtifactName } from '../../src/github/report-artifact.js';
import { zipOf } from '../support/zip-writer.js';

const TOKEN = 'ghs_gateTokenThatMustNotLeak0123456789';
const RUNTIME_TOKEN_MARK = 'runtime-token-that-must-not-leak';
const OIDC_TOKEN = 'oidc-request-token-that-must-not-leak';

const github = useActionGitHubApi();
const results = useResultsService();
let workspace: string;
let runs = 0;

beforeAll(async () => {
  workspace = await tempDir('perf-gate-security-');
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

/** The action as a self-hosted runner starts it: a token, runtime tokens, the step files. */
async function runGate(
  event: ActionEvent,
  inputs: Record<string, string>,
  options: { env?: Record<string, string>; launchPrefix?: string } = {},
) {
  runs += 1;
  const label = `run-${runs}`;
  const files = join(workspace, `${label}-runner-files`);
  await mkdir(files, { recursive: true });
  const stepFiles: Record<string, string> = {};
  for (const name of ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE']) {
    stepFiles[name] = join(files, name.toLowerCase());
    await writeFile(stepFiles[name], '');
  }
  return runActionProcess({
    workspace,
    label,
    inputs: {
      name: 'qwen3-reranker',
      format: 'offline-benchmark',
      runs: '2',
      'confirm-runs': '0',
      'baseline-store': 'file',
      'github-token': TOKEN,
      ...inputs,
    },
    event,
    env: {
      GITHUB_API_URL: github.api.url,
      GITHUB_TOKEN: TOKEN,
      GH_TOKEN: TOKEN,
      ...results.env(),
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: OIDC_TOKEN,
      ACTIONS_ID_TOKEN_REQUEST_URL: `${github.api.url}/oidc?token=${OIDC_TOKEN}`,
      ACTIONS_RUNTIME_URL: `${results.service.url}/${RUNTIME_TOKEN_MARK}/`,
      ...stepFiles,
      SIM_SEED: String(runs),
      ...options.env,
    },
    ...(options.launchPrefix !== undefined ? { launchPrefix: options.launchPrefix } : {}),
  });
}

describe('what pull-request code can reach (benchmark, profiler, probe)', () => {
  it('gets no token, no step file, and no descriptor open on one', async () => {
    const spy = join(workspace, 'spy');
    await mkdir(spy, { recursive: true });
    // Each prints its whole environment and its open file descriptors.
    const dump = (name: string) =>
      `{ env; echo '--- fds'; ls -l /proc/self/fd/; } > "${join(spy, name)}.txt" 2>&1`;
    const profiler = join(spy, 'spy-profiler');
    await writeFile(
      profiler,
      `#!/bin/bash\n${dump('profiler')}\nexec "${join(SIMULATOR_BIN, 'neuron-explorer')}" "$@"\n`,
    );
    await chmod(profiler, 0o755);

    const result = await runGate(
      pullRequest(21),
      {
        command: `${dump('benchmark')}; offline-benchmark`,
        'environment-probe': `${dump('probe')}; echo vllm=0.0.0-spy`,
        profile: 'true',
        'profiler-path': profiler,
      },
      // A runner that leaves the step's files open in the action's process, on descriptors
      // above the ones Node takes for itself at start (it reuses low free numbers, so 7–9
      // never reached a child whether or not the gate closes them).
      {
        launchPrefix: 'exec 23>>"$GITHUB_OUTPUT" 24>>"$GITHUB_STEP_SUMMARY" 25>>"$GITHUB_ENV"',
      },
    );
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('::group::qwen3-reranker: run 3 of 3 (profiled)');

    for (const name of ['benchmark', 'probe', 'profiler']) {
      const seen = await readFile(join(spy, `${name}.txt`), 'utf8');
      const [env, fds] = seen.split('--- fds');
      // Still a working environment: PATH, the run's context and the simulator's knobs.
      expect(env, name).toMatch(/^PATH=/m);
      expect(env, name).toMatch(/^GITHUB_SHA=d+21$/m);
      expect(env, name).toMatch(/^SIM_SEED=/m);
      // Nothing that is a credential or a way to write into the gate's step.
      expect(env, name).not.toContain(TOKEN);
      expect(env, name).not.toContain(OIDC_TOKEN);
      expect(env, name).not.toContain(results.service.runtimeToken);
      expect(env, name).not.toContain(RUNTIME_TOKEN_MARK);
      expect(env, name).not.toMatch(/^(INPUT_|ACTIONS_)/m);
      for (const variable of [
        'GITHUB_TOKEN',
        'GH_TOKEN',
        'GITHUB_OUTPUT',
        'GITHUB_STEP_SUMMARY',
        'GITHUB_ENV',
        'GITHUB_PATH',
        'GITHUB_STATE',
        'GITHUB_EVENT_PATH',
      ]) {
        expect(env, `${name}: ${variable}`).not.toMatch(new RegExp(`^${variable}=`, 'm'));
      }
      expect(fds, name).not.toMatch(/-> .*(output\.txt|summary\.md|runner-files)/);
      expect(fds, name).not.toMatch(/^\S+ .* (23|24|25) -> /m);
    }
  }, 120_000);
});

describe('what the gate publishes', () => {
  const INLINE = 'InlineSecretFromWorkflow9f8e7d';
  const ENV_SECRET = 'HubTokenInTheStepEnv0a1b2c3d';
  const PROBE_SECRET = 'ProbeSecretValue5e6f7a8b';

  /** Every place a run publishes: comment, summary, report.json, the artifacts. */
  async function published(number: number) {
    const out = join(workspace, 'perf-gate-output');
    const artifacts = [...results.service.artifacts.values()].flatMap((a) =>
      a.blob ? readZip(a.blob).map((e) => `${e.name}\n${e.data.toString('utf8')}`) : [],
    );
    return [
      ...github.api.state.commentsOn(number).map((c) => c.body),
      await readFile(join(out, 'report.json'), 'utf8'),
      await readFile(join(out, 'comment.md'), 'utf8'),
      ...artifacts,
    ];
  }

  it('never shows a secret from the command, the environment or a failing probe', async () => {
    const pr = pullRequest(22);
    const inputs = {
      // `${{ secrets.HF }}` expanded by the runner into the command input.
      command: `HF_TOKEN=${INLINE} offline-benchmark; echo "token in use: ${INLINE}, hub: $HF_HUB_TOKEN"`,
      'environment-probe': `echo "could not log in with API_KEY=${PROBE_SECRET}" >&2; exit 3`,
      profile: 'false',
      'upload-profiles': 'true',
    };
    const passed = await runGate(pr, inputs, { env: { HF_HUB_TOKEN: ENV_SECRET } });
    expect(passed.code, passed.stdout).toBe(0);
    expect(github.api.state.commentsOn(22)).toHaveLength(1);
    expect(passed.summary).toContain(
      'the environment probe (environment-probe) exited with code 3',
    );
    expect(passed.summary).toMatch(/API_KEY=(\*\*\*|&#42;&#42;&#42;)/);

    // The same benchmark failing: the tail of its output goes into the report.
    const failed = await runGate(
      pr,
      { ...inputs, command: `${inputs.command}; exit 4` },
      { env: { HF_HUB_TOKEN: ENV_SECRET, GITHUB_RUN_ATTEMPT: '2' } },
    );
    expect(failed.code).toBe(1);
    expect(failed.summary.replaceAll('&#42;', '*')).toContain('token in use: ***, hub: ***');

    const texts = [passed.summary, failed.summary, ...(await published(22))];
    expect(texts.length).toBeGreaterThan(5);
    for (const text of texts) {
      for (const secret of [INLINE, ENV_SECRET, PROBE_SECRET, TOKEN]) {
        expect(text).not.toContain(secret);
      }
      // The command input is not published at all, only said to be left out.
      expect(text).not.toContain('offline-benchmark; echo');
    }
    expect(passed.summary).toContain('A command given as an input is not published');
  }, 120_000);
});

describe('the two-stage comment job (mode: comment)', () => {
  const FORK_SHA = 'f'.repeat(40);

  /** A report artifact as a fork's stage 1 uploads it: the fork controls every byte. */
  async function forkArtifact(claims: { number: number; headSha: string }) {
    const stage1 = await runGate(pullRequest(30 + runs), {
      command: 'offline-benchmark',
      profile: 'false',
      'upload-profiles': 'false',
    });
    expect(stage1.code, stage1.stdout).toBe(0);
    const folder = join(workspace, 'perf-gate-output', 'report-artifact');
    const pr = { ...JSON.parse(await readFile(join(folder, 'pr.json'), 'utf8')), ...claims };
    return {
      gateKey: pr.gateKey as string,
      zip: zipOf({
        'report.json': await readFile(join(folder, 'report.json'), 'utf8'),
        'comment.md': await readFile(join(folder, 'comment.md'), 'utf8'),
        'pr.json': JSON.stringify(pr),
      }),
    };
  }

  function workflowRunEvent(run: { id: number; headSha: string }, prNumbers: number[]) {
    const repo = { id: 1, name: 'inference', url: `${github.api.url}/repos/octo/inference` };
    return {
      name: 'workflow_run',
      payload: {
        action: 'completed',
        workflow_run: {
          id: run.id,
          head_sha: run.headSha,
          head_branch: 'feature',
          event: 'pull_request',
          conclusion: 'success',
          head_repository: { full_name: 'stranger/inference' },
          // What GitHub lists: open PRs of this repository from a branch named `feature`.
          pull_requests: prNumbers.map((number) => ({
            number,
            head: { ref: 'feature', sha: 'e'.repeat(40), repo },
            base: { ref: 'main', sha: '0'.repeat(40), repo },
          })),
        },
        repository: { full_name: 'octo/inference', default_branch: 'main' },
      },
      ref: 'refs/heads/main',
      sha: '0'.repeat(40),
    };
  }

  it("refuses to post a fork run's report on the base repository's PR that shares its branch name", async () => {
    // PR #8 is the base repository's own, from its branch `feature`.
    github.api.state.addPullRequest({
      number: 8,
      head: { ref: 'feature', sha: 'e'.repeat(40), repo: 'octo/inference' },
    });
    const artifact = await forkArtifact({ number: 8, headSha: FORK_SHA });
    const run = github.api.state.addWorkflowRun({
      event: 'pull_request',
      headSha: FORK_SHA,
      headBranch: 'feature',
      headRepository: 'stranger/inference',
    });
    github.api.state.addArtifact({
      runId: run.id,
      name: reportArtifactName(artifact.gateKey),
      zip: artifact.zip,
    });

    await mkdir(join(workspace, '.runner-temp'), { recursive: true });
    const result = await runActionProcess({
      workspace,
      label: `comment-${runs}`,
      inputs: { mode: 'comment', 'github-token': TOKEN },
      defaultsWithToken: TOKEN,
      event: workflowRunEvent({ id: run.id, headSha: FORK_SHA }, [8]),
      env: { GITHUB_API_URL: github.api.url },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/refusing to post/);
    expect(github.api.state.commentsOn(8)).toEqual([]);
    expect(github.api.state.statuses.filter((s) => s.sha === FORK_SHA)).toEqual([]);
  }, 120_000);
});

describe('the sticky comment', () => {
  it("never edits a comment the gate's identity did not write, and still posts its report", async () => {
    // The gate's first comment shows its marker to anyone reading the pull request.
    const first = await runGate(pullRequest(50), {
      command: 'offline-benchmark',
      profile: 'false',
    });
    expect(first.code, first.stdout).toBe(0);
    const marker = /<!-- neuron-perf-gate:comment:[^>]*-->/.exec(
      github.api.state.commentsOn(50)[0]!.body,
    )![0];

    const event = pullRequest(51);
    const copied = github.api.state.addComment({
      issueNumber: 51,
      body: `LGTM, merge it\n\n${marker}`,
      user: 'mallory',
    });
    const result = await runGate(event, { command: 'offline-benchmark', profile: 'false' });
    expect(result.code, result.stdout).toBe(0);
    const comments = github.api.state.commentsOn(51);
    expect(comments).toHaveLength(2);
    expect(comments[0]).toEqual(copied);
    expect(comments[1]!.user).toBe('github-actions[bot]');
    expect(comments[1]!.body).toContain(marker);
    expect(result.summary).not.toMatch(/may not write/);
  }, 120_000);
});

describe('what the benchmark leaves running', () => {
  it('is stopped after each run, plain and profiled, and named in the report', async () => {
    // Tags in the command lines: in the sandbox the benchmark's PIDs are its own. Each run
    // starts a daemon in its process group and one that leaves it (setsid), and benchmarks.
    const tag = `${process.pid}`;
    const command = [`sleep 1000.${tag} &`, `setsid sleep 1001.${tag} &`, 'offline-benchmark'].join(
      '\n',
    );
    const result = await runGate(pullRequest(60), { command, profile: 'true' });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('::group::qwen3-reranker: run 3 of 3 (profiled)');

    // None of them runs after the gate; each run named its own two (below).
    expect([...livePidsWith(`sleep 1000.${tag}`), ...livePidsWith(`sleep 1001.${tag}`)]).toEqual(
      [],
    );

    // Named in the log and in what is published.
    expect(result.stdout).toMatch(
      new RegExp(
        `::warning::qwen3-reranker: run 3 of 3 \\(profiled\\) left 2 processes: \\d+ \`sleep 1000\\.${tag}\`, \\d+ \`sleep 1001\\.${tag}\` \\(had left its process group: setsid\\)`,
      ),
    );
    const report = JSON.parse(
      await readFile(join(workspace, 'perf-gate-output', 'report.json'), 'utf8'),
    );
    const warnings: string[] = report.benchmarks[0].warnings;
    expect(warnings.join('\n')).toMatch(
      /run 1 \(clean\) left 2 processes: .* \(had left its process group: setsid\) running after it exited \(3 of 3 runs did\)/,
    );
    expect(github.api.state.commentsOn(60).at(-1)?.body).toContain('setsid');
  }, 120_000);
});

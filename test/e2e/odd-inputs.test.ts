// Odd inputs and attacks against the bundled CLI and action (issue 13, item 7): each case
// is one a user or an attacker can produce, and each got a hang, a stack trace, a wrong
// verdict or a foreign link before it was fixed. Real processes, real files, real git
// and a loopback GitHub API.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import { reportArtifactName } from '../../src/github/report-artifact.js';
import { makeRepos } from '../baseline/git/support.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
  useActionGitHubApi,
} from '../support/action-run.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import type { GitHubApi } from '../support/github-api.js';
import { tempDir } from '../support/offline-result.js';
import { zipOf } from '../support/zip-writer.js';

function cli(args: string[], cwd: string, env: Record<string, string> = {}) {
  return runNode(CLI, args, { cwd, env: simulatorEnv(env) });
}

/** github-action-benchmark custom JSON: one entry per metric. */
function customResult(metrics: Record<string, number>): string {
  return JSON.stringify(
    Object.entries(metrics).map(([name, value]) => ({ name, value, unit: 'ms' })),
  );
}

/** The cells of the table row of `metric` in a markdown report, the name cell left out. */
function rowCells(markdown: string, metric: string): string[] | undefined {
  const row = markdown.split('\n').find((line) => line.startsWith(`| ${metric} (`));
  return row
    ?.split('|')
    .slice(2, -1)
    .map((cell) => cell.trim());
}

/** What GitHub's autolink extension turns into a link: a scheme or www. before a domain. */
const AUTOLINK = /(?:https?|ftp):\/\/[A-Za-z0-9_-]|\bwww\.[A-Za-z0-9_-]/i;

describe('metric and benchmark names an attacker chooses (CLI compare)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-odd-names-');
    // Names that are also properties of every JavaScript object, next to a control metric.
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'latency'];
    for (const [file, value] of [
      ['b1', 100],
      ['b2', 101],
      ['b3', 99],
      ['c1', 1000],
      ['c2', 1001],
      ['c3', 999],
    ] as const) {
      await writeFile(
        join(dir, `${file}.json`),
        customResult(Object.fromEntries(names.map((name) => [name, value]))),
      );
    }
  });

  const compare = (extra: string[], out: string) =>
    cli(
      [
        'compare',
        '--baseline',
        'b1.json',
        'b2.json',
        'b3.json',
        '--current',
        'c1.json',
        'c2.json',
        'c3.json',
        '--format',
        'custom-smaller-is-better',
        '--out',
        out,
        ...extra,
      ],
      dir,
    );

  it('judges a metric named constructor or toString like any other metric', async () => {
    // Gated by the built-in default: a 900% slowdown is a regression for every one.
    const gated = await compare([], 'gated');
    expect(gated.code, gated.stderr).toBe(1);
    // Only latency is gated: the others are shown, not gated, not "within NaN%".
    const onlyLatency = await compare(
      ['--threshold', 'default=off', '--threshold', 'latency=5%'],
      'only-latency',
    );
    expect(onlyLatency.code, onlyLatency.stderr).toBe(1);
    for (const [run, out] of [
      [gated, 'gated'],
      [onlyLatency, 'only-latency'],
    ] as const) {
      const markdown = await readFile(join(dir, out, 'comment.md'), 'utf8');
      expect(markdown).not.toContain('NaN');
      expect(run.stdout).not.toContain('NaN');
      const control = out === 'gated' ? rowCells(markdown, 'latency') : undefined;
      for (const id of ['constructor', 'to_string', 'has_own_property', 'value_of']) {
        const cells = rowCells(markdown, id);
        expect(cells, `${out}: ${id}`).toBeDefined();
        if (control) expect(cells, id).toEqual(control);
        else expect(cells!.slice(-2), id).toEqual(['—', 'not gated']);
      }
    }
  }, 60_000);

  it('writes no link from a benchmark name into the report', async () => {
    const name = 'see https://evil.example/login and www.evil.example or ftp://evil.example';
    const result = await compare(['--name', name], 'named');
    expect(result.code, result.stderr).toBe(1);
    const markdown = await readFile(join(dir, 'named', 'comment.md'), 'utf8');
    // The name is there, readable, but no autolink starts in it.
    expect(markdown.replaceAll('\u200B', '')).toContain('https://evil.example/login');
    for (const line of markdown.split('\n')) expect(line).not.toMatch(AUTOLINK);
  }, 60_000);
});

const TOKEN = 'ghs_oddInputsGateToken0123456789abcdef';
const SERVER = 'https://github.com';

/** The action on a pull request of octo/inference (not a fork), against a loopback API. */
function gateOnPullRequest(
  api: GitHubApi,
  workspace: string,
  label: string,
  number: number,
  options: { env?: Record<string, string>; inputs?: Record<string, string> } = {},
) {
  const headSha = `${number}`.padStart(40, 'c');
  if (!api.state.issue(number)) {
    api.state.addPullRequest({
      number,
      head: { ref: `feature-${number}`, sha: headSha, repo: 'octo/inference' },
    });
  }
  const event: ActionEvent = {
    name: 'pull_request',
    payload: pullRequestPayload({ number, headSha }),
    ref: `refs/pull/${number}/merge`,
    sha: `${number}`.padStart(40, 'd'),
  };
  return runActionProcess({
    workspace,
    label,
    inputs: {
      ...simulatorInputs({ runs: '2', 'confirm-runs': '0' }),
      'baseline-store': 'file',
      'github-token': TOKEN,
      ...options.inputs,
    },
    event,
    env: { GITHUB_API_URL: api.url, GITHUB_SERVER_URL: SERVER, ...options.env },
  });
}

describe('the two-stage comment job (mode: comment) on odd artifacts and runners', () => {
  const github = useActionGitHubApi();
  let workspace: string;
  beforeAll(async () => {
    workspace = await tempDir('perf-gate-odd-comment-');
  });

  it('drops an artifact link that climbs out of the run, and needs no RUNNER_TEMP folder', async () => {
    const { api } = github;
    const number = 61;
    const headSha = `${number}`.padStart(40, 'c');
    const stage1 = await gateOnPullRequest(api, workspace, 'stage1', number, {
      inputs: { comment: 'never' },
    });
    expect(stage1.code, stage1.stdout).toBe(0);
    const run = api.state.addWorkflowRun({
      event: 'pull_request',
      headSha,
      headBranch: `feature-${number}`,
      headRepository: 'octo/inference',
    });
    const runUrl = `${SERVER}/octo/inference/actions/runs/${run.id}`;
    // The pull request's code wrote the artifact: its links point wherever it likes.
    const folder = join(workspace, 'perf-gate-output', 'report-artifact');
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8'));
    const escapes = [
      `${runUrl}/../../../../evil/inference/releases`,
      `${runUrl}/artifacts/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/evil`,
      `${runUrl}/artifacts/1/..\\..\\..\\..\\evil`,
    ];
    report.benchmarks[0].artifact = { name: 'perf-gate-profiles-evil', url: escapes[0] };
    const second = structuredClone(report.benchmarks[0]);
    report.benchmarks.push(
      {
        ...second,
        name: `${second.name}-ok`,
        artifact: { name: 'perf-gate-profiles-ok', url: `${runUrl}/artifacts/4242` },
      },
      ...escapes.slice(1).map((url, index) => ({
        ...second,
        name: `${second.name}-${index + 2}`,
        artifact: { name: `perf-gate-profiles-evil-${index + 2}`, url },
      })),
    );
    const pr = JSON.parse(await readFile(join(folder, 'pr.json'), 'utf8'));
    api.state.addArtifact({
      runId: run.id,
      name: reportArtifactName(pr.gateKey),
      zip: zipOf({
        'report.json': JSON.stringify(report),
        'comment.md': 'unused',
        'pr.json': JSON.stringify(pr),
      }),
    });

    const result = await runActionProcess({
      workspace,
      label: 'stage2',
      inputs: { mode: 'comment', 'github-token': TOKEN },
      defaultsWithToken: TOKEN,
      event: {
        name: 'workflow_run',
        payload: {
          action: 'completed',
          workflow_run: {
            id: run.id,
            head_sha: headSha,
            head_branch: `feature-${number}`,
            event: 'pull_request',
            conclusion: 'success',
            head_repository: { full_name: 'octo/inference' },
            pull_requests: [{ number }],
          },
          repository: { full_name: 'octo/inference', default_branch: 'main' },
        },
        ref: 'refs/heads/main',
        sha: '0'.repeat(40),
      },
      // A runner whose temporary folder is gone.
      env: {
        GITHUB_API_URL: api.url,
        GITHUB_SERVER_URL: SERVER,
        RUNNER_TEMP: join(workspace, 'removed-runner-temp', 'tmp'),
      },
    });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).not.toContain('ENOENT');
    const comments = api.state.commentsOn(number);
    expect(comments).toHaveLength(1);
    const body = comments[0]!.body;
    // A link into the run stays; every one that leaves it is gone.
    expect(body).toContain(`[perf-gate-profiles-ok](${runUrl}/artifacts/4242)`);
    expect(body).not.toMatch(/\]\([^)]*(evil|%2e|\.\.)/i);
  }, 120_000);
});

describe("the sticky comment with a GitHub App's installation token", () => {
  const github = useActionGitHubApi();
  let workspace: string;
  beforeAll(async () => {
    // The app's bot writes the comments; GET /user refuses its installation token.
    github.api.state.actor = 'perf-gate-app[bot]';
    workspace = await tempDir('perf-gate-odd-app-');
  });

  it('finds and edits its own comment, and never one that copies its marker', async () => {
    const { api } = github;
    const number = 71;
    const first = await gateOnPullRequest(api, workspace, 'app-1', number);
    expect(first.code, first.stdout).toBe(0);
    const own = { ...api.state.commentsOn(number)[0]! };
    expect(own.user).toBe('perf-gate-app[bot]');
    const marker = /<!-- neuron-perf-gate:comment:[^>]*-->/.exec(own.body)![0];
    const copied = api.state.addComment({
      issueNumber: number,
      body: `ship it\n\n${marker}`,
      user: 'mallory',
    });

    const second = await gateOnPullRequest(api, workspace, 'app-2', number, {
      env: { SIM_SEED: '2' },
    });
    expect(second.code, second.stdout).toBe(0);
    const comments = api.state.commentsOn(number);
    // Still one comment of the app's, edited in place; mallory's left as it was.
    expect(comments.map((c) => c.user)).toEqual(['perf-gate-app[bot]', 'mallory']);
    expect(comments[0]!.id).toBe(own.id);
    expect(comments[0]!.body).not.toBe(own.body);
    expect(comments[1]).toEqual(copied);
    expect(api.requests.some((r) => r.path === '/graphql')).toBe(true);
  }, 120_000);
});

describe('config files and runner files that cannot be used (bundled action)', () => {
  let workspace: string;
  let runs = 0;
  beforeAll(async () => {
    workspace = await tempDir('perf-gate-odd-files-');
    await mkdir(join(workspace, '.github'), { recursive: true });
  });

  /** The action on a push, with `config` as .github/perf-gate.yml. */
  async function gateWithConfig(
    config: string,
    options: {
      inputs?: Record<string, string>;
      event?: Partial<ActionEvent>;
      env?: Record<string, string>;
    } = {},
  ) {
    runs += 1;
    await writeFile(join(workspace, '.github', 'perf-gate.yml'), config);
    return runActionProcess({
      workspace,
      label: `files-${runs}`,
      inputs: { 'baseline-store': 'file', profile: 'false', ...options.inputs },
      event: {
        name: 'push',
        payload: pushPayload('feature', 'a'.repeat(40)),
        ref: 'refs/heads/feature',
        sha: 'a'.repeat(40),
        ...options.event,
      },
      env: options.env ?? {},
    });
  }

  const CONFIG = (extra = '') =>
    `benchmarks:\n  - name: qwen3-reranker\n    command: offline-benchmark\n    format: offline-benchmark\n    runs: 2\n${extra}`;

  /** The one error line, which must name the file or input, and no stack frame. */
  function errorLine(stdout: string): string {
    expect(stdout).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
    const lines = stdout.split('\n').filter((line) => line.startsWith('::error::'));
    expect(lines, stdout).toHaveLength(1);
    return lines[0]!;
  }

  it('refuses a NUL byte in a config value at once, naming the file, line and field', async () => {
    const result = await gateWithConfig(
      CONFIG('    env:\n      MODEL_DIR: "/models/qwen\\0evil"\n'),
    );
    expect(result.code).toBe(1);
    expect(errorLine(result.stdout)).toMatch(
      /\.github\/perf-gate\.yml:7:\d+: benchmarks\[0\]\.env\.MODEL_DIR: contains a NUL byte.*remove it/,
    );
    expect(result.stdout).not.toContain('run 1 of');
  }, 60_000);

  it('says what to do about YAML nested too deep to read, and about an alias bomb', async () => {
    const deep = await gateWithConfig(
      CONFIG(`    env: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`),
    );
    expect(deep.code).toBe(1);
    expect(errorLine(deep.stdout)).toMatch(
      /\.github\/perf-gate\.yml(:\d+:\d+)?: the YAML nests .* too deep .*remove the nesting/,
    );
    const levels = 'abcdefghi'.split('');
    const bomb = levels
      .map((name, index) => {
        const item = index === 0 ? '"lol"' : `*${levels[index - 1]}`;
        return `${name}: &${name} [${Array(9).fill(item).join(', ')}]`;
      })
      .join('\n');
    const laughs = await gateWithConfig(`${bomb}\n${CONFIG('    env: { A: *i }\n')}`);
    expect(laughs.code).toBe(1);
    expect(errorLine(laughs.stdout)).toMatch(
      /\.github\/perf-gate\.yml: the YAML expands aliases .* write the values out/,
    );
  }, 60_000);

  it('refuses an out-dir under a regular file before anything runs', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'a file, not a folder\n');
    const result = await gateWithConfig(CONFIG(), { inputs: { 'out-dir': 'notes.txt/report' } });
    expect(result.code).toBe(1);
    expect(errorLine(result.stdout)).toMatch(
      /out-dir.*found "notes\.txt\/report"; .*notes\.txt is a file, so no folder can be made in it; allowed: a folder path/,
    );
    expect(result.stdout).not.toContain('run 1 of');
  }, 60_000);

  it('reports an event payload that is not JSON, or not readable, as a clean error', async () => {
    for (const [label, payload] of [
      ['truncated', '{"pull_request": {"number": 5, "head": '],
      ['directory', undefined],
    ] as const) {
      const path = join(workspace, `event-${label}`);
      if (payload === undefined) await mkdir(path, { recursive: true });
      else await writeFile(path, payload);
      const result = await gateWithConfig(CONFIG(), {
        event: { name: 'pull_request', ref: 'refs/pull/5/merge' },
        env: { GITHUB_EVENT_PATH: path },
      });
      expect(result.code, label).toBe(1);
      expect(result.stderr, label).not.toMatch(/SyntaxError|^\s+at /m);
      expect(errorLine(result.stdout), label).toMatch(
        new RegExp(
          `The event payload ${path} \\(GITHUB_EVENT_PATH\\) (is not valid JSON|cannot be read)`,
        ),
      );
      expect(result.stdout).not.toContain('run 1 of');
    }
  }, 60_000);
});

describe('the fork check on odd event payloads (bundled action, gate mode)', () => {
  let workspace: string;
  let runs = 0;
  beforeAll(async () => {
    workspace = await tempDir('perf-gate-odd-forks-');
  });

  function gate(event: ActionEvent) {
    runs += 1;
    return runActionProcess({
      workspace,
      label: `fork-${runs}`,
      inputs: {
        name: 'qwen3-reranker',
        format: 'offline-benchmark',
        // Would leave a mark if the gate ran it.
        command: `touch ran-${runs}; offline-benchmark`,
        'baseline-store': 'file',
        profile: 'false',
      },
      event,
    });
  }

  const fork = pullRequestPayload({ number: 9, headSha: 'c'.repeat(40), fork: true });
  const pr = (payload: Record<string, unknown>, name = 'pull_request'): ActionEvent => ({
    name,
    payload,
    ref: 'refs/pull/9/merge',
    sha: 'd'.repeat(40),
  });
  const cases: [string, ActionEvent][] = [
    ['no pull_request object', pr({ action: 'opened', number: 9, repository: fork.repository })],
    [
      'a pull request number given as a string',
      pr({ ...fork, pull_request: { ...fork.pull_request, number: '9' } }),
    ],
    [
      'a pull_request_target whose head repository has no name',
      pr(
        {
          ...fork,
          pull_request: { ...fork.pull_request, head: { ...fork.pull_request.head, repo: {} } },
        },
        'pull_request_target',
      ),
    ],
    [
      "a head and base that agree, but are not the job's repository",
      pr({
        ...fork,
        pull_request: {
          ...fork.pull_request,
          head: { ...fork.pull_request.head, repo: { full_name: 'stranger/inference' } },
          base: { ref: 'main', repo: { full_name: 'stranger/inference' } },
        },
      }),
    ],
    [
      "a workflow_run of a fork's code",
      {
        name: 'workflow_run',
        payload: {
          action: 'completed',
          workflow_run: {
            id: 77,
            head_sha: 'c'.repeat(40),
            head_branch: 'feature',
            event: 'pull_request',
            head_repository: { full_name: 'stranger/inference' },
            pull_requests: [],
          },
          repository: { full_name: 'octo/inference', default_branch: 'main' },
        },
        ref: 'refs/heads/main',
        sha: '0'.repeat(40),
      },
    ],
    [
      'a workflow_run that names no head repository',
      {
        name: 'workflow_run',
        payload: {
          action: 'completed',
          workflow_run: { id: 78, head_sha: 'c'.repeat(40), event: 'pull_request' },
          repository: { full_name: 'octo/inference', default_branch: 'main' },
        },
        ref: 'refs/heads/main',
        sha: '0'.repeat(40),
      },
    ],
  ];

  it.each(cases)(
    'refuses to run the benchmark on %s',
    async (_label, event) => {
      const result = await gate(event);
      expect(result.code, result.stdout).toBe(1);
      expect(result.stdout).toMatch(/::error::neuron-perf-gate: neuron-perf-gate refuses to run/);
      expect(result.outputs.verdict).toBe('error');
      await expect(readFile(join(workspace, `ran-${runs}`))).rejects.toThrow(/ENOENT/);
    },
    60_000,
  );

  it('still runs a workflow_run of code from this repository', async () => {
    const result = await gate({
      name: 'workflow_run',
      payload: {
        action: 'completed',
        workflow_run: {
          id: 79,
          head_sha: 'c'.repeat(40),
          head_branch: 'main',
          event: 'push',
          head_repository: { full_name: 'octo/inference' },
        },
        repository: { full_name: 'octo/inference', default_branch: 'main' },
      },
      ref: 'refs/heads/main',
      sha: '0'.repeat(40),
    });
    expect(result.code, result.stdout).toBe(0);
    expect(await readFile(join(workspace, `ran-${runs}`), 'utf8')).toBe('');
  }, 60_000);
});

describe('the git-branch store against real git (bundled action)', () => {
  const gitInputs = simulatorInputs({ runs: '2', 'confirm-runs': '0', 'github-token': '' });

  it('refuses baseline-branch main, the default branch, and writes nothing to it', async () => {
    const repos = await makeRepos();
    const sha = await repos.git.run(['rev-parse', 'HEAD']);
    const result = await runActionProcess({
      workspace: repos.checkout,
      label: 'onto-main',
      inputs: { ...gitInputs, 'baseline-branch': 'main' },
      event: { name: 'push', payload: pushPayload('main', sha), ref: 'refs/heads/main', sha },
    });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(
      /::error::.*baseline-branch is 'main', the repository's default branch/,
    );
    expect(await new Git({ cwd: repos.origin }).run(['rev-parse', 'main'])).toBe(sha);
  }, 60_000);
});

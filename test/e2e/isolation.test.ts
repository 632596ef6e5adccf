// The bundled action and CLI on a runner laid out as the Actions runner lays it out, with a
// pull request's benchmark, probe, profiler wrapper and bisect hook that try every way to
// the gate's credentials (test/fixtures/security/spy.sh). Real processes, the real
// sandbox, a loopback GitHub API and artifact service, real git.

import { randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pullRequestPayload,
  runActionProcess,
  useActionGitHubApi,
  useResultsService,
  type ActionEvent,
} from '../support/action-run.js';
import { benchmarkPaths } from '../../src/runner/benchmark.js';
import { createBisectRepo } from '../support/bisect-repo.js';
import { CLI, DIST, runNode, SIMULATOR_BIN, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const SPY = resolve(import.meta.dirname, '..', 'fixtures', 'security', 'spy.sh');
// Each test run's own secrets: the spy walks every process of the machine, and on a shared
// one another run of this suite (another checkout) holds the same test token in the open
// where nothing is isolated, which is no leak of the gate under test.
const RUN = randomBytes(4).toString('hex');
const TOKEN = `ghs_isolationTokenThatMustNotLeak${RUN}`;
const CHECKOUT_TOKEN = `ghs_checkoutPersistedTokenMustNotLeak${RUN}`;
const OIDC_TOKEN = `oidc-request-token-that-must-not-leak-either-${RUN}`;
const RUNTIME_MARK = `runtime-url-mark-that-must-not-leak-${RUN}`;
const RUNNER_SECRET = `runner-registration-secret-must-not-leak-${RUN}`;
const header = (token: string) =>
  `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;

const github = useActionGitHubApi();
const results = useResultsService();

interface Runner {
  root: string;
  runnerTemp: string;
  workspace: string;
  stepFiles: Record<string, string>;
}

let runner: Runner;

/** actions-runner/_work/<repo>/<repo> with checkout's persisted token, the step files, a registration. */
async function layRunner(): Promise<Runner> {
  const root = join(await tempDir('perf-gate-isolation-'), 'actions-runner');
  const runnerTemp = join(root, '_work', '_temp');
  const workspace = join(root, '_work', 'inference', 'inference');
  const commands = join(runnerTemp, '_runner_file_commands');
  await mkdir(commands, { recursive: true });
  await mkdir(workspace, { recursive: true });
  await writeFile(join(root, '.credentials'), JSON.stringify({ secret: RUNNER_SECRET }));
  await mkdir(join(root, 'bin'), { recursive: true });
  await mkdir(join(root, '_work', '_actions'), { recursive: true });
  await writeFile(join(root, 'bin', 'Runner.Worker'), 'the runner\n');
  const stepFiles: Record<string, string> = {};
  for (const name of ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE']) {
    stepFiles[name] = join(commands, `${name.toLowerCase()}_3f1c`);
    await writeFile(stepFiles[name], '');
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace });
  git('init', '--quiet', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--allow-empty', '-qm', 'base');
  git('remote', 'add', 'origin', 'https://github.com/octo/inference');
  git('config', 'http.https://github.com/.extraheader', header(CHECKOUT_TOKEN));
  return { root, runnerTemp, workspace, stepFiles };
}

/** A character device with a Neuron-like name (a null device) the benchmark must open. */
const DEVICE = process.getuid?.() === 0 ? '/dev/neuron-perf-gate-e2e0' : '/dev/null';

beforeAll(async () => {
  runner = await layRunner();
  if (DEVICE !== '/dev/null' && !existsSync(DEVICE)) {
    execFileSync('mknod', ['-m', '666', DEVICE, 'c', '1', '3']);
  }
});

afterAll(async () => {
  if (DEVICE !== '/dev/null') await rm(DEVICE, { force: true });
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

function runGate(
  event: ActionEvent,
  inputs: Record<string, string>,
  env: Record<string, string> = {},
) {
  return runActionProcess({
    workspace: runner.workspace,
    label: `run-${event.sha.slice(-3)}`,
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
      ...results.env(),
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: OIDC_TOKEN,
      ACTIONS_ID_TOKEN_REQUEST_URL: `${github.api.url}/oidc?token=${OIDC_TOKEN}`,
      ACTIONS_RUNTIME_URL: `${results.service.url}/${RUNTIME_MARK}/`,
      RUNNER_TEMP: runner.runnerTemp,
      HOME: join(runner.root, '..', 'home'),
      // The action's saved state, for its post step: never the benchmark's to read.
      STATE_perfGateToken: OIDC_TOKEN,
      ...runner.stepFiles,
      ...env,
    },
  });
}

/** Everything the spy could read, with each token the gate or the runner holds. */
async function expectNothingLeaked(dumpFile: string, what: string): Promise<string> {
  const dump = await readFile(dumpFile, 'utf8');
  expect(dump.length, what).toBeGreaterThan(500);
  for (const secret of [
    TOKEN,
    CHECKOUT_TOKEN,
    header(CHECKOUT_TOKEN).split(' ').at(-1)!,
    OIDC_TOKEN,
    RUNTIME_MARK,
    RUNNER_SECRET,
    results.service.runtimeToken,
  ]) {
    expect(dump, `${what}: ${secret}`).not.toContain(secret);
  }
  expect(dump, what).toMatch(/^CapEff:\s+0+$/m);
  expect(dump, what).not.toMatch(/^wrote /m);
  expect(dump, what).not.toMatch(/^inherited fd /m);
  for (const file of Object.values(runner.stepFiles)) {
    expect(await readFile(file, 'utf8'), `${what}: ${file}`).toBe('');
  }
  // The runner's programs, which the next step and job run, are as they were.
  expect(await readFile(join(runner.root, 'bin', 'Runner.Worker'), 'utf8')).toBe('the runner\n');
  return dump;
}

describe('pull-request code through the bundled action', () => {
  it('finds no token and changes nothing: benchmark, probe and profiler wrapper', async () => {
    const spies = join(runner.workspace, 'spies');
    const spy = (name: string) =>
      `SPY_OUT=${join(spies, name)} SPY_STEP_FILE=${runner.stepFiles.GITHUB_ENV} SPY_RUNNER_ROOT=${runner.root} bash ${SPY} >/dev/null`;
    const profiler = join(runner.workspace, 'spy-profiler');
    await writeFile(
      profiler,
      `#!/bin/bash\n${spy('profiler')}\nexec "${join(SIMULATOR_BIN, 'neuron-explorer')}" "$@"\n`,
    );
    await chmod(profiler, 0o755);
    const result = await runGate(
      pullRequest(31),
      {
        command: `${spy('benchmark')}; offline-benchmark`,
        'environment-probe': `${spy('probe')}; echo vllm=0.0.0-spy`,
        profile: 'true',
        'profiler-path': profiler,
      },
      // The runner's Neuron device, which the benchmark must still open (the simulator
      // fails without a result file when it cannot).
      { SIM_NEURON_DEVICE: DEVICE },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('pull-request code runs isolated: bubblewrap');
    for (const name of ['benchmark', 'probe', 'profiler']) {
      const dump = await expectNothingLeaked(join(spies, name, 'dump.txt'), name);
      // Still a working checkout: git reads the remote, without the header.
      expect(dump, name).toContain('remote.origin.url=https://github.com/octo/inference');
    }
    // Said where people read it: the comment's footer and report.json.
    expect(github.api.state.commentsOn(31).at(-1)?.body).toMatch(/isolation: bubblewrap<\/sub>/);
    const report = JSON.parse(
      await readFile(join(runner.workspace, 'perf-gate-output', 'report.json'), 'utf8'),
    );
    expect(report.isolation).toBe('bubblewrap');
  }, 120_000);

  it('refuses a pull request without isolation, with the line to change', async () => {
    const marker = join(runner.workspace, 'ran-unisolated');
    const command = `touch ${marker}; offline-benchmark`;
    const refused = await runGate(pullRequest(32), { command, isolation: 'none' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/refuses to run: pull-request code would run without isolation/);
    expect(refused.stdout).toContain('require-isolation: never');
    expect(github.api.state.commentsOn(32)).toEqual([]);
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);

    const allowed = await runGate(pullRequest(33), {
      command,
      isolation: 'none',
      'require-isolation': 'never',
    });
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(allowed.stdout).toMatch(/::warning::pull-request code would run without isolation/);
    expect(github.api.state.commentsOn(33).at(-1)?.body).toMatch(/isolation: none/);
  }, 120_000);

  it('keeps its tokens out of its own environment block, even where nothing is isolated', async () => {
    // Without a sandbox the benchmark sees every process of the runner's user, the gate's
    // among them: /proc/<gate>/environ is the block the gate was started with, so the gate
    // starts itself again without its secrets (src/secrets-in-memory.ts).
    const spyOut = join(runner.workspace, 'spies', 'unisolated');
    const result = await runGate(pullRequest(34), {
      command: `SPY_OUT=${spyOut} bash ${SPY} >/dev/null; offline-benchmark`,
      isolation: 'none',
      'require-isolation': 'never',
    });
    expect(result.code, result.stdout).toBe(0);
    const dump = await readFile(join(spyOut, 'dump.txt'), 'utf8');
    const processes = dump.slice(dump.indexOf('=== processes'), dump.indexOf('=== files'));
    // The gate is among them, and nothing of its environment is a secret.
    expect(processes).toMatch(/node\S* \S*index\.js/);
    for (const secret of [TOKEN, OIDC_TOKEN, results.service.runtimeToken]) {
      expect(processes).not.toContain(secret);
    }
    // It still used them: the comment was posted with the token.
    expect(github.api.state.commentsOn(34).at(-1)?.body).toMatch(/isolation: none/);
  }, 120_000);
});

describe("bisect's --command hook through the bundled CLI", () => {
  it('finds no token and no step file, and escapes what it prints from git', async () => {
    const repo = await createBisectRepo({ commits: 2, culprit: 2, slowdown: 1.2 });
    // A commit subject that would rewrite the terminal (ESC sequences) and reverse a line.
    execFileSync(
      'git',
      ['commit', '--allow-empty', '-qm', 'tidy \u001b[2K\u001b]0;x\u0007 \u202Eevil'],
      {
        cwd: repo.dir,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      },
    );
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo.dir }).toString().trim();
    const stepFile = runner.stepFiles.GITHUB_ENV!;
    const spyOut = join(repo.dir, 'spy-hook');
    // The hook also tries to plant a git hook in the repository, which bisect's next `git
    // worktree add` (the gate's, outside the sandbox, with its tokens) would run: the
    // sandbox shows .git read-only, and the gate's git runs no hook (test/baseline/git).
    const planted = join(repo.dir, 'post-checkout-ran');
    const plantHook = `( hooks="$(git rev-parse --git-common-dir)/hooks"; mkdir -p "$hooks"; printf '#!/bin/sh\\nenv > ${planted}\\n' > "$hooks/post-checkout"; chmod +x "$hooks/post-checkout" ) 2>/dev/null || true`;
    const result = await runNode(
      CLI,
      [
        ...['bisect', '--good', repo.shas[0]!, '--bad', head, '--config', 'perf-gate.yml'],
        ...[
          '--command',
          `SPY_OUT=${spyOut} SPY_STEP_FILE=${stepFile} bash ${SPY} >/dev/null; ${plantHook}`,
        ],
        ...['--quiet', '--out', 'bisect-out', '--max-runs', '4'],
      ],
      {
        cwd: repo.dir,
        env: simulatorEnv({
          HOME: join(runner.root, '..', 'home'),
          GITHUB_TOKEN: TOKEN,
          'INPUT_GITHUB-TOKEN': TOKEN,
          ACTIONS_RUNTIME_TOKEN: RUNTIME_MARK,
          STATE_perf: OIDC_TOKEN,
          RUNNER_TEMP: runner.runnerTemp,
          GITHUB_ENV: stepFile,
        }),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const dump = await expectNothingLeaked(join(spyOut, 'dump.txt'), 'bisect hook');
    expect(dump).not.toMatch(/^(INPUT_|STATE_|ACTIONS_RUNTIME)/m);
    expect(result.stderr).toContain('isolation: bubblewrap');
    expect(existsSync(planted), 'a hook the benchmark planted ran outside the sandbox').toBe(false);
    // The subject reaches the terminal only as escapes.
    // eslint-disable-next-line no-control-regex -- looking for control characters
    expect(result.stdout + result.stderr).not.toMatch(/[\u001b\u0007\u202E]/);
  }, 120_000);
});

describe.each(['bubblewrap', 'unshare'] as const)('an unprivileged runner user (%s)', (kind) => {
  // Self-hosted runners run as an ordinary user: both sandboxes then need a user namespace.
  // As root, the test switches to nobody (setpriv); otherwise it is an ordinary user already.
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? 65534 : process.getuid?.();
  const switchUser = asRoot
    ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--']
    : [];

  it('runs the benchmark isolated, writing its workspace', async () => {
    const root = await tempDir('perf-gate-unprivileged-');
    await chmod(root, 0o777);
    // A copy of the bundles the user may read (the test's own snapshot is private).
    const dist = join(root, 'dist');
    await cp(DIST, dist, { recursive: true });
    execFileSync('chmod', ['-R', 'a+rX', dist]);
    const work = join(root, 'work');
    await mkdir(work);
    await chmod(work, 0o777);
    const [file, ...prefix] = [...switchUser, process.execPath];
    const args = [
      ...prefix,
      ...[join(dist, 'cli.js'), 'run', '--command', 'id -u > uid.txt; offline-benchmark'],
      ...['--runs', '1', '--profile', 'false', '--confirm-runs', '0', '--isolation', kind],
    ];
    const result = await new Promise<{ code: number; output: string }>((done) => {
      const options = { cwd: work, env: { ...simulatorEnv(), HOME: work }, timeout: 60_000 };
      execFile(file!, args, options, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`isolation: ${kind}`);
    // Written by the benchmark, as that user, in the workspace.
    expect((await stat(join(work, 'uid.txt'))).uid).toBe(user);
  }, 90_000);
});

describe("bisect's worktrees", () => {
  it('are never checked out through a link a commit left in the place of the next one', async () => {
    const repo = await createBisectRepo({ commits: 3, culprit: 2, slowdown: 1.2 });
    // A folder of the runner's that the next checkout would fill with the pull request's files.
    const target = await tempDir('perf-gate-runner-programs-');
    const plant = `for c in $(git rev-list --all); do ln -s ${target} "$(dirname "$PWD")/\${c:0:12}" 2>/dev/null; done; true`;
    const result = await runNode(
      CLI,
      [
        ...['bisect', '--good', repo.shas[0]!, '--bad', repo.shas[3]!, '--config', 'perf-gate.yml'],
        ...['--command', plant, '--quiet', '--out', 'bisect-out', '--max-runs', '4'],
      ],
      { cwd: repo.dir, env: simulatorEnv({ HOME: repo.dir }) },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/is there before bisect made it/);
    expect(readdirSync(target)).toEqual([]);
  }, 120_000);
});

describe('files the benchmark can write, which the gate reads and writes outside the sandbox', () => {
  it('are never read or written through a symbolic link the benchmark left', async () => {
    const dir = await tempDir('perf-gate-links-');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
    git('init', '--quiet', '-b', 'main');
    git('config', 'http.https://github.com/.extraheader', header(CHECKOUT_TOKEN));
    // A program of the runner's, outside the workspace: the target of every link below.
    const program = join(runner.root, '..', `run-helper-${process.pid}.sh`);
    await writeFile(program, '#!/bin/sh\necho the runner\n');
    const before = await readFile(program, 'utf8');
    // Each run leaves links where the gate writes next (the sweep's params.json, the next
    // run's log, the profile summaries), and its result file is a link to .git/config.
    const plant = [
      'out=$(dirname "$PERF_GATE_OUTPUT")',
      `ln -sf ${program} "$out/params.json"`,
      `for i in 1 2 3 4; do ln -sf ${program} "$out/run-$i.clean.log" 2>/dev/null; done`,
      'if [ "$PERF_GATE_PROFILE" = 1 ]; then',
      '  p="${out%/runs/*}/profiles/${out##*/}"; mkdir -p "$p/perf-gate-summaries"',
      `  ln -sf ${program} "$p/perf-gate-summaries/summary-1.json"`,
      'fi',
    ].join('\n');
    await writeFile(
      join(dir, 'bench.sh'),
      `${plant}\noffline-benchmark\n[ -n "$LINK_RESULT" ] && ln -sf "$PWD/.git/config" "$PERF_GATE_OUTPUT"\n[ -n "$SWAP_OUT" ] && [ ! -L perf-gate-output ] && cp -r perf-gate-output/. "$SWAP_OUT"/ && rm -f "$SWAP_OUT"/runs/*/params.json "$SWAP_OUT"/report.json && mv perf-gate-output perf-gate-output.old && ln -s "$SWAP_OUT" perf-gate-output\ntrue\n`,
    );
    await writeFile(
      join(dir, 'perf-gate.yml'),
      [
        'benchmarks:',
        '  - name: sw',
        '    command: bash bench.sh',
        '    runs: 2',
        '    confirm-runs: 0',
        '    profile: true',
        '    sweep:',
        '      base: { x: "$(id > /tmp/pwned)" }',
        '      variants: [{ name: a }]',
        '',
      ].join('\n'),
    );
    const run = (extra: Record<string, string> = {}) =>
      runNode(CLI, ['run', '--config', 'perf-gate.yml', '--quiet'], {
        cwd: dir,
        env: simulatorEnv({ HOME: dir, ...extra }),
      });
    const planted = await run();
    expect(planted.stderr).toContain('isolation: bubblewrap');
    // The gate replaced or removed each link rather than writing through it.
    expect(await readFile(program, 'utf8')).toBe(before);

    const linkedResult = await run({ LINK_RESULT: '1' });
    expect(await readFile(program, 'utf8')).toBe(before);
    const everything = linkedResult.stdout + linkedResult.stderr;
    expect(everything).not.toContain(header(CHECKOUT_TOKEN).split(' ').at(-1));

    // The out-dir itself swapped for a link to a folder of the runner's: the gate writes
    // neither the next run's files nor its report there.
    const folder = await tempDir('perf-gate-runner-folder-');
    const swapped = await run({ SWAP_OUT: folder });
    expect(swapped.code).not.toBe(0);
    expect(swapped.stderr).toMatch(/is a symbolic link/);
    // The first run's files were copied there by the benchmark (so that its result still
    // reads), its params.json removed: the gate wrote no new one through the link.
    const { runsDir } = benchmarkPaths(folder, 'sw/a');
    expect(existsSync(join(runsDir, 'run-1.clean.json'))).toBe(true);
    expect(existsSync(join(runsDir, 'params.json'))).toBe(false);
    expect(existsSync(join(folder, 'report.json'))).toBe(false);
  }, 120_000);

  it('deletes and writes nothing through a link one benchmark left for the next', async () => {
    const dir = await tempDir('perf-gate-delete-link-');
    execFileSync('git', ['init', '--quiet', '-b', 'main'], { cwd: dir });
    // A folder of the runner's named like the second benchmark: its earlier output would be
    // deleted through a link in place of profiles/ (or runs/).
    const victims = await tempDir('perf-gate-victims-');
    await mkdir(join(victims, 'bin'));
    await writeFile(join(victims, 'bin', 'Runner.Worker'), 'the runner\n');
    await writeFile(
      join(dir, 'a.sh'),
      [
        'o=$(dirname "$(dirname "$(dirname "$PERF_GATE_OUTPUT")")")',
        `rm -rf "$o/profiles" && ln -s ${victims} "$o/profiles"`,
        `mkdir -p save && rm -rf save && ln -s ${victims} save`,
        'offline-benchmark',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'perf-gate.yml'),
      [
        'profile: false',
        'runs: 1',
        'confirm-runs: 0',
        'benchmarks:',
        '  - { name: a, command: bash a.sh }',
        '  - { name: bin, command: offline-benchmark }',
        '',
      ].join('\n'),
    );
    const result = await runNode(
      CLI,
      ['run', '--config', 'perf-gate.yml', '--quiet', '--save-baseline', 'save/baseline.json'],
      { cwd: dir, env: simulatorEnv({ HOME: dir }) },
    );
    expect(result.stderr).toMatch(/is a symbolic link/);
    expect(await readFile(join(victims, 'bin', 'Runner.Worker'), 'utf8')).toBe('the runner\n');
    expect(readdirSync(victims)).toEqual(['bin']);
  }, 60_000);

  it('reads no sweep file inside .git', async () => {
    const dir = await tempDir('perf-gate-sweep-link-');
    execFileSync('git', ['init', '--quiet', '-b', 'main'], { cwd: dir });
    execFileSync(
      'git',
      ['config', 'http.https://github.com/.extraheader', header(CHECKOUT_TOKEN)],
      {
        cwd: dir,
      },
    );
    await writeFile(
      join(dir, 'perf-gate.yml'),
      'benchmarks:\n  - name: s\n    command: offline-benchmark\n    sweep: { file: .git/config }\n',
    );
    const result = await runNode(CLI, ['run', '--config', 'perf-gate.yml', '--quiet'], {
      cwd: dir,
      env: simulatorEnv(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot read the sweep file: it is .*inside a \.git folder/);
    expect(result.stderr).not.toContain('[core]');
  });

  it('reads no config file that is a link into .git', async () => {
    const dir = await tempDir('perf-gate-config-link-');
    execFileSync('git', ['init', '--quiet', '-b', 'main'], { cwd: dir });
    execFileSync(
      'git',
      ['config', 'http.https://github.com/.extraheader', header(CHECKOUT_TOKEN)],
      {
        cwd: dir,
      },
    );
    await mkdir(join(dir, '.github'));
    execFileSync('ln', ['-s', '../.git/config', join(dir, '.github', 'perf-gate.yml')]);
    const result = await runNode(CLI, ['run', '--quiet'], { cwd: dir, env: simulatorEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /it is .*\.git\/config, outside the workspace or inside a \.git folder/,
    );
    expect(result.stderr).not.toContain(header(CHECKOUT_TOKEN).split(' ').at(-1));
  });
});

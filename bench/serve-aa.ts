// npm run bench:serve-aa: examples/vllm-serve/perf-gate.yml through the bundled action
// (dist/index.js, as users run it) on the simulator, many times on unchanged code, on a
// host kept busy if asked. First a few pushes to main store the baseline on a git data
// branch of a local bare repository (each on a commit of its own, as nightly pushes);
// then --runs pull requests of the same code are judged against it. Prints how many pull
// requests failed the gate, on which metric, with a Wilson interval.
//
//   npm run bench:serve-aa -- --runs 20 --nights 5 --load 2 [--action other/dist/index.js]
//
// --load K spins K busy child processes for the whole bench (the "loaded host"). The
// simulated server is 25× faster than inf2 and answers 24 requests a run, as the vllm-serve
// end-to-end test's is (test/e2e/vllm-serve.test.ts); it is ready after SIM_SERVE_STARTUP
// (2 s, the simulator's default), so its start-up moves with the host only.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { GateReport } from '../src/model.js';
import { rateWithInterval, table } from './text.js';
import { freePort } from '../test/support/ports.js';

/** npm runs the benches from the package's folder. */
const ROOT = resolve('.');
const EXAMPLE = join(ROOT, 'examples', 'vllm-serve', 'perf-gate.yml');
const SIMULATOR_BIN = join(ROOT, 'examples', 'simulated-inf2', 'bin');
const FAST = { SIM_SERVE_SPEEDUP: '25', SIM_SERVE_PROMPTS: '24' };

interface Options {
  /** The bundled action: dist/index.js, or another build's (--action). */
  action: string;
  runs: number;
  nights: number;
  load: number;
  keep: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      action: { type: 'string', default: join(ROOT, 'dist', 'index.js') },
      runs: { type: 'string', default: '20' },
      nights: { type: 'string', default: '5' },
      load: { type: 'string', default: '0' },
      keep: { type: 'boolean', default: false },
    },
  });
  const number = (name: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`--${name} must be an integer of at least ${min}, got ${text}`);
    }
    return value;
  };
  return {
    action: resolve(values.action),
    runs: number('runs', values.runs, 1),
    nights: number('nights', values.nights, 1),
    load: number('load', values.load, 0),
    keep: values.keep,
  };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
  };
  const result = await run('git', args, cwd, env);
  if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A bare origin and its checkout with the example's config on main, on a free port. */
async function repository(root: string): Promise<string> {
  const origin = join(root, 'origin.git');
  const checkout = join(root, 'checkout');
  await git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  await git(root, 'clone', '--quiet', origin, checkout);
  await git(checkout, 'checkout', '--quiet', '-b', 'main');
  const example = await readFile(EXAMPLE, 'utf8');
  await mkdir(join(checkout, '.github'));
  await writeFile(
    join(checkout, '.github/perf-gate.yml'),
    example.replaceAll('8000', `${await freePort()}`),
  );
  await git(checkout, 'add', '.github/perf-gate.yml');
  await git(checkout, 'commit', '--quiet', '-m', 'code');
  await git(checkout, 'push', '--quiet', 'origin', 'main');
  return checkout;
}

interface Event {
  name: 'push' | 'pull_request';
  payload: Record<string, unknown>;
  ref: string;
  sha: string;
}

const REPOSITORY = { full_name: 'octo/inference', default_branch: 'main' };

function pushEvent(sha: string): Event {
  return {
    name: 'push',
    payload: { ref: 'refs/heads/main', after: sha, repository: REPOSITORY },
    ref: 'refs/heads/main',
    sha,
  };
}

function pullRequestEvent(number: number, headSha: string): Event {
  return {
    name: 'pull_request',
    payload: {
      action: 'synchronize',
      number,
      pull_request: {
        number,
        head: {
          sha: headSha,
          ref: 'feature',
          repo: { full_name: REPOSITORY.full_name, fork: false },
        },
        base: { ref: 'main', repo: REPOSITORY },
      },
      repository: REPOSITORY,
    },
    ref: `refs/pull/${number}/merge`,
    sha: 'e'.repeat(40),
  };
}

interface GateRun {
  code: number;
  verdict: string;
  /** benchmark/metric of every regression. */
  failed: string[];
  /** The server_startup row of the first benchmark: its change and reason. */
  startup?: string;
  seconds: number;
}

/** One gate run of the bundled action, as the Actions runner starts it. */
async function gate(
  action: string,
  checkout: string,
  label: string,
  event: Event,
  seed: string,
): Promise<GateRun> {
  const files = join(checkout, '..', label);
  await mkdir(files, { recursive: true });
  const output = join(files, 'output.txt');
  const eventPath = join(files, 'event.json');
  await writeFile(output, '');
  await writeFile(join(files, 'summary.md'), '');
  await writeFile(eventPath, JSON.stringify(event.payload));
  const env: NodeJS.ProcessEnv = {
    PATH: `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    NEURON_COMPILE_CACHE_URL: join(checkout, '..', 'compile-cache'),
    PERF_GATE_INSTANCE_TYPE: 'inf2.xlarge',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: checkout,
    GITHUB_STEP_SUMMARY: join(files, 'summary.md'),
    GITHUB_OUTPUT: output,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REF: event.ref,
    GITHUB_REF_NAME: event.ref.replace(/^refs\/heads\//, ''),
    GITHUB_SHA: event.sha,
    GITHUB_REPOSITORY: REPOSITORY.full_name,
    GITHUB_REPOSITORY_OWNER: 'octo',
    GITHUB_RUN_ID: String(1000 + Number(seed)),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'perf',
    GITHUB_JOB: 'serve',
    GITHUB_ACTOR: 'octocat',
    RUNNER_NAME: 'inf2-runner-1',
    RUNNER_TEMP: join(files, 'runner-temp'),
    INPUT_CONFIG: '.github/perf-gate.yml',
    'INPUT_GITHUB-TOKEN': '',
    INPUT_COMMENT: 'never',
    SIM_SEED: seed,
    ...FAST,
  };
  const started = Date.now();
  const result = await run(process.execPath, [action], checkout, env);
  const seconds = (Date.now() - started) / 1000;
  const outputs = await readFile(output, 'utf8');
  const verdict = /^verdict<<(\S+)\n([\s\S]*?)\n\1$/m.exec(outputs)?.[2];
  const reportPath = /^report<<(\S+)\n([\s\S]*?)\n\1$/m.exec(outputs)?.[2];
  const report = await readFile(
    reportPath ?? join(checkout, 'perf-gate-output', 'report.json'),
    'utf8',
  )
    .then((text) => JSON.parse(text) as GateReport)
    .catch(() => undefined);
  if (!report) {
    throw new Error(
      `${label}: no report.json (exit ${result.code})\n${result.stdout.slice(-3000)}`,
    );
  }
  const failed = report.benchmarks.flatMap((b) =>
    b.metrics.filter((m) => m.verdict === 'regression').map((m) => `${b.name}/${m.id}`),
  );
  const startup = report.benchmarks[0]?.metrics.find((m) => m.id === 'server_startup');
  return {
    code: result.code,
    verdict: verdict ?? 'none',
    failed,
    ...(startup ? { startup: `${startup.verdict}: ${startup.reason}` } : {}),
    seconds,
  };
}

/** K processes that spin until killed: a host other jobs keep busy. */
function busyHost(load: number): ChildProcess[] {
  return Array.from({ length: load }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}

async function main(): Promise<void> {
  const opts = options();
  const root = await mkdtemp(join(tmpdir(), 'perf-gate-serve-aa-'));
  const spinners = busyHost(opts.load);
  const stop = () => {
    for (const child of spinners) if (child.pid !== undefined) child.kill('SIGKILL');
  };
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });
  try {
    const checkout = await repository(root);
    console.log(
      `serve-aa: ${opts.action} with examples/vllm-serve/perf-gate.yml on the simulator ` +
        `(SIM_SERVE_SPEEDUP 25, 24 requests a run); ${opts.nights} pushes to main store the ` +
        `baseline on perf-gate-data, then ${opts.runs} pull requests of the same code; ` +
        `${opts.load} busy process(es) beside it; in ${root}`,
    );
    for (let night = 1; night <= opts.nights; night += 1) {
      await git(checkout, 'commit', '--quiet', '--allow-empty', '-m', `night ${night}`);
      await git(checkout, 'push', '--quiet', 'origin', 'main');
      const sha = await git(checkout, 'rev-parse', 'HEAD');
      const stored = await gate(
        opts.action,
        checkout,
        `night-${night}`,
        pushEvent(sha),
        String(night),
      );
      console.log(
        `  night ${night}: exit ${stored.code}, ${stored.verdict}, ${stored.seconds.toFixed(0)} s`,
      );
    }
    const runs: GateRun[] = [];
    for (let index = 1; index <= opts.runs; index += 1) {
      const seed = String(100 + index);
      const pr = await gate(
        opts.action,
        checkout,
        `pr-${index}`,
        pullRequestEvent(index, 'f'.repeat(40)),
        seed,
      );
      runs.push(pr);
      console.log(
        `  pull request ${index}: exit ${pr.code}, ${pr.verdict}` +
          `${pr.failed.length > 0 ? ` on ${pr.failed.join(', ')}` : ''}, ` +
          `${pr.seconds.toFixed(0)} s; server_startup ${pr.startup ?? 'absent'}`,
      );
    }
    report(runs);
  } finally {
    stop();
    if (!opts.keep) await rm(root, { recursive: true, force: true });
  }
}

function report(runs: readonly GateRun[]): void {
  const failed = runs.filter((r) => r.code !== 0);
  const byMetric = new Map<string, number>();
  for (const r of failed) {
    for (const id of new Set(r.failed)) byMetric.set(id, (byMetric.get(id) ?? 0) + 1);
  }
  console.log('');
  console.log(`gate runs failed: ${rateWithInterval(failed.length, runs.length)} (Wilson)`);
  const warned = runs.filter((r) => r.code === 0 && r.startup?.startsWith('inconclusive'));
  console.log(`passed with server_startup inconclusive: ${warned.length}`);
  if (byMetric.size > 0) {
    console.log(
      table(
        ['metric', 'gate runs failed on it'],
        [...byMetric].map(([id, n]) => [id, `${n}`]),
      ),
    );
  }
}

await main();

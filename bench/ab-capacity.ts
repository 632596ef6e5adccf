// npm run bench:ab-capacity: `neuron-perf-gate ab` (dist/cli.js, as users run it) on
// examples/vllm-serve/perf-gate.yml and the simulator, --runs times: two environments of
// one commit, the base's server at SIM_SERVE_CAPACITY 10 and the head's at --head-capacity
// (10.0, the same server: an A/A comparison; 9: a 10% capacity loss). Prints how often the
// sweep's capacity failed and how often the gate did, with Wilson intervals, beside a plain
// paired t test on the same draws: each side's capacities paired run for run within their
// block (4 pairs at 2 blocks), one-sided at the capacity's own share of the gate's budget.
//
//   npm run bench:ab-capacity -- --runs 10 [--head-capacity 9] [--blocks 3] [--confirm-blocks 1]
//     [--speedup 10] [--cli dist/cli.js]
//
// The simulated server runs --speedup times faster than inf2's time and answers --prompts
// requests a run (40); each gate run has a seed of its own (SIM_SEED). So few requests do
// not reach the queue's steady state where the example's P99 E2E objective crosses, and
// its tail is the loaded host's wall clock: the E2E objective is --e2el instead (`p50:
// 2.8s`, crossing between 4 and 6 a second, where the median climbs steeply with load).

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import type { GateReport } from '../src/model.js';
import { studentTQuantile } from '../src/stats/distributions.js';
import { sidakLevel } from '../src/stats/multiplicity.js';
import { rateWithInterval, table } from './text.js';
import { freePort } from '../test/support/ports.js';

const ROOT = resolve('.');
const EXAMPLE = join(ROOT, 'examples', 'vllm-serve', 'perf-gate.yml');
const SIMULATOR_BIN = join(ROOT, 'examples', 'simulated-inf2', 'bin');
/** The example's five variants and its capacity: the gate's budget split six ways. */
const CAPACITY_LEVEL = sidakLevel(GATE_FALSE_ALARM_RATE, 6);

interface Options {
  cli: string;
  runs: number;
  headCapacity: string;
  blocks: number;
  /** Blocks a benchmark, or the sweep's capacity, may add while open (`ab --confirm-blocks`). */
  confirmBlocks: string;
  speedup: string;
  prompts: string;
  /** The SLO's E2E objective in place of the example's `p99: 4s`. */
  e2el: string;
  keep: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      cli: { type: 'string', default: join(ROOT, 'dist', 'cli.js') },
      runs: { type: 'string', default: '10' },
      'head-capacity': { type: 'string', default: '10.0' },
      blocks: { type: 'string', default: '3' },
      'confirm-blocks': { type: 'string', default: '1' },
      speedup: { type: 'string', default: '10' },
      prompts: { type: 'string', default: '40' },
      e2el: { type: 'string', default: 'p50: 2.8s' },
      keep: { type: 'boolean', default: false },
    },
  });
  const count = (name: string, text: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: ${text}`);
    return value;
  };
  return {
    cli: resolve(values.cli),
    runs: count('runs', values.runs),
    headCapacity: values['head-capacity'],
    blocks: count('blocks', values.blocks),
    confirmBlocks: values['confirm-blocks'],
    speedup: values.speedup,
    prompts: values.prompts,
    e2el: values.e2el,
    keep: values.keep,
  };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stderr: string }>((done) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, _out, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
    });
  });
}

/** A repository of one commit: the example's config on a free port. */
async function repository(root: string, e2el: string): Promise<string> {
  const repo = join(root, 'repo');
  await mkdir(join(repo, '.github'), { recursive: true });
  const original = await readFile(EXAMPLE, 'utf8');
  const example = original.replace('e2el: { p99: 4s }', `e2el: { ${e2el} }`);
  if (example === original) throw new Error(`${EXAMPLE} no longer has e2el: { p99: 4s }`);
  await writeFile(
    join(repo, '.github/perf-gate.yml'),
    example.replaceAll('8000', `${await freePort()}`),
  );
  await writeFile(join(repo, '.gitignore'), 'out-*/\n');
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@e',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@e',
  };
  for (const args of [
    ['init', '--quiet', '--initial-branch=main'],
    ['add', '-A'],
    ['commit', '--quiet', '-m', 'code'],
  ]) {
    const result = await run('git', args, repo, env);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  }
  return repo;
}

interface GateRun {
  exit: number;
  verdict: string;
  capacity: string;
  change: number | undefined;
  ci: [number, number] | undefined;
  /** Blocks the capacity was judged on (its confirmation blocks included). */
  capacityBlocks: number | undefined;
  /** Each side's capacities, block by block. */
  blocks: { base: number[]; head: number[] }[];
  /** The plain paired t test on the same capacities rejected "no loss". */
  plainFails: boolean;
  failedOn: string[];
}

/** One-sided paired t test of head below base on log capacities paired run for run in a block. */
function plainPairedLoss(blocks: { base: number[]; head: number[] }[]): boolean {
  const differences = blocks.flatMap(({ base, head }) =>
    head.flatMap((h, i) => (base[i] === undefined ? [] : [Math.log(h) - Math.log(base[i]!)])),
  );
  const n = differences.length;
  if (n < 2) return false;
  const mean = differences.reduce((s, d) => s + d, 0) / n;
  const sd = Math.sqrt(differences.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1));
  if (sd === 0) return mean < 0;
  return mean / (sd / Math.sqrt(n)) < -studentTQuantile(1 - CAPACITY_LEVEL, n - 1);
}

async function gate(repo: string, index: number, options: Options): Promise<GateRun> {
  const out = join(repo, `out-${index}`);
  const env = {
    PATH: `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    NEURON_COMPILE_CACHE_URL: join(repo, '..', 'compile-cache'),
    SIM_SERVE_SPEEDUP: options.speedup,
    SIM_SERVE_PROMPTS: options.prompts,
    SIM_SERVE_STARTUP: '1',
    SIM_SEED: String(index),
  };
  const args = [
    options.cli,
    'ab',
    '--config',
    '.github/perf-gate.yml',
    '--quiet',
    '--blocks',
    String(options.blocks),
    '--confirm-blocks',
    options.confirmBlocks,
    '--base-env',
    'SIM_SERVE_CAPACITY=10',
    '--head-env',
    `SIM_SERVE_CAPACITY=${options.headCapacity}`,
    '--out',
    out,
  ];
  const result = await run(process.execPath, args, repo, env);
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as GateReport;
  const benchmark = report.benchmarks.find((b) => b.name.endsWith('/capacity'));
  const capacity = benchmark?.metrics.find((m) => m.id === 'capacity');
  const runs = report.ab?.runs?.[benchmark?.name ?? ''];
  const failedOn = report.benchmarks.flatMap((b) =>
    b.metrics.filter((m) => m.verdict === 'regression').map((m) => `${b.name}:${m.id}`),
  );
  if (!options.keep) await rm(out, { recursive: true, force: true });
  return {
    exit: result.code,
    verdict: report.verdict,
    capacity: capacity?.verdict ?? 'not measured',
    change: capacity?.change ?? undefined,
    ci: capacity?.ci ?? undefined,
    capacityBlocks: report.ab?.blocks?.[benchmark?.name ?? ''],
    blocks: runs?.blocks ?? [],
    plainFails: runs?.metric === 'capacity' ? plainPairedLoss(runs.blocks) : false,
    failedOn,
  };
}

async function main(): Promise<void> {
  const opts = options();
  const root = await mkdtemp(join(tmpdir(), 'perf-gate-bench-ab-capacity-'));
  const repo = await repository(root, opts.e2el);
  const runs: GateRun[] = [];
  for (let index = 1; index <= opts.runs; index += 1) {
    const started = Date.now();
    const gated = await gate(repo, index, opts);
    runs.push(gated);
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const change = gated.change === undefined ? '—' : pct(gated.change);
    const ci = gated.ci ? `, 95% CI ${pct(gated.ci[0])} to ${pct(gated.ci[1])}` : '';
    const failed =
      gated.failedOn.length > 0 ? `; failed on ${gated.failedOn.length} metric(s)` : '';
    const side = (name: 'base' | 'head') =>
      gated.blocks.map((block) => block[name].map((v) => v.toFixed(2)).join(' ')).join(' | ');
    console.log(
      `gate run ${index}: exit ${gated.exit}, capacity ${gated.capacity} (${change}${ci}; ${gated.capacityBlocks ?? '?'} blocks), ` +
        `plain paired t ${gated.plainFails ? 'fails' : 'passes'}${failed} (${Math.round((Date.now() - started) / 1000)} s)` +
        `\n  base ${side('base')}\n  head ${side('head')}`,
    );
  }
  if (!opts.keep) await rm(root, { recursive: true, force: true });
  const count = (test: (run: GateRun) => boolean) =>
    rateWithInterval(runs.filter(test).length, runs.length);
  console.log(
    `\nhead SIM_SERVE_CAPACITY ${opts.headCapacity} against 10, ${opts.blocks} block(s) (up to ${opts.confirmBlocks} more), speed-up ${opts.speedup}, ${opts.prompts} requests a run, e2el ${opts.e2el}\n`,
  );
  console.log(
    table(
      ['', 'failed'],
      [
        ['capacity (the gate)', count((r) => r.capacity === 'regression')],
        [
          `plain paired t, one-sided at ${(CAPACITY_LEVEL * 100).toFixed(3)}%`,
          count((r) => r.plainFails),
        ],
        ['the gate run (any metric, exit 1)', count((r) => r.exit === 1)],
      ],
    ),
  );
}

await main();

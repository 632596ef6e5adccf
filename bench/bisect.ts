// How well `bisect` finds a culprit: 64 commits after a good one, one of them (uniformly
// drawn) makes every run slower. Two parts:
//   1. many trials on drawn samples (the gate's parsers and the real search and decision
//      code, no processes), at several noise levels;
//   2. a few trials end to end: a real git repository of 64 commits whose culprit commit
//      changes the simulator's SIM_SLOWDOWN (SIM_KNOBS_FILE), bisected by the CLI through
//      real git worktrees and simulator processes.
//
//   npm run bench:bisect -- --trials 1000 --e2e-trials 3 --slowdown 0.05

import { execFileSync } from 'node:child_process';
import { delimiter, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { runCli } from '../src/cli/main.js';
import { BISECT_DEFAULTS } from '../src/cli/bisect-command.js';
import { createBisectRepo } from '../test/support/bisect-repo.js';
import { sampledTrial, type SampledTrial } from './bisect-sampled.js';
import { createRng } from './random.js';
import { percent, rateWithInterval, table } from './text.js';

const COMMITS = 64;
const STEP_BOUND = 8;
/**
 * Run CV of the drawn runs, --max-runs (the default, and a larger bound for noisy runs),
 * and the share of commits between the ends that cannot be built (skipped).
 */
const CASES: readonly { cv: number; maxRuns?: number; unbuildable?: number }[] = [
  { cv: 0.01 },
  { cv: 0.02 },
  { cv: 0.03 },
  { cv: 0.02, maxRuns: 20 },
  { cv: 0.03, maxRuns: 20 },
  { cv: 0.01, unbuildable: 0.1 },
];
const SIMULATOR_BIN = resolve('examples', 'simulated-inf2', 'bin');

interface Options {
  trials: number;
  e2eTrials: number;
  slowdown: number;
  seed: string;
}

async function main(): Promise<void> {
  const options = readOptions();
  const settings = {
    confidence: BISECT_DEFAULTS.confidence,
    endRuns: BISECT_DEFAULTS.endRuns,
    commitRuns: BISECT_DEFAULTS.commitRuns,
    maxRuns: BISECT_DEFAULTS.maxRuns,
  };
  console.log(
    `neuron-perf-gate bisect bench — ${COMMITS} commits, a ${percent(options.slowdown, 0)} culprit drawn uniformly, seed "${options.seed}"`,
  );
  console.log(
    `bisect defaults: ends ${settings.endRuns} runs each, a commit starts with ${settings.commitRuns} runs and gets one more while open, ` +
      `at most ${settings.maxRuns} (--max-runs), decisions at ${percent(settings.confidence, 0)} confidence; goal: ≤ ${STEP_BOUND} steps, ≥ 95% found`,
  );
  console.log('');
  console.log(
    `1. Drawn samples (offline-benchmark results, 10 fixed queries, 1% stalls ×1.5, run drift CV as listed; ${options.trials} trials per row)`,
  );
  const rows: string[][] = [];
  for (const { cv, maxRuns = settings.maxRuns, unbuildable = 0 } of CASES) {
    const started = performance.now();
    const trials: SampledTrial[] = [];
    let errors = 0;
    for (let t = 0; t < options.trials; t += 1) {
      try {
        trials.push(
          await sampledTrial(
            `${options.seed}/${cv}/${maxRuns}/${t}`,
            COMMITS,
            options.slowdown,
            cv,
            {
              ...settings,
              maxRuns,
            },
            unbuildable,
          ),
        );
      } catch {
        errors += 1; // the ends did not separate within --max-runs: no answer, counted as a miss
      }
    }
    const found = trials.filter((t) => t.found === t.culprit).length;
    const inRange = trials.filter((t) => t.inRange).length;
    const steps = trials.map((t) => t.steps);
    const mean = (f: (t: SampledTrial) => number) =>
      (trials.reduce((s, t) => s + f(t), 0) / Math.max(1, trials.length)).toFixed(1);
    rows.push([
      `run CV ${percent(cv, 0)}, --max-runs ${maxRuns}${unbuildable > 0 ? `, ${percent(unbuildable, 0)} unbuildable` : ''}`,
      rateWithInterval(found, options.trials),
      unbuildable > 0 ? `${percent(inRange / options.trials)} (${mean((t) => t.rangeSize)})` : '',
      String(Math.max(0, ...steps)),
      unbuildable > 0
        ? `${mean((t) => t.skipped)} (max ${Math.max(0, ...trials.map((t) => t.skipped))})`
        : '',
      (trials.reduce((s, t) => s + t.runs, 0) / Math.max(1, trials.length)).toFixed(1),
      percent(
        trials.reduce((s, t) => s + t.uncertainSteps, 0) /
          Math.max(
            1,
            steps.reduce((a, b) => a + b, 0),
          ),
      ),
      String(errors),
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
    ]);
  }
  console.log(
    table(
      [
        'noise',
        'culprit found',
        'in range (size)',
        'max steps',
        'skipped/bisect',
        'runs/bisect',
        'steps out of runs',
        'no answer',
        'time',
      ],
      rows,
    ),
  );
  console.log('');
  if (options.e2eTrials > 0) await endToEnd(options);
}

/** Real repositories, real worktrees, the simulator as the benchmark (default noise, CV ~1%). */
async function endToEnd(options: Options): Promise<void> {
  console.log(
    `2. End to end: git repository of ${COMMITS + 1} commits, culprit sets SIM_SLOWDOWN=${1 + options.slowdown} in its sim-knobs.env; ` +
      `\`neuron-perf-gate bisect\` in-process, the simulator's offline-benchmark as real processes (default noise)`,
  );
  const rows: string[][] = [];
  let found = 0;
  for (let t = 0; t < options.e2eTrials; t += 1) {
    const culprit = 1 + Math.floor(createRng(`${options.seed}/e2e/${t}`).next() * COMMITS);
    const repo = await createBisectRepo({
      commits: COMMITS,
      culprit,
      slowdown: 1 + options.slowdown,
    });
    const started = performance.now();
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      [
        'bisect',
        '--good',
        repo.shas[0]!,
        '--bad',
        repo.shas[COMMITS]!,
        '--config',
        'perf-gate.yml',
        '--json',
        '--quiet',
        '--out',
        join(repo.dir, '.bisect-out'),
      ],
      {
        cwd: repo.dir,
        env: {
          PATH: `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}`,
          HOME: process.env.HOME ?? '/tmp',
          SIM_SEED: String(1000 + t),
        },
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
      },
    );
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) {
      rows.push([
        String(t + 1),
        String(culprit),
        `exit ${code}`,
        '',
        '',
        '',
        `${seconds.toFixed(1)} s`,
      ]);
      console.error(stderr.split('\n').slice(-5).join('\n'));
      continue;
    }
    const report = JSON.parse(stdout);
    const foundIndex = repo.shas.indexOf(report.firstBad.sha);
    if (foundIndex === culprit) found += 1;
    const leftovers =
      execFileSync('git', ['worktree', 'list'], { cwd: repo.dir, encoding: 'utf8' })
        .trim()
        .split('\n').length - 1;
    rows.push([
      String(t + 1),
      String(culprit),
      String(foundIndex),
      String(report.steps.length),
      String(report.totalRuns),
      String(leftovers),
      `${seconds.toFixed(1)} s`,
    ]);
  }
  console.log(
    table(['trial', 'culprit', 'found', 'steps', 'runs', 'worktrees left', 'time'], rows),
  );
  console.log(`found ${found} of ${options.e2eTrials}`);
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      trials: { type: 'string', default: '1000' },
      'e2e-trials': { type: 'string', default: '3' },
      slowdown: { type: 'string', default: '0.05' },
      seed: { type: 'string', default: 'perf-gate' },
    },
  });
  const trials = Number(values.trials);
  const e2eTrials = Number(values['e2e-trials']);
  const slowdown = Number(values.slowdown);
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error(`--trials must be a positive integer, got ${values.trials}`);
  if (!Number.isInteger(e2eTrials) || e2eTrials < 0)
    throw new Error(`--e2e-trials must be a whole number, got ${values['e2e-trials']}`);
  if (!(slowdown > 0 && slowdown < 10))
    throw new Error(`--slowdown must be a fraction such as 0.05, got ${values.slowdown}`);
  return { trials, e2eTrials, slowdown, seed: values.seed };
}

await main();

// How long the history takes: read every record of a gate from the data branch and
// analyse it (series, change points, regressions), for 365 nights × 20 benchmarks × 10
// metrics with 3 runs each (7,300 records; latency metrics carry 3 runs × 200 per-request
// samples, as records of a serving benchmark do). Target: under 5 s on this machine.
//
// A bare repository in a temp folder plays `origin` (uploadpack.allowFilter on, as GitHub
// has it); the data branch is one commit written through `git fast-import` (data-branch.ts).
// The read uses a fresh store (a new job), as the action and `neuron-perf-gate history` do.
//
//   npm run bench:history [-- --data DIR] [--jobs N]
//
// --data keeps the origin and checkout in DIR and reuses them on the next call (writing
// the data branch takes longer than reading it); the read is always from a fresh job.
// --jobs: how many fresh jobs read and analyse it (3). The cpu column is this process's
// CPU time while reading and while analysing, and its git children's (the server side of
// the local fetch included; USER_HZ 100 assumed): the figure a busy machine moves least.

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { GitBranchStore } from '../src/baseline/git/git-branch-store.js';
import { Git } from '../src/baseline/git/git.js';
import { type BaselineRecord } from '../src/baseline/record.js';
import { createRecord } from '../src/baseline/record-create.js';
import { analyzeHistory } from '../src/history/analyze.js';
import { readHistory } from '../src/history/read.js';
import type { Metric } from '../src/model.js';
import { makeBenchRepos, writeDataBranch } from './data-branch.js';
import { createRng } from './random.js';
import { table } from './text.js';
import { meanOf } from '../src/stats/mean.js';
import { cleanRuns } from './synthetic.js';

const NIGHTS = 365;
const BENCHMARKS = 20;
const RUNS = 3;
const SAMPLES = 200;
const GATE = 'nightly';
const TARGET_S = 5;

const rng = createRng('history');

function metricsOf(night: number, benchmark: number): Metric[] {
  // A 6% slowdown of benchmark 3 from night 300: something for the analysis to find.
  const slow = benchmark === 3 && night >= 300 ? 1.06 : 1;
  const runs = Array.from({ length: RUNS }, () => {
    const drift = Math.exp(0.02 * rng.normal()) * slow;
    return Array.from({ length: SAMPLES }, () => 300 * drift * Math.exp(0.1 * rng.normal()));
  });
  const pct = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((p / 100) * (sorted.length - 1))]!;
  };
  const latency = (id: string, p: number): Metric => ({
    id,
    unit: 'ms',
    direction: 'lower-is-better',
    values: runs.map((run) => pct(run, p)),
    samples: runs,
    percentile: p,
  });
  const mean = runs.map((run) => meanOf(run));
  const plain = (
    id: string,
    unit: string,
    direction: Metric['direction'],
    f: (m: number) => number,
  ): Metric => ({
    id,
    unit,
    direction,
    values: mean.map(f),
  });
  return [
    plain('throughput', 'req/s', 'higher-is-better', (m) => 1000 / m),
    latency('latency_p50', 50),
    latency('latency_p95', 95),
    latency('latency_p99', 99),
    plain('ttft_p50', 'ms', 'lower-is-better', (m) => m / 10),
    plain('ttft_p99', 'ms', 'lower-is-better', (m) => m / 7),
    plain('tpot_p50', 'ms', 'lower-is-better', (m) => m / 30),
    plain('tokens_per_second', 'tok/s', 'higher-is-better', (m) => 64_000 / m),
    plain('mfu', '%', 'higher-is-better', (m) => 700 / m),
    plain('mbu', '%', 'higher-is-better', (m) => 9000 / m),
  ];
}

/** Every night's records, night by night. */
function* nightlyRecords(): Generator<BaselineRecord> {
  for (let night = 0; night < NIGHTS; night += 1) {
    for (let b = 0; b < BENCHMARKS; b += 1) {
      yield createRecord({
        gateKey: GATE,
        result: {
          name: `bench-${String(b).padStart(2, '0')}`,
          format: 'vllm-bench-serve',
          metrics: metricsOf(night, b),
          runs: cleanRuns(RUNS),
          environment: {
            instanceType: 'inf2.48xlarge',
            neuronCores: 24,
            neuronSdkVersion: '2.26.0',
            configHash: 'c0ffee1',
          },
        },
        commit: (0x100000 + night).toString(16).padEnd(40, 'a'),
        branch: 'main',
        event: 'schedule',
        runId: `${5000 + night}-1`,
        verdict: 'pass',
        createdAt: new Date(Date.UTC(2025, 0, 1, 3) + night * 86_400_000),
      });
    }
  }
}

/** The origin (a bare repository holding the data branch) and a checkout whose origin it is. */
async function prepare(root: string): Promise<{ checkout: string }> {
  const origin = join(root, 'origin.git');
  const checkout = join(root, 'checkout');
  const git = new Git({ cwd: root });
  const ready = await git
    .in(origin)
    .tryRun(['rev-parse', '--verify', '--quiet', 'refs/heads/perf-gate-data']);
  if (ready.ok) {
    console.log(`neuron-perf-gate history — reusing the data branch in ${origin}\n`);
    return { checkout };
  }
  await rm(origin, { recursive: true, force: true });
  await rm(checkout, { recursive: true, force: true });
  await makeBenchRepos(root);
  const made = performance.now();
  const { bytes, count } = await writeDataBranch(origin, nightlyRecords(), NIGHTS * BENCHMARKS);
  console.log(
    `neuron-perf-gate history — ${count} records (${NIGHTS} nights × ${BENCHMARKS} benchmarks × 10 metrics × ${RUNS} runs), ${(bytes / count / 1024).toFixed(1)} KB each, written in ${((performance.now() - made) / 1000).toFixed(1)} s\n`,
  );
  return { checkout };
}

/**
 * CPU seconds of this process and of the children it has waited for (git), from
 * /proc/self/stat: on a machine other jobs share, the wall clock says more about them.
 */
function cpuSeconds(): { node: number; git: number } {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime stime cutime cstime: fields 14–17 of proc(5), counted from the state (3rd).
    const ticks = (i: number) => Number(fields[i]) + Number(fields[i + 1]);
    return { node: ticks(11) / 100, git: ticks(13) / 100 };
  } catch {
    return { node: Number.NaN, git: Number.NaN };
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { data: { type: 'string' }, jobs: { type: 'string', default: '3' } },
  });
  const count = Number(values.jobs);
  if (values.data) await mkdir(values.data, { recursive: true });
  const root = values.data ?? (await mkdtemp(join(tmpdir(), 'perf-gate-bench-history-')));
  const jobs = await mkdtemp(join(tmpdir(), 'perf-gate-bench-history-jobs-'));
  try {
    const { checkout } = await prepare(root);
    const rows: string[][] = [];
    let total = 0;
    for (let attempt = 1; attempt <= count; attempt += 1) {
      const store = new GitBranchStore({
        repoDir: checkout,
        workDir: await mkdtemp(join(jobs, 'job-')),
      });
      const c0 = cpuSeconds();
      const t0 = performance.now();
      const history = await readHistory(store, GATE);
      const t1 = performance.now();
      const cRead = cpuSeconds();
      const analysis = analyzeHistory(history);
      const t2 = performance.now();
      const c1 = cpuSeconds();
      const cpu = {
        read: cRead.node - c0.node,
        analyse: c1.node - cRead.node,
        git: c1.git - c0.git,
      };
      if (history.warnings.length > 0) throw new Error(history.warnings.join('\n'));
      const cps = analysis.analyses.reduce((s, a) => s + a.changePoints.length, 0);
      total = Math.max(total, (t2 - t0) / 1000);
      rows.push([
        `fresh job ${attempt}`,
        String(history.records),
        String(history.series.length),
        `${((t1 - t0) / 1000).toFixed(2)} s`,
        `${((t2 - t1) / 1000).toFixed(2)} s`,
        `${((t2 - t0) / 1000).toFixed(2)} s`,
        Number.isNaN(cpu.read)
          ? 'n/a'
          : `${(cpu.read + cpu.analyse + cpu.git).toFixed(2)} s (${cpu.read.toFixed(2)} + ${cpu.analyse.toFixed(2)} + ${cpu.git.toFixed(2)})`,
        `${cps} / ${analysis.regressions.length}`,
      ]);
    }
    console.log(
      table(
        [
          'run',
          'records',
          'series',
          'read',
          'analyse',
          'total',
          'cpu (node read + analyse + git)',
          'change points / regressions',
        ],
        rows,
      ),
    );
    console.log(
      `\n${total < TARGET_S ? 'OK  ' : 'MISS'} read + analyse, slowest of ${count}: ${total.toFixed(2)} s (target < ${TARGET_S} s)`,
    );
  } finally {
    await rm(jobs, { recursive: true, force: true });
    if (!values.data) await rm(root, { recursive: true, force: true });
  }
}

await main();

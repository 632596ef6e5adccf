// The on-call's history (issue 56): nightly records of one gate on two environments, and a
// real git repository whose commits the nights measured. Each night lands a few commits
// and measures its head; on the `regressionAt` night the first of that night's commits
// (two before its head) slows some benchmarks on one environment only. The page must
// name that environment and the range from the night before's head to that night's head.
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../../bench/random.js';
import type { BaselineRecord } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import type { Environment, Metric } from '../../src/model.js';

export interface OncallShape {
  nights: number;
  /** Benchmarks per environment; each gives 4 series (throughput, latency p50/p95/p99). */
  benchmarks: number;
  /** Commits each night lands; the night measures the last (its head). */
  commitsPerNight: number;
  /** The night whose first commit slows `slowBenchmarks` on `slowEnvironment`. */
  regressionAt: number;
  /** How many benchmarks (the first ones) the culprit slows. */
  slowBenchmarks: number;
  /** The speed from the culprit on (0.85: throughput −15%, latencies +17.6%). */
  factor: number;
  /** The first night's time (ms since the epoch); 2026-01-01 03:00 UTC unless given. */
  start?: number;
}

export const ENVIRONMENTS: Environment[] = [
  { instanceType: 'inf2.xlarge', neuronCores: 2, neuronSdkVersion: '2.26.0' },
  { instanceType: 'inf2.8xlarge', neuronCores: 2, neuronSdkVersion: '2.26.0' },
];
/** The environment the regression is planted on. */
export const SLOW_ENVIRONMENT = 1;
/** How the page names each environment (history/series.ts environmentKey). */
export const ENVIRONMENT_KEYS = ['inf2.xlarge/2 cores', 'inf2.8xlarge/2 cores'];
export const CULPRIT_SUBJECT = 'Batch prefill by default';
export const HEAD_SUBJECT = 'ci: pin actions/checkout';

const MODELS = ['llama-3.1-8b', 'qwen3-8b', 'mistral-7b', 'qwen3-reranker'];
const START = Date.UTC(2026, 0, 1, 3, 0, 0);
const DAY = 86_400_000;

export function benchmarkOf(index: number): string {
  return `${MODELS[index % MODELS.length]}-${Math.floor(index / MODELS.length)}`;
}

export interface NightlyRepo {
  dir: string;
  /** Every commit, oldest first. */
  commits: string[];
  /** The head each night measured. */
  heads: string[];
}

/** A git repository of `nights × commitsPerNight` commits, written by one `git fast-import`. */
export async function createNightlyRepo(shape: OncallShape): Promise<NightlyRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'perf-gate-oncall-repo-'));
  const git = (args: string[], input?: string) =>
    execFileSync('git', args, { cwd: dir, input, encoding: 'utf8', env: gitEnv() });
  git(['init', '--quiet', '--initial-branch=main']);
  const total = shape.nights * shape.commitsPerNight;
  const culprit = shape.regressionAt * shape.commitsPerNight;
  let stream = '';
  for (let i = 0; i < total; i += 1) {
    const message =
      i === culprit
        ? CULPRIT_SUBJECT
        : i === culprit + shape.commitsPerNight - 1
          ? HEAD_SUBJECT
          : `change ${i}`;
    const file = `# revision ${i}\n`;
    stream +=
      `commit refs/heads/main\nmark :${i + 1}\n` +
      `committer Test <test@example.com> ${commitTime(shape, i)} +0000\n` +
      `data ${Buffer.byteLength(message)}\n${message}\n` +
      (i > 0 ? `from :${i}\n` : '') +
      `M 100644 inline src/model.py\ndata ${Buffer.byteLength(file)}\n${file}\n\n`;
  }
  git(['fast-import', '--quiet'], stream);
  git(['checkout', '--quiet', '--force', 'main']);
  const commits = git(['rev-list', '--reverse', 'main']).trim().split('\n');
  const heads = Array.from(
    { length: shape.nights },
    (_, night) => commits[(night + 1) * shape.commitsPerNight - 1]!,
  );
  return { dir, commits, heads };
}

/** Every night's records: one per benchmark and environment, 3 clean runs each. */
export function oncallRecords(shape: OncallShape, heads: readonly string[]): BaselineRecord[] {
  const records: BaselineRecord[] = [];
  for (let night = 0; night < shape.nights; night += 1) {
    ENVIRONMENTS.forEach((environment, e) => {
      const rng = createRng(`oncall:${night}:${e}`);
      for (let b = 0; b < shape.benchmarks; b += 1) {
        const slow =
          e === SLOW_ENVIRONMENT && b < shape.slowBenchmarks && night >= shape.regressionAt;
        const speed = (1 + b * 0.05) * (e === 0 ? 1 : 2.6) * (slow ? shape.factor : 1);
        const runs = [0, 1, 2].map(() => speed * (1 + rng.normal() * 0.01));
        records.push(
          createRecord({
            gateKey: 'nightly',
            commit: heads[night]!,
            branch: 'main',
            event: 'schedule',
            // One workflow per environment: their runs are numbered apart.
            runId: String((e === 0 ? 8_000_000_000 : 9_000_000_000) + night),
            verdict: 'pass',
            createdAt: new Date(startOf(shape) + night * DAY + e * 20 * 60_000),
            result: {
              name: benchmarkOf(b),
              format: 'vllm-bench-serve',
              runs: [],
              environment,
              metrics: [
                {
                  id: 'throughput',
                  unit: 'requests/s',
                  direction: 'higher-is-better',
                  values: runs.map((r) => 3.2 * r),
                },
                latency(
                  'latency_p50',
                  50,
                  runs.map((r) => 300 / r),
                ),
                latency(
                  'latency_p95',
                  95,
                  runs.map((r) => 520 / r),
                ),
                latency(
                  'latency_p99',
                  99,
                  runs.map((r) => 610 / r),
                ),
              ],
            },
          }),
        );
      }
    });
  }
  return records;
}

/** The day before its night, ten minutes apart: each night measures what landed since the last. */
function commitTime(shape: OncallShape, i: number): number {
  const night = Math.floor(i / shape.commitsPerNight);
  return (startOf(shape) - DAY + night * DAY) / 1000 + (i % shape.commitsPerNight) * 600;
}

/** The night's date (YYYY-MM-DD), as the page writes it. */
export function nightDate(shape: OncallShape, night: number): string {
  return new Date(startOf(shape) + night * DAY).toISOString().slice(0, 10);
}

function startOf(shape: OncallShape): number {
  return shape.start ?? START;
}

function latency(id: string, percentile: number, values: number[]): Metric {
  return { id, unit: 'ms', direction: 'lower-is-better', values, percentile };
}

function gitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete env[name];
  return env;
}

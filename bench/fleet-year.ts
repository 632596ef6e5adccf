// A year of a fleet in each store, then the reads a job and a person make of it:
// `--gates` runners (50; each a matrix job, so a gate of its own) × `--benchmarks` (100,
// 5 series each) × `--nights` (365): 50 × 500 × 365 ≈ 9.1M points in 1.8M records.
//
//   npm run bench:fleet-year [-- --gates 50] [--benchmarks 100] [--nights 365]
//                            [--requests 10] [--reads 15] [--dashboards 3]
//                            [--stores s3,postgres]
//
// Loaded through the store's own appendRecords, one night at a time, every gate at once;
// the S3 store then compacts the finished months, as the nightly does. Each read is a new
// job's: a fresh store instance. Targets (issue 52): one series' history < 200 ms, a
// gate's baseline < 1 s (medians); the dashboard of one gate builds from the store.

import { parseArgs } from 'node:util';
import { DEFAULTS } from '../src/config/defaults.js';
import type { RecordBackend } from '../src/baseline/record-backend.js';
import { RecordBaselineStore } from '../src/baseline/record-store.js';
import { PostgresRecordStore } from '../src/baseline/postgres/postgres-record-store.js';
import { S3RecordStore } from '../src/baseline/s3/s3-record-store.js';
import { dashboardInput } from '../src/dashboard/build.js';
import { renderDashboard } from '../src/dashboard/render.js';
import { startPostgres } from '../test/support/postgres.js';
import { startS3Server } from '../test/support/s3-server.js';
import { benchmarkName, recordsOfNight, type HistoryShape } from './history-sim.js';
import { createRng } from './random.js';
import { table } from './text.js';

interface Shape {
  gates: number;
  benchmarks: number;
  nights: number;
  requests: number;
  reads: number;
  /** Of the reads, how many also build the gate's dashboard (the slowest read by far). */
  dashboards: number;
  stores: string[];
}

function shapeFromArgs(): Shape {
  const { values } = parseArgs({
    options: {
      gates: { type: 'string', default: '50' },
      benchmarks: { type: 'string', default: '100' },
      nights: { type: 'string', default: '365' },
      requests: { type: 'string', default: '10' },
      reads: { type: 'string', default: '15' },
      dashboards: { type: 'string', default: '3' },
      stores: { type: 'string', default: 's3,postgres' },
    },
  });
  const whole = (name: keyof typeof values) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
    return n;
  };
  return {
    gates: whole('gates'),
    benchmarks: whole('benchmarks'),
    nights: whole('nights'),
    requests: whole('requests'),
    reads: whole('reads'),
    dashboards: whole('dashboards'),
    stores: values.stores.split(','),
  };
}

const gateOf = (g: number) => `runner-${String(g).padStart(2, '0')}`;
/** The year ends last night, as a fleet's does: only the current month is not compacted. */
const lastNight = Date.UTC(
  new Date().getUTCFullYear(),
  new Date().getUTCMonth(),
  new Date().getUTCDate() - 1,
  3,
);
const historyShape = (shape: Shape, g: number): HistoryShape => ({
  start: lastNight - (shape.nights - 1) * 86_400_000,
  nights: shape.nights,
  benchmarks: shape.benchmarks,
  requests: shape.requests,
  gateKey: gateOf(g),
  seed: gateOf(g),
});

/** A store under test: how a new job opens it, and what to do once it is loaded. */
interface YearTarget {
  label: string;
  open(): RecordBackend;
  /** After loading: the S3 store compacts finished months, as the nightly does. */
  settle(store: RecordBackend, gates: string[]): Promise<string>;
  close(): Promise<void>;
}

async function s3Year(): Promise<YearTarget> {
  const server = await startS3Server({ keepLog: false });
  process.env.AWS_ACCESS_KEY_ID ??= 'YEARKEY';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'year-secret';
  const open = () =>
    new S3RecordStore({
      bucket: 'test-bucket',
      prefix: 'year',
      endpoint: server.url,
      region: 'us-east-1',
      forcePathStyle: true,
    });
  return {
    label: 'S3 (test server)',
    open,
    async settle(store, gates) {
      let months = 0;
      for (const gate of gates)
        months += (await (store as S3RecordStore).compact(gate)).compacted.length;
      return `${months} gate-months compacted, ${server.requestCount} requests in all`;
    },
    close: () => server.close(),
  };
}

async function postgresYear(): Promise<YearTarget> {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase();
  return {
    label: 'PostgreSQL',
    open: () => new PostgresRecordStore({ connectionString: url }),
    async settle() {
      const size = await cluster.query<{ size: string }>(
        new URL(url).pathname.slice(1),
        'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
      );
      return `database ${size.rows[0]?.size}`;
    },
    close: async () => cluster.remove(),
  };
}

/** One night of every gate, appended at once; the records' count. */
async function load(store: RecordBackend, shape: Shape): Promise<number> {
  let count = 0;
  for (let night = 0; night < shape.nights; night += 1) {
    const nights = Array.from({ length: shape.gates }, (_, g) =>
      recordsOfNight(historyShape(shape, g), night),
    );
    await Promise.all(
      nights.map((records) => store.appendRecords(records, { keep: Number.MAX_SAFE_INTEGER })),
    );
    count += nights.reduce((sum, records) => sum + records.length, 0);
    if (night % 30 === 29) console.error(`  night ${night + 1}: ${count} records`);
  }
  return count;
}

/** Median and a distribution-free 95% interval (order statistics of the binomial). */
function medianWithInterval(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const half = 0.98 * Math.sqrt(n);
  const low = sorted[Math.max(0, Math.floor(n / 2 - half))]!;
  const high = sorted[Math.min(n - 1, Math.ceil(n / 2 + half))]!;
  const mid = sorted[Math.floor((n - 1) / 2)]!;
  return `${mid.toFixed(0)} ms (${low.toFixed(0)}–${high.toFixed(0)})`;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** The three reads, each from a new store instance: `reads` times, random gate and benchmark. */
async function measureReads(target: YearTarget, shape: Shape): Promise<string[][]> {
  const rng = createRng('fleet-year');
  const pick = (n: number) => Math.floor(rng.next() * n);
  const series: number[] = [];
  const baseline: number[] = [];
  const added: number[] = [];
  const dashboard: number[] = [];
  let points = 0;
  let chosen = 0;
  let pageBytes = 0;
  for (let read = 0; read < shape.reads; read += 1) {
    const gate = gateOf(pick(shape.gates));
    const benchmark = benchmarkName(historyShape(shape, 0), pick(shape.benchmarks));
    const store = target.open();
    try {
      const one = await timed(() => store.readStoredRecords(gate, benchmark));
      series.push(one.ms);
      points = one.value.records.length * 5;
      const gateBaseline = await timed(() => chooseEveryBenchmark(store, gate, shape));
      baseline.push(gateBaseline.ms - gateBaseline.value.addedMs);
      added.push(gateBaseline.value.addedMs);
      chosen = gateBaseline.value.chosen;
      if (read >= shape.dashboards) continue;
      const page = await timed(async () => {
        const read = await store.readStoredRecords(gate);
        return renderDashboard(
          dashboardInput({ records: read.records, source: target.label, defaultBranch: 'main' }),
        );
      });
      dashboard.push(page.ms);
      pageBytes = page.value.length;
    } finally {
      await store.close?.();
    }
  }
  return [
    [
      target.label,
      `one series' history (${points} points)`,
      medianWithInterval(series),
      '< 200 ms',
    ],
    [
      target.label,
      `a gate's baseline (${chosen} of ${shape.benchmarks} benchmarks chosen)`,
      medianWithInterval(baseline),
      '< 1000 ms',
    ],
    [
      target.label,
      'a benchmark added tonight: its baseline looked for (none stored)',
      medianWithInterval(added),
      '—',
    ],
    [
      target.label,
      `one gate's dashboard (${(pageBytes / 1e6).toFixed(1)} MB page)`,
      medianWithInterval(dashboard),
      '—',
    ],
  ];
}

/**
 * What a job does before it runs: load the gate's baseline and choose it for every
 * benchmark; then for one added tonight, which the store must look for alone (timed apart).
 */
async function chooseEveryBenchmark(
  store: RecordBackend,
  gate: string,
  shape: Shape,
): Promise<{ chosen: number; addedMs: number }> {
  const baseline = await new RecordBaselineStore(store, {
    gateKey: gate,
    window: DEFAULTS.baselineWindow,
    acceptAfter: DEFAULTS.acceptAfter,
    defaultBranch: 'main',
    match: 'strict',
    label: 'year',
  }).load();
  const environment = recordsOfNight(historyShape(shape, 0), shape.nights - 1)[0]!.environment;
  let chosen = 0;
  for (let b = 0; b < shape.benchmarks; b += 1) {
    const choice = await baseline!.choose!(benchmarkName(historyShape(shape, 0), b), environment);
    if (choice.result) chosen += 1;
  }
  const added = await timed(() => baseline!.choose!('added-tonight', environment));
  if (added.value.result) throw new Error('a benchmark never stored has a baseline');
  return { chosen, addedMs: added.ms };
}

async function main(): Promise<void> {
  const shape = shapeFromArgs();
  const rows: string[][] = [];
  const gates = Array.from({ length: shape.gates }, (_, g) => gateOf(g));
  for (const kind of shape.stores) {
    const target =
      kind === 's3' ? await s3Year() : kind === 'postgres' ? await postgresYear() : undefined;
    if (!target) throw new Error(`--stores: '${kind}' is not one of s3, postgres`);
    try {
      console.error(`${target.label}: loading…`);
      const loader = target.open();
      const loaded = await timed(() => load(loader, shape));
      const settled = await timed(() => target.settle(loader, gates));
      await loader.close?.();
      console.error(
        `${target.label}: ${loaded.value} records (${loaded.value * 5} points) loaded in ${(loaded.ms / 1000).toFixed(0)} s; ${settled.value} (${(settled.ms / 1000).toFixed(0)} s)`,
      );
      rows.push(...(await measureReads(target, shape)));
    } finally {
      await target.close();
    }
  }
  console.log(
    `\n${shape.gates} gates × ${shape.benchmarks} benchmarks × 5 series × ${shape.nights} nights = ${(shape.gates * shape.benchmarks * 5 * shape.nights).toLocaleString('en')} points; ${shape.reads} reads each, a new store each (median, 95% interval)\n`,
  );
  console.log(table(['store', 'read', 'median', 'target'], rows));
}

void main();

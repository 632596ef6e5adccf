// A fleet writing at once: `--writers` processes (500), each a runner storing one night of
// `--benchmarks` × 5 series (100 × 5 = 500), all released together, against the S3 test
// server, a real PostgreSQL, and the git data branch beside them. Then a fresh reader
// counts what is stored: lost (a record of a writer told "stored" missing), duplicated (one
// stored twice), failed yet stored (a writer told "failed" whose records are there).
//
//   npm run bench:fleet [-- --writers 500] [--benchmarks 100] [--stores s3,postgres,git]
//                       [--git-writers 500] [--requests 10]
//
// Each writer is its own node process with its own connection, as a runner's gate is. A
// writer never retries by hand: the store's own retries (lost races, 503s) are all there
// is; "attempts" sums them. "requests" is what the store served during the writes: S3
// requests received, PostgreSQL transactions committed or rolled back.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openRecordBackend, type StoreSpec } from '../src/baseline/open-backend.js';
import type { WriterOutcome, WriterTask } from './fleet-writer.js';
import { table } from './text.js';
import { startFleetTarget, type FleetTarget } from './fleet-targets.js';

const GATE = 'fleet-nightly';

interface Options {
  writers: number;
  gitWriters: number;
  benchmarks: number;
  requests: number;
  stores: string[];
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      writers: { type: 'string', default: '500' },
      'git-writers': { type: 'string' },
      benchmarks: { type: 'string', default: '100' },
      requests: { type: 'string', default: '10' },
      stores: { type: 'string', default: 's3,postgres,git' },
    },
  });
  const whole = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${name} must be a whole number ≥ 1, got ${text}`);
    return n;
  };
  const writers = whole('writers', values.writers);
  return {
    writers,
    gitWriters: whole('git-writers', values['git-writers'] ?? String(writers)),
    benchmarks: whole('benchmarks', values.benchmarks),
    requests: whole('requests', values.requests),
    stores: values.stores.split(',').map((s) => s.trim()),
  };
}

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  outcome: Promise<WriterOutcome>;
}

function startWriter(task: WriterTask, env: NodeJS.ProcessEnv): Writer {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fleet-writer.js')], {
    env: { ...process.env, ...env, FLEET_TASK: JSON.stringify(task), NODE_NO_WARNINGS: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  let readyDone!: () => void;
  const ready = new Promise<void>((done) => (readyDone = done));
  const outcome = new Promise<WriterOutcome>((done, fail) => {
    lines.on('line', (line) => {
      if (line === 'ready') readyDone();
      else if (line.startsWith('{')) done(JSON.parse(line) as WriterOutcome);
    });
    // Its output read to the end, not its exit: the last line may still be in the pipe.
    lines.on('close', () => fail(new Error(`writer ${task.writer} ended without a result`)));
  });
  lines.on('close', () => readyDone());
  return { child, ready, outcome };
}

/** Starts writers a few at a time (each loads node and its store), then releases them together. */
async function runFleet(target: FleetTarget, writers: number, opts: Options) {
  const fleet: Writer[] = [];
  for (let writer = 0; writer < writers; writer += 1) {
    const task: WriterTask = {
      store: target.spec(writer),
      writer,
      gateKey: GATE,
      benchmarks: opts.benchmarks,
      requests: opts.requests,
    };
    fleet.push(startWriter(task, target.env));
    if (writer % 8 === 7) await Promise.all(fleet.slice(-8).map((w) => w.ready));
  }
  await Promise.all(fleet.map((w) => w.ready));
  const requestsBefore = await target.requests();
  const started = performance.now();
  for (const w of fleet) w.child.stdin!.end('go\n');
  const outcomes = await Promise.all(
    fleet.map((w) => w.outcome.catch((error: Error) => failedOutcome(error))),
  );
  const wallS = (performance.now() - started) / 1000;
  const requests = (await target.requests()) - requestsBefore;
  return { outcomes, wallS, requests };
}

function failedOutcome(error: Error): WriterOutcome {
  return { writer: -1, ok: false, added: 0, attempts: 0, ms: 0, error: error.message };
}

/**
 * What a fresh reader finds. Lost: a record of a writer told "stored" that is not there.
 * Duplicated: a record there twice. Failed yet stored: a writer told "failed" whose records
 * are there (a failed write must have stored nothing, so a re-run is the whole remedy).
 */
async function countStored(spec: StoreSpec, outcomes: WriterOutcome[], benchmarks: number) {
  const reader = await openRecordBackend(spec);
  try {
    const read = await reader.readStoredRecords(GATE);
    const seen = new Map<string, number>();
    const perWriter = new Map<string, number>();
    for (const { record } of read.records) {
      const key = `${record.runId}\u0000${record.benchmark}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (seen.get(key) === 1) perWriter.set(record.runId, (perWriter.get(record.runId) ?? 0) + 1);
    }
    const storedOf = (o: WriterOutcome) => perWriter.get(`fleet-${o.writer}`) ?? 0;
    const okWriters = outcomes.filter((o) => o.ok);
    const lost = okWriters.reduce((sum, o) => sum + benchmarks - storedOf(o), 0);
    const failedYetStored = outcomes.filter((o) => !o.ok && storedOf(o) > 0).length;
    const duplicated = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
    return { found: read.records.length, lost, duplicated, failedYetStored };
  } finally {
    await reader.close?.();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function main(): Promise<void> {
  const opts = options();
  const root = await mkdtemp(join(tmpdir(), 'perf-gate-fleet-'));
  const rows: string[][] = [];
  const failures: string[] = [];
  try {
    for (const kind of opts.stores) {
      const writers = kind === 'git' ? opts.gitWriters : opts.writers;
      const target = await startFleetTarget(kind, root, writers);
      // The reader that counts opens the store as the writers do.
      Object.assign(process.env, target.env);
      try {
        console.error(`${target.label}: ${writers} writers…`);
        const run = await runFleet(target, writers, opts);
        const stored = await countStored(target.spec(writers), run.outcomes, opts.benchmarks);
        const ok = run.outcomes.filter((o) => o.ok);
        const retries = ok.reduce((sum, o) => sum + o.attempts - 1, 0);
        failures.push(
          ...run.outcomes
            .filter((o) => !o.ok)
            .slice(0, 3)
            .map((o) => `${target.label}: ${o.error}`),
        );
        rows.push([
          target.label,
          String(writers),
          String(ok.length),
          String(writers - ok.length),
          String(stored.lost),
          String(stored.duplicated),
          String(stored.failedYetStored),
          run.wallS.toFixed(1),
          (median(run.outcomes.map((o) => o.ms)) / 1000).toFixed(2),
          String(retries),
          Number.isNaN(run.requests) ? '—' : String(run.requests),
        ]);
      } finally {
        await target.close();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  console.log(
    `\n${opts.benchmarks * 5} series (${opts.benchmarks} records) per writer, one night, all writers released at once\n`,
  );
  console.log(
    table(
      [
        'store',
        'writers',
        'stored',
        'failed',
        'lost',
        'duplicated',
        'failed yet stored',
        'wall s',
        'median writer s',
        'store retries',
        'requests',
      ],
      rows,
    ),
  );
  for (const failure of failures) console.log(`  ${failure}`);
}

void main();

// How fast the git-branch baseline store reads one benchmark's records from a data branch
// holding 10,000 records, and how big one record is with 3 runs of 100,000 samples.
//
// A bare repository in a temp folder plays `origin` (with uploadpack.allowFilter on, as
// GitHub has it); the data branch is written in one commit through `git fast-import`
// (data-branch.ts): 20 benchmarks × 500 records (the default prune limit), each with 3 runs
// of per-request latencies already at the 2,000-sample budget. Each read uses a fresh store (a new job).
//
//   npm run bench:baseline -- --seed perf-gate

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { GitBranchStore } from '../src/baseline/git/git-branch-store.js';
import { Git } from '../src/baseline/git/git.js';
import { type BaselineRecord } from '../src/baseline/record.js';
import { createRecord } from '../src/baseline/record-create.js';
import { serializeRecord } from '../src/baseline/record-text.js';
import { MAX_STORED_SAMPLES } from '../src/baseline/reduce-samples.js';
import { RecordBaselineStore, recordsToRead } from '../src/baseline/record-store.js';
import { DEFAULTS } from '../src/config/defaults.js';
import type { BenchmarkResult, Metric } from '../src/model.js';
import { makeBenchRepos, writeDataBranch } from './data-branch.js';
import { createRng, type Rng } from './random.js';
import { numpyPercentile } from './synthetic.js';
import { table } from './text.js';
import { meanOf } from '../src/stats/mean.js';

const BENCHMARKS = 20;
const RECORDS_PER_BENCHMARK = 500;
const GATE = 'default';
const READ_TARGET_S = 2;
const SIZE_TARGET_BYTES = 64 * 1024;
const MEDIAN_MS = 307;
const SIGMA = 0.156;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seed: { type: 'string', default: 'perf-gate' }, keep: { type: 'boolean' } },
  });
  const rng = createRng(values.seed);
  console.log(
    `neuron-perf-gate baseline store — ${BENCHMARKS * RECORDS_PER_BENCHMARK} records ` +
      `(${BENCHMARKS} benchmarks × ${RECORDS_PER_BENCHMARK}) on a git data branch, seed "${values.seed}"`,
  );
  const lines: string[] = [];

  // ── one record with 3 runs of 100,000 samples ─────────────────────────────────────
  const big = bigRecordFigures(rng);
  console.log(
    `\none record, 3 runs × 100,000 per-request latencies (lognormal, median ${MEDIAN_MS} ms, ` +
      `3% of requests 1.6× slower), reduced to ≤ ${MAX_STORED_SAMPLES} samples per metric:`,
  );
  console.log(
    table(
      ['figure', 'original', 'stored', 'change'],
      big.percentiles.map(({ p, original, stored }) => [
        `pooled P${p} (ms)`,
        original.toFixed(3),
        stored.toFixed(3),
        `${(100 * (stored / original - 1)).toFixed(4)}%`,
      ]),
    ),
  );
  console.log(`reduce + serialize: ${big.ms.toFixed(0)} ms`);
  lines.push(
    verdict(
      big.bytes < SIZE_TARGET_BYTES,
      `one record with 3 runs × 100,000 samples: ${kb(big.bytes)} (target < ${kb(SIZE_TARGET_BYTES)})`,
    ),
    verdict(
      big.worstChange < 5e-4,
      `pooled P50/P95/P99 of the stored samples vs all samples: worst ${(100 * big.worstChange).toFixed(4)}% (target < 0.05%)`,
    ),
  );
  lines.push(
    verdict(
      big.serveBytes < SIZE_TARGET_BYTES,
      `a vllm bench serve record with 4 such sample sets (ttft, tpot, itl, e2el): ${kb(big.serveBytes)} (target < ${kb(SIZE_TARGET_BYTES)})`,
    ),
  );

  // ── a data branch with 10,000 records ─────────────────────────────────────────────
  const root = await mkdtemp(join(tmpdir(), 'perf-gate-bench-baseline-'));
  try {
    const { origin, checkout } = await makeBenchRepos(root);
    const plainOrigin = join(root, 'origin-without-filter.git');
    const started = performance.now();
    const { bytes, count } = await writeDataBranch(
      origin,
      allRecords(rng),
      BENCHMARKS * RECORDS_PER_BENCHMARK,
    );
    await new Git({ cwd: root }).run([
      'clone',
      '--quiet',
      '--bare',
      '--no-local',
      origin,
      plainOrigin,
    ]);
    console.log(
      `\nbuilt the data branch: ${count} records, ${(bytes / 1024 / 1024).toFixed(1)} MB of JSON ` +
        `(${kb(bytes / count)} each), one fast-import commit, ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const target = 'bench-07';
    const rows: string[][] = [];
    const time = async (label: string, remote: string, limit?: number) => {
      const store = new GitBranchStore({
        repoDir: checkout,
        workDir: await mkdtemp(join(root, 'job-')),
        remote,
      });
      const t0 = performance.now();
      const read = await store.readRecords(GATE, target, limit === undefined ? {} : { limit });
      const cold = (performance.now() - t0) / 1000;
      const t1 = performance.now();
      await store.readRecords(GATE, target, limit === undefined ? {} : { limit });
      const warm = (performance.now() - t1) / 1000;
      if (read.warnings.length > 0) throw new Error(read.warnings.join('\n'));
      rows.push([
        label,
        String(read.records.length),
        `${cold.toFixed(2)} s`,
        `${warm.toFixed(2)} s`,
      ]);
      return cold;
    };
    const newest = await time('newest 50 of one benchmark', origin, 50);
    // What the action does before running anything: the baseline of every benchmark of
    // the gate (newest recordsToRead(window) each), then the choice for one of them.
    const gateStore = new RecordBaselineStore(
      new GitBranchStore({
        repoDir: checkout,
        workDir: await mkdtemp(join(root, 'job-')),
        remote: origin,
      }),
      {
        gateKey: GATE,
        window: DEFAULTS.baselineWindow,
        acceptAfter: DEFAULTS.acceptAfter,
        defaultBranch: 'main',
        match: 'strict',
        label: 'perf-gate-data',
      },
    );
    const t3 = performance.now();
    const loaded = await gateStore.load();
    const choice = await loaded!.choose!(target, {});
    const gateLoad = (performance.now() - t3) / 1000;
    rows.push([
      `gate baseline: ${BENCHMARKS} benchmarks × newest ${recordsToRead(DEFAULTS.baselineWindow, DEFAULTS.acceptAfter)}, choose one`,
      String(choice.info.records ?? 0),
      `${gateLoad.toFixed(2)} s`,
      '—',
    ]);
    // The worst case of a choice: no stored record fits this environment, so the store
    // reads further back, twice as far each time, through the whole history of one benchmark.
    const t4 = performance.now();
    const nowhere = await loaded!.choose!('bench-03', { instanceType: 'trn1.2xlarge' });
    const further = (performance.now() - t4) / 1000;
    rows.push([
      'choose on an environment no record has (reads further back to the first record)',
      String(nowhere.info.records ?? 0),
      `${further.toFixed(2)} s`,
      '—',
    ]);
    const all = await time('all 500 of one benchmark', origin);
    await time('newest 50, server without blob filter', plainOrigin, 50);

    const writer = new GitBranchStore({
      repoDir: checkout,
      workDir: await mkdtemp(join(root, 'job-')),
      remote: origin,
    });
    const t2 = performance.now();
    const appended = await writer.appendRecords([recordMaker(rng)(target, 10_000_000)]);
    const appendS = (performance.now() - t2) / 1000;

    console.log(
      `\nreadRecords('${GATE}', '${target}') with a fresh store (cold), then again (warm):`,
    );
    console.log(table(['read', 'records', 'cold', 'warm'], rows));
    console.log(
      `appendRecords of one record on top (fetch, prune to 500, commit, push): ${appendS.toFixed(2)} s, ` +
        `${appended.attempts} attempt, pruned ${appended.pruned.length}`,
    );
    lines.push(
      verdict(
        gateLoad < READ_TARGET_S,
        `load the baseline of a gate of ${BENCHMARKS} benchmarks from 10,000 records (what each run does): ${gateLoad.toFixed(2)} s (target < ${READ_TARGET_S} s)`,
      ),
      verdict(
        newest < READ_TARGET_S,
        `read one benchmark's newest 50 records from 10,000: ${newest.toFixed(2)} s (target < ${READ_TARGET_S} s)`,
      ),
      // Not a target: the baseline is the last K accepted records (K = 5 by default), and
      // here the time goes into the server rebuilding 500 blobs from fast-import's delta
      // chains (git pack-objects), not into the store.
      `INFO read all 500 records of one benchmark from 10,000 (the whole history of it): ${all.toFixed(2)} s`,
      `INFO choose a baseline for an environment none of one benchmark's 500 records has (reads back to the first): ${further.toFixed(2)} s`,
    );
  } finally {
    if (values.keep) console.log(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
  console.log(`\n${lines.join('\n')}`);
}

function verdict(ok: boolean, text: string): string {
  return `${ok ? 'PASS' : 'MISS'} ${text}`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function latencies(rng: Rng, n: number, median = MEDIAN_MS): number[] {
  return Array.from(
    { length: n },
    () => median * Math.exp(SIGMA * rng.normal()) * (rng.next() < 0.03 ? 1.6 : 1),
  );
}

function latencyMetrics(base: string, runs: number[][]): (Metric & { samples: number[][] })[] {
  const sorted = runs.map((run) => Float64Array.from(run).sort());
  return [50, 95, 99].map((p) => ({
    id: `${base}_p${p}`,
    unit: 'ms',
    direction: 'lower-is-better' as const,
    values: sorted.map((run) => numpyPercentile(run, p)),
    samples: runs,
    percentile: p,
  }));
}

function result(name: string, metrics: Metric[], format = 'offline-benchmark'): BenchmarkResult {
  return {
    name,
    format,
    metrics: [
      {
        id: 'throughput',
        unit: 'req/s',
        direction: 'higher-is-better',
        values: [12.1, 12.3, 12.2],
      },
      ...metrics,
    ],
    runs: [1, 2, 3].map((index) => ({
      index,
      kind: 'clean' as const,
      ok: true,
      durationMs: 60_000 + index,
      exitCode: 0,
      timedOut: false,
    })),
    environment: {
      instanceType: 'inf2.xlarge',
      neuronCores: 2,
      neuronSdkVersion: '2.26.0',
      compilerVersion: '2.21.0',
      runtimeVersion: '2.28.0',
      vllmVersion: '0.10.2',
      vllmNeuronVersion: '0.2.0',
      configHash: 'c0ffee12',
    },
  };
}

function bigRecordFigures(rng: Rng) {
  const runs = [0, 1, 2].map((run) => latencies(rng, 100_000, MEDIAN_MS * (1 + 0.02 * run)));
  const t0 = performance.now();
  const record = createRecord({
    gateKey: GATE,
    result: result('qwen3-reranker', latencyMetrics('latency', runs)),
    commit: 'a'.repeat(40),
    branch: 'main',
    event: 'push',
    runId: 1,
    verdict: 'pass',
  });
  const text = serializeRecord(record);
  const ms = performance.now() - t0;
  const pooled = Float64Array.from(runs.flat()).sort();
  const stored = Float64Array.from(
    record.result.metrics.find((m) => m.id === 'latency_p99')!.samples!.flat(),
  ).sort();
  const percentiles = [50, 95, 99].map((p) => ({
    p,
    original: numpyPercentile(pooled, p),
    stored: numpyPercentile(stored, p),
  }));
  const worstChange = Math.max(...percentiles.map((f) => Math.abs(f.stored / f.original - 1)));

  const serve = createRecord({
    gateKey: GATE,
    result: result(
      'serve',
      ['ttft', 'tpot', 'itl', 'e2el'].flatMap((base) =>
        latencyMetrics(
          base,
          [0, 1, 2].map(() => latencies(rng, 100_000)),
        ),
      ),
      'vllm-bench-serve',
    ),
    commit: 'b'.repeat(40),
    branch: 'main',
    event: 'push',
    runId: 2,
    verdict: 'pass',
  });
  return {
    bytes: Buffer.byteLength(text),
    ms,
    percentiles,
    worstChange,
    serveBytes: Buffer.byteLength(serializeRecord(serve)),
  };
}

/**
 * A record as the store holds them (samples already at the budget: 3 runs of ~667),
 * made from a template by createRecord with fresh samples and its own time, commit, run
 * id, event and verdict; far cheaper than createRecord for each of 10,000.
 */
function recordMaker(rng: Rng) {
  const templates = new Map<string, BaselineRecord>();
  return (benchmark: string, index: number): BaselineRecord => {
    let template = templates.get(benchmark);
    if (!template) {
      template = createRecord({
        gateKey: GATE,
        result: result(benchmark, latencyMetrics('latency', [[MEDIAN_MS], [MEDIAN_MS]])),
        commit: 'c'.repeat(40),
        branch: 'main',
        event: 'push',
        runId: 0,
        verdict: 'pass',
      });
      templates.set(benchmark, template);
    }
    const runs = [667, 667, 666].map((n) =>
      latencies(rng, n)
        .map((v) => Math.round(v * 1e4) / 1e4)
        .sort((a, b) => a - b),
    );
    const metrics = latencyMetrics('latency', runs);
    const pooled = Float64Array.from(runs.flat()).sort();
    const summary: BaselineRecord['summary'] = { ...template.summary };
    for (const metric of metrics) {
      summary[metric.id] = {
        mean: meanOf(metric.values),
        min: Math.min(...metric.values),
        max: Math.max(...metric.values),
        runs: metric.values.length,
        samples: pooled.length,
        p50: numpyPercentile(pooled, 50),
        p95: numpyPercentile(pooled, 95),
        p99: numpyPercentile(pooled, 99),
      };
    }
    return {
      ...template,
      createdAt: new Date(Date.UTC(2025, 0, 1) + index * 3_600_000).toISOString(),
      commit: (index * 2654435761).toString(16).padStart(40, '0').slice(-40),
      event: index % 7 === 0 ? 'schedule' : 'push',
      runId: String(20_000_000 + index),
      verdict: index % 13 === 0 ? 'regression' : 'pass',
      summary,
      result: {
        ...template.result,
        metrics: [template.result.metrics[0]!, ...metrics],
      },
    };
  };
}

/** Every record, benchmark by benchmark within each round. */
function* allRecords(rng: Rng): Generator<BaselineRecord> {
  const makeRecord = recordMaker(rng);
  for (let i = 0; i < RECORDS_PER_BENCHMARK; i += 1) {
    for (let b = 0; b < BENCHMARKS; b += 1) {
      yield makeRecord(`bench-${String(b).padStart(2, '0')}`, i * BENCHMARKS + b);
    }
  }
}

await main();

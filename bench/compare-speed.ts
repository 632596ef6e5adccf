// How fast the gate compares latency percentiles of one `vllm bench serve --save-detailed`
// style run per side (N per-request latencies each, no run-to-run evidence, so the seeded
// request bootstrap of src/stats/interval.ts decides), and how much memory it takes.
// Each N is measured in a fresh child process, so one size cannot pollute the next.
//
//   npm run bench:compare -- --seed perf-gate

import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareMetric } from '../src/compare/compare.js';
import { DEFAULT_THRESHOLDS, DEFAULTS } from '../src/config/defaults.js';
import type { Comparison, Metric } from '../src/model.js';
import { createRng, type Rng } from './random.js';
import { numpyPercentile } from './synthetic.js';
import { percent, table } from './text.js';

const SIZES = [10_000, 100_000, 1_000_000];
const PERCENTILES = [50, 95, 99] as const;
const SLOWDOWN = 0.03;
/** Per-request latency: lognormal around the reference workload's P50, in ms. */
const MEDIAN_MS = 307;
const SIGMA = 0.156;
/** Warm repeats after the first (cold) comparison. */
const WARM_REPEATS = 3;
const MB = 1024 * 1024;

interface ChildReport {
  n: number;
  generateMs: number;
  coldMs: number;
  warmMs: number;
  rssAfterDataMb: number;
  peakRssMb: number;
  comparisons: Pick<Comparison, 'id' | 'change' | 'ci' | 'method' | 'verdict'>[];
}

function main(): void {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      seed: { type: 'string', default: 'perf-gate' },
    },
  });
  if (values.child !== undefined) {
    const n = Number(values.child);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--child needs a size, got ${values.child}`);
    process.stdout.write(`${JSON.stringify(measure(n, values.seed))}\n`);
    return;
  }
  parent(values.seed);
}

function parent(seed: string): void {
  console.log(
    `neuron-perf-gate compare speed — one run per side, N requests each, lognormal ` +
      `(median ${MEDIAN_MS} ms, ln-sigma ${SIGMA}), current ${percent(SLOWDOWN, 0)} slower; ` +
      `compareMetric on latency_p50/p95/p99 (request bootstrap), seed "${seed}"`,
  );
  console.log(
    `each N in a fresh child process (${process.version}); compare = the three comparisons, ` +
      `cold = first call, warm = best of ${WARM_REPEATS} more; peak RSS = process maxRSS (data included)`,
  );
  console.log('');
  const script = fileURLToPath(import.meta.url);
  const reports: ChildReport[] = [];
  for (const n of SIZES) {
    const child = spawnSync(process.execPath, [script, '--child', String(n), '--seed', seed], {
      encoding: 'utf8',
      maxBuffer: 16 * MB,
    });
    if (child.status !== 0) {
      throw new Error(
        `child for N=${n} failed (${child.status ?? child.signal}):\n${child.stderr}`,
      );
    }
    reports.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as ChildReport);
  }

  console.log(
    table(
      ['N per side', 'generate', 'compare (cold)', 'compare (warm)', 'RSS after data', 'peak RSS'],
      reports.map((r) => [
        r.n.toLocaleString('en-US'),
        `${r.generateMs.toFixed(0)} ms`,
        `${r.coldMs.toFixed(1)} ms`,
        `${r.warmMs.toFixed(1)} ms`,
        `${r.rssAfterDataMb.toFixed(0)} MB`,
        `${r.peakRssMb.toFixed(0)} MB`,
      ]),
    ),
  );
  console.log('');
  console.log('verdicts (change and 95% interval; thresholds p50 5%, p95 10%, p99 15%):');
  console.log(
    table(
      ['N per side', ...PERCENTILES.map((p) => `latency_p${p}`)],
      reports.map((r) => [
        r.n.toLocaleString('en-US'),
        ...r.comparisons.map((c) => {
          const ci = c.ci ? `[${percent(c.ci[0], 2)}, ${percent(c.ci[1], 2)}]` : 'no interval';
          return `${percent(c.change ?? NaN, 2)} ${ci} ${c.verdict} (${c.method})`;
        }),
      ]),
    ),
  );

  const at = (n: number) => reports.find((r) => r.n === n)!;
  const big = at(1_000_000);
  const mid = at(100_000);
  const nLogN = (n: number) => n * Math.log(n);
  console.log('');
  console.log(
    `time ratio 1M/100k: cold ${(big.coldMs / mid.coldMs).toFixed(1)}×, warm ` +
      `${(big.warmMs / mid.warmMs).toFixed(1)}× — n·log n predicts ` +
      `${(nLogN(1_000_000) / nLogN(100_000)).toFixed(1)}×, n alone 10.0×`,
  );
  const pass = mid.coldMs < 1000 && mid.peakRssMb < 500;
  console.log(
    `${pass ? '    PASS' : '>>> MISS'}  N=100k: compare ${mid.coldMs.toFixed(0)} ms cold (< 1000 ms), ` +
      `peak RSS ${mid.peakRssMb.toFixed(0)} MB (< 500 MB)`,
  );
}

/** In the child: generate both sides, then time the three comparisons. */
function measure(n: number, seed: string): ChildReport {
  const rng = createRng(`${seed}/compare-speed/${n}`);
  const generateStart = performance.now();
  const baselineSamples = latencies(rng, n, 1);
  const currentSamples = latencies(rng, n, 1 + SLOWDOWN);
  const baseline = percentileMetrics(baselineSamples);
  const current = percentileMetrics(currentSamples);
  const generateMs = performance.now() - generateStart;
  const rssAfterDataMb = process.memoryUsage().rss / MB;

  const compareAll = () =>
    PERCENTILES.map((p, i) =>
      compareMetric(current[i], baseline[i], DEFAULT_THRESHOLDS[`latency_p${p}`] ?? null, {
        confidence: DEFAULTS.confidence,
        seed: `${seed}/${n}`,
      }),
    );
  const coldStart = performance.now();
  const comparisons = compareAll();
  const coldMs = performance.now() - coldStart;
  let warmMs = Infinity;
  for (let i = 0; i < WARM_REPEATS; i += 1) {
    const start = performance.now();
    compareAll();
    warmMs = Math.min(warmMs, performance.now() - start);
  }
  return {
    n,
    generateMs,
    coldMs,
    warmMs,
    rssAfterDataMb,
    // maxRSS is in kilobytes (KiB).
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    comparisons: comparisons.map(({ id, change, ci, method, verdict }) => ({
      id,
      change,
      ci,
      method,
      verdict,
    })),
  };
}

function latencies(rng: Rng, n: number, factor: number): number[] {
  const values = new Array<number>(n);
  for (let i = 0; i < n; i += 1) values[i] = MEDIAN_MS * factor * Math.exp(SIGMA * rng.normal());
  return values;
}

/** One run's latency_p50/p95/p99, as a parser of a detailed serve result gives them. */
function percentileMetrics(samples: number[]): Metric[] {
  const sorted = Float64Array.from(samples).sort();
  return PERCENTILES.map((p) => ({
    id: `latency_p${p}`,
    unit: 'ms',
    direction: 'lower-is-better',
    values: [numpyPercentile(sorted, p)],
    samples: [samples],
    percentile: p,
  }));
}

main();

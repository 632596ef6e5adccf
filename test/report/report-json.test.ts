import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeVllmDetailedFile } from '../../bench/vllm-detailed.js';
import { readResultFiles } from '../../src/baseline/result-files.js';
import { judgeResults } from '../../src/compare/judge.js';
import { MAX_REPORT_FILE_BYTES, reportArtifactFiles } from '../../src/github/report-artifact.js';
import { validateReportArtifact } from '../../src/github/report-validation.js';
import { renderReportComment } from '../../src/action/comment-mode.js';
import type { BenchmarkReport, BenchmarkResult, Metric } from '../../src/model.js';
import { writeReportFiles } from '../../src/publish/files.js';
import { buildGateReport } from '../../src/report/build.js';
import { reportJsonText } from '../../src/report/report-json.js';
import { percentile } from '../../src/stats/percentile.js';
import { tempDir } from '../support/offline-result.js';

const options = { format: 'auto', fallbackName: 'serve' };

/** A compare of two `vllm bench serve --save-detailed` files, as `compare --out` makes it. */
async function serveReport(dir: string) {
  const write = (name: string, slowdown: number) => {
    const path = join(dir, name);
    writeVllmDetailedFile(path, { requests: 4000, itlsPerRequest: 40, seed: name, slowdown });
    return path;
  };
  const baseline = await readResultFiles([write('baseline.json', 1)], options);
  const current = await readResultFiles([write('current.json', 1.05)], options);
  const report = buildGateReport({
    benchmarks: judgeResults(
      current,
      { source: 'baseline.json', benchmarks: baseline },
      () => ({}),
      {
        confidence: 0.95,
        failOnInconclusive: false,
      },
    ),
    environment: {},
  });
  return { report, current: current[0]! };
}

describe('report.json', () => {
  it('holds each sample set of a detailed serve result once, reduced, percentiles kept', async () => {
    const dir = await tempDir();
    const { report, current } = await serveReport(dir);
    const itl = current.metrics.find((m) => m.id === 'itl_p99')!;
    expect(itl.samples![0]!.length).toBeGreaterThan(150_000);

    const files = await writeReportFiles(join(dir, 'out'), report);
    const text = await readFile(files.report, 'utf8');
    // 4 sets (ttft, tpot, itl, e2el) of ≤ 1,500 samples, not 16 metrics × 160,000.
    expect(Buffer.byteLength(text)).toBeLessThan(120 * 1024);
    const written = JSON.parse(text).benchmarks[0].result.metrics as (Metric & {
      samplesOf?: string;
    })[];
    const sets = written.filter((m) => m.samples);
    expect(sets.map((m) => m.id).sort()).toEqual([
      'itl_p50',
      'latency_p50',
      'tpot_p50',
      'ttft_p50',
    ]);
    expect(written.find((m) => m.id === 'e2el_p99')?.samplesOf).toBe('latency_p50');
    expect(written.find((m) => m.id === 'itl_p95')?.samplesOf).toBe('itl_p50');

    // Read back as a baseline: every metric has its samples again, per-run values as measured.
    const [again] = await readResultFiles([files.report], options);
    const back = again!.metrics.find((m) => m.id === 'itl_p99')!;
    expect(back.values).toEqual(itl.values);
    expect(back.samples![0]!.length).toBeLessThanOrEqual(1500);
    for (const p of [50, 95, 99]) {
      const original = percentile(itl.samples![0]!, p);
      expect(Math.abs(percentile(back.samples![0]!, p) / original - 1)).toBeLessThan(0.002);
    }
  });

  it('is what the two-stage comment job validates and renders', async () => {
    const dir = await tempDir();
    const { report } = await serveReport(dir);
    const pr = { number: 3, headSha: 'b'.repeat(40), gateKey: 'perf' };
    const files = reportArtifactFiles(reportJsonText(report), 'comment', pr);
    const validated = validateReportArtifact(files, { prNumbers: [3], headSha: pr.headSha });
    const comment = renderReportComment(validated.report);
    expect(comment).toContain('itl_p99');
    expect(comment).toContain('serve');
  });

  it('reduces typed-array samples beside a metric whose samples are undefined', () => {
    const run = Float64Array.from({ length: 50_000 }, (_, i) => 40 + (i % 997) / 10);
    const metrics: Metric[] = [
      {
        id: 'throughput',
        unit: 'q/s',
        direction: 'higher-is-better',
        values: [1],
        samples: undefined,
      },
      {
        id: 'itl_p99',
        unit: 'ms',
        direction: 'lower-is-better',
        values: [139],
        samples: [run],
        percentile: 99,
      },
    ];
    const result: BenchmarkResult = {
      name: 'serve',
      format: 'vllm-bench-serve',
      metrics,
      runs: [],
    };
    const report = buildGateReport({
      benchmarks: [
        {
          name: 'serve',
          format: 'vllm-bench-serve',
          verdict: 'pass',
          metrics: [],
          warnings: [],
          result,
        },
      ],
      environment: {},
    });
    const text = reportJsonText(report);
    expect(Buffer.byteLength(text)).toBeLessThan(60 * 1024);
    expect(JSON.parse(text).benchmarks[0].result.metrics[1].samples[0]).toHaveLength(2000);
  });

  it('stays under the 5 MB a comment job reads, however many benchmarks carry samples', () => {
    const runs = [0, 1, 2].map((run) =>
      Array.from({ length: 2500 }, (_, i) => 40 + ((i * 7919 + run * 31) % 2500) / 100),
    );
    const benchmarks: BenchmarkReport[] = Array.from({ length: 120 }, (_, b) => {
      // Four distinct sets per benchmark, each 3 runs × 2,500 requests.
      const sets = [1, 2, 3, 4].map((k) => runs.map((run) => run.map((v) => v * k + b)));
      const metrics: Metric[] = sets.flatMap((samples, k) =>
        [50, 95, 99].map((p) => ({
          id: `set${k}_p${p}`,
          unit: 'ms',
          direction: 'lower-is-better' as const,
          values: samples.map((run) => percentile(run, p)),
          samples,
          percentile: p,
        })),
      );
      const result: BenchmarkResult = { name: `b${b}`, format: 'custom', metrics, runs: [] };
      return {
        name: result.name,
        format: 'custom',
        verdict: 'pass',
        metrics: [],
        warnings: [],
        result,
      };
    });
    const report = buildGateReport({ benchmarks, environment: {} });
    const bytes = Buffer.byteLength(reportJsonText(report));
    expect(bytes).toBeLessThan(MAX_REPORT_FILE_BYTES);
    // Without a cap over the report, 120 records' worth of samples would not fit.
    expect(120 * 6000 * 9).toBeGreaterThan(MAX_REPORT_FILE_BYTES);
  });
});

// Builders of reports for the report tests: comparisons, benchmarks with their measured
// runs and profile, sweeps of many variants, and a resolved configuration.

import { expect } from 'vitest';
import type {
  BenchmarkReport,
  BenchmarkVerdict,
  Comparison,
  GateReport,
  Metric,
} from '../../src/model.js';
import { buildGateReport } from '../../src/report/build.js';
import type { ConfigViewSource } from '../../src/report/config-view.js';

const METRICS: Pick<Comparison, 'id' | 'unit' | 'direction' | 'threshold'>[] = [
  { id: 'throughput', unit: 'queries/s', direction: 'higher-is-better', threshold: 0.05 },
  { id: 'latency_p50', unit: 'ms', direction: 'lower-is-better', threshold: 0.05 },
  { id: 'latency_p95', unit: 'ms', direction: 'lower-is-better', threshold: 0.1 },
  { id: 'latency_p99', unit: 'ms', direction: 'lower-is-better', threshold: 0.15 },
  { id: 'mfu', unit: '%', direction: 'higher-is-better', threshold: 0.1 },
  { id: 'tokens_per_second', unit: 'tokens/s', direction: 'higher-is-better', threshold: null },
];

export const METRIC_IDS = METRICS.map((m) => m.id);

/** A comparison of `id` whose current value moved by `change` from `baseline`. */
export function comparison(
  id: string,
  change: number,
  overrides: Partial<Comparison> = {},
): Comparison {
  const shape = METRICS.find((m) => m.id === id) ?? {
    id,
    unit: 'ms',
    direction: 'lower-is-better' as const,
    threshold: 0.05,
  };
  const baseline = 100 + id.length;
  const worse = shape.direction === 'higher-is-better' ? -change : change;
  const verdict =
    shape.threshold !== null && worse > shape.threshold
      ? 'regression'
      : shape.threshold !== null && -worse > shape.threshold
        ? 'improvement'
        : 'unchanged';
  return {
    ...shape,
    baseline,
    current: baseline * (1 + change),
    change,
    ci: [change - 0.01, change + 0.01],
    method: 'student-t',
    confidence: 0.95,
    verdict,
    reason: `${verdict}: ${(change * 100).toFixed(1)}% against the baseline`,
    ...overrides,
  };
}

/**
 * A judged benchmark with five clean runs and one profiled run, every metric of METRICS,
 * per-run values and a measured profile. `changes` moves metrics from the baseline.
 */
export function benchmark(
  name: string,
  changes: Record<string, number> = {},
  extra: Partial<BenchmarkReport> = {},
): BenchmarkReport {
  const metrics = METRICS.map((m) => comparison(m.id, changes[m.id] ?? 0.001));
  const verdict: BenchmarkVerdict = metrics.some((m) => m.verdict === 'regression')
    ? 'regression'
    : 'pass';
  const runs = [1, 2, 3, 4, 5, 6].map((index) => ({
    index,
    kind: index <= 5 ? ('clean' as const) : ('profiled' as const),
    ok: true,
    durationMs: 60_000 + index * 1000,
    exitCode: 0,
    timedOut: false,
  }));
  const measured: Metric[] = metrics.map((m) => ({
    id: m.id,
    unit: m.unit,
    direction: m.direction,
    values:
      m.id === 'mfu'
        ? [m.current!]
        : [0.98, 1.01, 1.0, 0.99, 1.02].map((wobble) => m.current! * wobble),
  }));
  return {
    name,
    format: 'offline-benchmark',
    verdict,
    metrics,
    warnings: [],
    result: { name, format: 'offline-benchmark', metrics: measured, runs },
    profile: {
      status: 'measured',
      ntffFiles: [`/out/profiles/${name}/profile.ntff`],
      neffFiles: [`/out/profiles/${name}/graph.neff`],
      totalBytes: 12_345_678,
      metrics: { mfu: metrics.find((m) => m.id === 'mfu')!.current!, mbu: 31.5 },
    },
    ...extra,
  };
}

/** A name for variant `index`, in the style of the reference sweep file. */
export function variantName(index: number): string {
  const cache = index % 2 === 0 ? 'ON' : 'OFF';
  return `sweep/bs${(index % 16) + 1}_tp${(index % 4) + 1}_cache_${cache}_v${index}`;
}

/**
 * A sweep of `count` variants; those in `regressed` lose 12% of throughput, those in
 * `improved` gain 12%, the rest stay put.
 */
export function sweepReport(
  count: number,
  regressed: number[] = [],
  improved: number[] = [],
): GateReport {
  const benchmarks = Array.from({ length: count }, (_, index) => {
    const name = variantName(index);
    const change = regressed.includes(index) ? -0.12 : improved.includes(index) ? 0.12 : 0.001;
    return benchmark(
      name,
      { throughput: change },
      {
        sweep: {
          name: 'sweep',
          variant: name.slice('sweep/'.length),
          params: { batch_size: (index % 16) + 1, tp: (index % 4) + 1 },
        },
        source: 'sweep',
      },
    );
  });
  return reportOf(benchmarks);
}

export function reportOf(benchmarks: BenchmarkReport[], runUrl?: string): GateReport {
  return buildGateReport({
    now: new Date('2026-11-22T00:00:00Z'),
    environment: { instanceType: 'inf2.xlarge', neuronCores: 2, neuronSdkVersion: '2.27.0' },
    baselineSource: 'perf-gate-data',
    benchmarks,
    runUrl: runUrl ?? 'https://github.com/o/r/actions/runs/42',
  });
}

/** A resolved configuration with one benchmark per name, each with a secret variable. */
export function gateConfig(names: string[]): ConfigViewSource {
  return {
    source: '.github/perf-gate.yml',
    benchmarks: names.map((name) => ({
      name,
      command: `python bench.py --name '${name}'`,
      format: 'offline-benchmark',
      runs: 5,
      confirmRuns: 2,
      profile: 'auto',
      profileMode: 'model',
      thresholds: { throughput: 0.05, latency_p95: 0.1 },
      workingDirectory: '/work/repo',
      env: { HF_TOKEN: `hf_secret_${name.length}`, NEURON_CC_FLAGS: '--model-type=transformer' },
      timeoutMinutes: 60,
    })),
    baselinePaths: ['/work/repo/baseline.json'],
    failOnRegression: true,
    failOnInconclusive: false,
    confidence: 0.95,
    baselineWindow: 5,
    uploadProfiles: true,
    artifactRetentionDays: 14,
  };
}

/** Splits a markdown table row into cells the way GitHub does: on unescaped pipes. */
export function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/);
}

/** The baseline facts a store attaches to a benchmark (BenchmarkReport.baselineInfo). */
export interface BaselineInfoInput {
  source: string;
  commit?: string;
  commitUrl?: string;
  records?: number;
  environmentNotes?: string[];
  accepted?: string;
}

// Cast rather than typed: the report reads baselineInfo and links.summary defensively, and
// these builders must not depend on which version of the model declares them.
export function withBaselineInfo(
  report: BenchmarkReport,
  baselineInfo: BaselineInfoInput | unknown,
): BenchmarkReport {
  return { ...report, baselineInfo } as BenchmarkReport;
}

export function withSummaryLink(report: GateReport, summary: string): GateReport {
  return { ...report, links: { ...report.links, summary } as GateReport['links'] };
}

/** Whole tables, balanced <details>, a final newline: nothing was cut in half. */
export function expectWellFormed(markdown: string): void {
  expect(markdown.endsWith('\n')).toBe(true);
  const html = outsideCode(markdown);
  const opened = html.match(/<details( open)?>/g)?.length ?? 0;
  expect(html.match(/<\/details>/g)?.length ?? 0).toBe(opened);
  const tables = markdown.split(/\n(?!\|)/).filter((chunk) => chunk.startsWith('|'));
  for (const table of tables) {
    const [header, delimiter, ...rows] = table.split('\n');
    expect(delimiter).toMatch(/^\|[ :-]+(\|[ :-]+)*\|$/);
    for (const row of rows) {
      expect(row.endsWith('|')).toBe(true);
      expect(cells(row)).toHaveLength(cells(header!).length);
    }
  }
}

/** The text outside fenced blocks and code spans, where markdown and autolinks apply. */
export function outsideCode(markdown: string): string {
  return markdown
    .replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '')
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, '');
}

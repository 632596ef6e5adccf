import { describe, expect, it } from 'vitest';
import { withOlderRecords } from '../../src/baseline/older-records.js';
import { mergeByName } from '../../src/baseline/result-files.js';
import { loadAdjusted } from '../../src/compare/host-load.js';
import { judgeResults } from '../../src/compare/judge.js';
import type { BenchmarkResult } from '../../src/model.js';
import { cleanRuns } from '../support/clean-runs.js';
import { hostLoad, metricOf as metric, withoutRunLoads } from '../support/host-loads.js';

/** How much slower a busy gate run's timings are per unit of load in these records. */
const SLOPE = 0.15;
/** Small deterministic scatter, ± 0.4%, so slopes have a standard error. */
const wobble = (i: number) => 0.004 * Math.sin(1.7 * i + 0.3);

/**
 * One gate run: 3 runs of throughput, a P50 and an MFU at `load` (every run's share of
 * CPU to others; undefined: not measured), its timings `slower` × and its device
 * figure unmoved by the load.
 */
function gateRun(i: number, load: number | undefined, slower: number): BenchmarkResult {
  const runs = [0, 1, 2].map((r) => 1 + wobble(3 * i + r));
  return {
    name: 'bench',
    format: 'offline-benchmark',
    metrics: [
      {
        id: 'throughput',
        unit: 'req/s',
        direction: 'higher-is-better',
        values: runs.map((n) => (100 / slower) * n),
      },
      {
        id: 'latency_p50',
        unit: 'ms',
        direction: 'lower-is-better',
        values: runs.map((n) => 200 * slower * n),
      },
      { id: 'mfu', unit: '%', direction: 'higher-is-better', values: [18 * (1 + wobble(i))] },
    ],
    runs: cleanRuns(3, load === undefined ? undefined : hostLoad(load)),
  };
}

/**
 * Every fifth older stored gate run busy (35–45% of the CPU to others), slower by SLOPE ×
 * its load; the window's 5 quiet.
 */
function history(count = 20, busyLoads = [0.3, 0.45, 0.35, 0.4]): BenchmarkResult[] {
  return Array.from({ length: count }, (_, i) => {
    const busy = i >= 5 && i % 5 === 2 ? busyLoads[((i - 2) / 5) % busyLoads.length]! : undefined;
    const load = busy ?? 0.02 + 0.01 * (i % 4);
    return gateRun(i, load, Math.exp(SLOPE * load));
  });
}

/** The record store's baseline: the newest 5 merged, the others for the spreads. */
function baselineOf(records: BenchmarkResult[]): BenchmarkResult {
  const [window] = mergeByName(records.slice(0, 5));
  return withOlderRecords(window!, records.slice(5));
}

const geomean = (values: readonly number[]) =>
  Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);

/** How far the adjustment moved the baseline's P50 (its runs' geometric mean). */
const p50Ratio = (adjusted: BenchmarkResult | undefined, baseline: BenchmarkResult) =>
  geomean(metric(adjusted, 'latency_p50').values) / geomean(metric(baseline, 'latency_p50').values);

describe('loadAdjusted', () => {
  it('takes the stored timings to the current load: a busy gate run is compared at its load', () => {
    const baseline = baselineOf(history());
    const current = gateRun(100, 0.4, Math.exp(SLOPE * 0.4));
    const { baseline: adjusted, notes } = loadAdjusted(current, baseline);
    // The window's quiet gate runs (load ~3.5%) taken to 40%: about 5.6% slower.
    const ratio = p50Ratio(adjusted, baseline);
    expect(ratio).toBeGreaterThan(1.045);
    expect(ratio).toBeLessThan(1.06);
    expect(notes.get('latency_p50')).toMatch(
      /^host busy: other processes took 40% of the CPU; adjusted by −5\.\d% \(the timing's slope on the load learnt from 20 stored gate runs at 2–45%\)$/,
    );
    expect(notes.get('throughput')).toMatch(/adjusted by \+5\.\d%/);
  });

  it('leaves device figures alone', () => {
    const baseline = baselineOf(history());
    const { baseline: adjusted, notes } = loadAdjusted(gateRun(100, 0.4, 1), baseline);
    expect(notes.has('mfu')).toBe(false);
    expect(metric(adjusted, 'mfu')).toBe(metric(baseline, 'mfu'));
  });

  it('changes nothing when the stored loads hardly vary', () => {
    const quiet = history(20, [0.05, 0.06, 0.04, 0.05]);
    const baseline = baselineOf(quiet);
    const result = loadAdjusted(gateRun(100, 0.4, 1.04), baseline);
    expect(result.baseline).toBe(baseline);
    expect(result.notes.size).toBe(0);
  });

  it('changes nothing when the records or the current gate run measured no load', () => {
    const baseline = baselineOf(history().map(withoutRunLoads));
    expect(loadAdjusted(gateRun(100, 0.4, 1.04), baseline).baseline).toBe(baseline);
    const loadedBaseline = baselineOf(history());
    const current = gateRun(100, undefined, 1.04);
    expect(loadAdjusted(current, loadedBaseline).baseline).toBe(loadedBaseline);
  });

  it('credits no slope the stored gate runs do not show beyond their noise', () => {
    // Busy gate runs no slower than quiet ones.
    const flat = Array.from({ length: 20 }, (_, i) =>
      gateRun(i, i % 5 === 2 ? 0.4 : 0.03, 1 + 3 * wobble(7 * i)),
    );
    const baseline = baselineOf(flat);
    expect(loadAdjusted(gateRun(100, 0.4, 1), baseline).notes.size).toBe(0);
  });

  it('leaves alone a timing that was zero in a stored gate run (its level has no log)', () => {
    const records = history();
    metric(records[9], 'latency_p50').values[1] = 0;
    const baseline = baselineOf(records);
    const { notes } = loadAdjusted(gateRun(100, 0.4, 1.05), baseline);
    expect(notes.has('latency_p50')).toBe(false);
    expect(notes.has('throughput')).toBe(true);
  });

  it('takes a load beyond the stored ones only to the busiest of them', () => {
    const baseline = baselineOf(history());
    const { baseline: adjusted, notes } = loadAdjusted(gateRun(100, 0.9, 1.1), baseline);
    // To 45%, not to 90%: about 6%, not 13%.
    expect(p50Ratio(adjusted, baseline)).toBeLessThan(1.07);
    expect(notes.get('latency_p50')).toContain('taken only to the busiest stored one, 45%');
  });
});

describe('judgeResults with host loads', () => {
  const judge = (current: BenchmarkResult, records: BenchmarkResult[]) => {
    const [report] = judgeResults(
      [current],
      { source: 'records', benchmarks: [baselineOf(records)] },
      () => ({ latency_p50: 0.03, throughput: 0.03, mfu: 0.05 }),
      { confidence: 0.95, failOnInconclusive: false, falseAlarmRate: 0.005 },
    );
    return report!;
  };

  it('passes unchanged code on a busy host that failed before loads were recorded', () => {
    const current = gateRun(100, 0.45, Math.exp(SLOPE * 0.45));
    expect(judge(withoutRunLoads(current), history().map(withoutRunLoads)).verdict).toBe(
      'regression',
    );
    const report = judge(current, history());
    expect(report.verdict).toBe('pass');
    expect(report.metrics.find((m) => m.id === 'latency_p50')!.reason).toContain('host busy');
    // A passing metric's reason is not shown: the benchmark says it once.
    expect(report.warnings).toEqual([
      expect.stringMatching(
        /^host busy: other processes took 45% of the CPU during these runs; .*\(throughput \+6\.\d%, latency_p50 −6\.\d%\)/,
      ),
    ]);
  });

  it('says nothing on a quiet host', () => {
    const report = judge(gateRun(100, 0.03, Math.exp(SLOPE * 0.03)), history());
    expect(report.verdict).toBe('pass');
    expect(report.warnings).toEqual([]);
  });

  it('still fails a 10% slower build on a busy host', () => {
    const current = gateRun(100, 0.45, Math.exp(SLOPE * 0.45) * 1.1);
    const report = judge(current, history());
    expect(report.verdict).toBe('regression');
    expect(report.metrics.find((m) => m.id === 'latency_p50')!.verdict).toBe('regression');
  });
});

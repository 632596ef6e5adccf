// One metric in different units on the two sides, in github-action-benchmark's custom
// format ([{name, unit, value}], README "Examples: Custom"): converted when the units are
// of one kind, refused when not, and worded by the metric's direction.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { parseResultText } from '../../src/formats/index.js';
import { unitFactor } from '../../src/formats/units.js';
import type { BenchmarkResult } from '../../src/model.js';
import { benchmarkResults } from '../formats/support.js';

function custom(
  format: string,
  entries: { name: string; unit: string; value: number; extra?: string }[],
): BenchmarkResult {
  const parsed = parseResultText(JSON.stringify(entries), 'bench.json', format);
  return benchmarkResults(parsed, 'bench.json', 'custom')[0]!;
}

function judge(now: BenchmarkResult, before: BenchmarkResult) {
  const [report] = judgeResults(
    [now],
    { source: 'baseline.json', benchmarks: [before] },
    () => ({}),
    { confidence: 0.95, failOnInconclusive: false },
  );
  return report!;
}

const SMALLER = 'custom-smaller-is-better';

describe('units of one metric on two sides', () => {
  it('compares 0.047 s with 47 ms as the same, and says it converted', () => {
    const before = custom(SMALLER, [{ name: 'Request time', unit: 'ms', value: 47 }]);
    const now = custom(SMALLER, [{ name: 'Request time', unit: 's', value: 0.047 }]);
    const report = judge(now, before);
    expect(report.verdict).toBe('pass');
    const metric = report.metrics.find((m) => m.id === 'request_time')!;
    expect(metric.change).toBeCloseTo(0, 9);
    expect(metric.unit).toBe('s');
    expect(report.warnings).toContain(
      "request_time: the baseline's figures in 'ms' are compared in 's'",
    );
  });

  it('fails a real 30% slowdown that moved from ms to s', () => {
    const before = custom(SMALLER, [{ name: 'Request time', unit: 'ms', value: 47 }]);
    const now = custom(SMALLER, [{ name: 'Request time', unit: 's', value: 0.0611 }]);
    const report = judge(now, before);
    expect(report.verdict).toBe('regression');
    expect(report.metrics.find((m) => m.id === 'request_time')!.change).toBeCloseTo(0.3, 9);
  });

  it('refuses units that are not of one kind, naming both', () => {
    const before = custom(SMALLER, [{ name: 'Load', unit: 'ms', value: 47 }]);
    const now = custom(SMALLER, [{ name: 'Load', unit: 'Percent', value: 50 }]);
    const report = judge(now, before);
    expect(report.verdict).toBe('error');
    expect(report.error).toContain(
      "load: the baseline gives it in 'ms' and this run in 'Percent', which cannot be converted",
    );
    // No made-up change beside the error.
    expect(report.metrics.find((m) => m.id === 'load')).toMatchObject({
      baseline: null,
      change: null,
    });
  });

  it('reads a bigger-is-better time as higher, never as slower', () => {
    const bigger = 'custom-bigger-is-better';
    const before = custom(bigger, [{ name: 'Time saved', unit: 'ms', value: 100 }]);
    const now = custom(bigger, [{ name: 'Time saved', unit: 'ms', value: 130 }]);
    const reason = judge(now, before).metrics.find((m) => m.id === 'time_saved')!.reason;
    expect(reason).toContain('30.0% higher');
    expect(reason).not.toContain('slower');
  });
});

describe('unitFactor', () => {
  it('converts times, sizes and rates per time; nothing else', () => {
    expect(unitFactor('s', 'ms')).toBe(1000);
    expect(unitFactor('ns', 'µs')).toBeCloseTo(1e-3, 15);
    expect(unitFactor('min', 'h')).toBeCloseTo(1 / 60, 15);
    expect(unitFactor('GiB', 'MiB')).toBe(1024);
    expect(unitFactor('MB', 'KB')).toBe(1000);
    expect(unitFactor('Megabytes', 'GB')).toBeCloseTo(1e-3, 15);
    expect(unitFactor('ops/s', 'ops/ms')).toBeCloseTo(1e-3, 15);
    expect(unitFactor('req/min', 'req/s')).toBeCloseTo(1 / 60, 15);
    expect(unitFactor('ops/s', 'req/s')).toBeUndefined();
    expect(unitFactor('ms', 'MB')).toBeUndefined();
    expect(unitFactor('tokens', 'Tokens')).toBe(1);
    expect(unitFactor('tokens', 'ms')).toBeUndefined();
    expect(unitFactor('Mb', 'MB')).toBeUndefined();
    // Bits are not bytes, whatever the case of the rest.
    expect(unitFactor('Mb/s', 'MB/s')).toBeUndefined();
    expect(unitFactor('Kb/s', 'KB/s')).toBeUndefined();
    // Spellings of one unit, and ratios of known units.
    expect(unitFactor('msec', 's')).toBeCloseTo(1e-3, 15);
    expect(unitFactor('milliseconds', 'ms')).toBe(1);
    expect(unitFactor('Bytes', 'KiB')).toBeCloseTo(1 / 1024, 15);
    expect(unitFactor('mebibytes', 'MiB')).toBe(1);
    expect(unitFactor('MB/s', 'GB/s')).toBeCloseTo(1e-3, 15);
    expect(unitFactor('MiB/s', 'MB/s')).toBeCloseTo(1.048576, 12);
    expect(unitFactor('ns/op', 'µs/op')).toBeCloseTo(1e-3, 15);
    expect(unitFactor('tokens per second', 'tokens/s')).toBe(1);
    expect(unitFactor('op/s', 'ops/s')).toBe(1);
    expect(unitFactor('requests/s', 'req/s')).toBe(1);
    expect(unitFactor('%', 'Percent')).toBe(1);
    expect(unitFactor('logs/sec', 'logs/s')).toBe(1);
    expect(unitFactor('logs/sec', 'Logs/s')).toBeUndefined();
  });
});

describe('a negative custom value (a delta)', () => {
  it('is shown and not judged by a relative change, saying why', () => {
    const before = custom(SMALLER, [{ name: 'Memory delta', unit: 'MiB', value: -12.5 }]);
    const now = custom(SMALLER, [{ name: 'Memory delta', unit: 'MiB', value: 30 }]);
    const report = judge(now, before);
    expect(report.verdict).toBe('pass');
    const metric = report.metrics.find((m) => m.id === 'memory_delta')!;
    expect([metric.baseline, metric.current, metric.change]).toEqual([-12.5, 30, null]);
    expect(metric.reason).toContain('a side is negative (a delta)');
  });
});

describe('a metric the current file no longer has', () => {
  it('is named in a warning: it was not judged', () => {
    const before = custom(SMALLER, [
      { name: 'Request time', unit: 'ms', value: 47 },
      { name: 'Queue wait', unit: 'ms', value: 3 },
    ]);
    const now = custom(SMALLER, [{ name: 'Request time', unit: 'ms', value: 47 }]);
    const report = judge(now, before);
    expect(report.metrics.find((m) => m.id === 'queue_wait')!.verdict).toBe('missing');
    expect(report.warnings).toContain(
      "queue_wait is in the baseline but not in this run's results, so it was not judged: was it renamed or removed? A renamed metric starts a new baseline",
    );
    expect(report.warnings.filter((w) => w.startsWith('request_time'))).toEqual([]);
  });
});

describe('custom names told apart by extra, on a side that has one test only', () => {
  // otel-arrow: both tests in one run, one of them in another.
  const both = [
    {
      name: 'cpu_percentage_avg',
      unit: '%',
      value: 43,
      extra: 'CI/OTAP-ATTR-OTLP - CPU Percentage',
    },
    {
      name: 'cpu_percentage_avg',
      unit: '%',
      value: 38,
      extra: 'CI/OTLP-ATTR-OTLP - CPU Percentage',
    },
  ];
  const onlyOtlp = (value: number) => [
    { name: 'cpu_percentage_avg', unit: '%', value, extra: 'CI/OTLP-ATTR-OTLP - CPU Percentage' },
  ];
  const otlpId = 'cpu_percentage_avg_ci_otlp_attr_otlp_cpu_percentage';

  it('still meets its baseline, and fails its regression', () => {
    const report = judge(custom(SMALLER, onlyOtlp(38 * 1.3)), custom(SMALLER, both));
    expect(report.verdict).toBe('regression');
    expect(report.metrics.find((m) => m.id === otlpId)).toMatchObject({
      baseline: 38,
      verdict: 'regression',
    });
  });

  it('meets it the other way round too: one test in the baseline, both now', () => {
    const report = judge(custom(SMALLER, both), custom(SMALLER, onlyOtlp(38)));
    expect(report.metrics.find((m) => m.id === otlpId)).toMatchObject({
      baseline: 38,
      current: 38,
    });
  });
});

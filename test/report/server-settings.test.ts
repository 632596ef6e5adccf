// The "Server settings" view and table: per setting its capacity (median, interval),
// goodput and cost at capacity interpolated between the variants around it, the best
// marked, and the best setting's capacity against the stored best's in words.
import { describe, expect, it } from 'vitest';
import { deriveBestSetting } from '../../src/derive/best-setting.js';
import { costPerMillion } from '../../src/derive/cost.js';
import {
  CAPACITY_FORMAT,
  type BenchmarkReport,
  type BenchmarkResult,
  type Comparison,
} from '../../src/model.js';
import { serverSettingsOf } from '../../src/report/server-settings.js';
import { settingsTable } from '../../src/report/settings-table.js';

function comparison(
  id: string,
  unit: string,
  current: number,
  baseline: number | null = null,
): Comparison {
  return {
    id,
    unit,
    direction: 'higher-is-better',
    baseline,
    current,
    change: baseline === null ? null : current / baseline - 1,
    ci: null,
    method: 'none',
    confidence: 0.95,
    threshold: 0.05,
    verdict: baseline === null ? 'new' : 'unchanged',
    reason: '',
  } as Comparison;
}

function report(
  name: string,
  metrics: Comparison[],
  result: Partial<BenchmarkResult> = {},
  extra: Partial<BenchmarkReport> = {},
): BenchmarkReport {
  return {
    name,
    format: result.format ?? 'vllm-bench-serve',
    verdict: 'no-baseline',
    metrics,
    warnings: [],
    result: { name, format: 'vllm-bench-serve', metrics: [], runs: [], ...result },
    ...extra,
  } as BenchmarkReport;
}

/** A setting's variants at rates 2 and 4: goodput and output tokens/s per rate. */
function variants(setting: string, seqs: number): BenchmarkReport[] {
  return [2, 4].map((rate) => {
    const sweep = {
      name: `serve/${setting}`,
      variant: `rate-${rate}`,
      params: { 'max-num-seqs': seqs, 'request-rate': rate },
      setting: { name: setting, params: { 'max-num-seqs': seqs } },
      entry: 'serve',
    };
    return report(
      `serve/${setting}/rate-${rate}`,
      [
        comparison('goodput', 'requests/s', rate * 0.9),
        comparison('tokens_per_second', 'tokens/s', rate * 128),
      ],
      { sweep, info: { request_rate: rate } },
      { sweep },
    );
  });
}

function capacity(setting: string, values: number[]): BenchmarkReport {
  const sorted = [...values].sort((a, b) => a - b);
  return report(
    `serve/${setting}/capacity`,
    [comparison('capacity', 'requests/s', sorted[Math.floor(sorted.length / 2)]!)],
    {
      format: CAPACITY_FORMAT,
      metrics: [{ id: 'capacity', unit: 'requests/s', direction: 'higher-is-better', values }],
    },
  );
}

describe('serverSettingsOf and settingsTable', () => {
  const capacities = [
    capacity('max-num-seqs-4', [2.9, 3, 3.1]),
    capacity('max-num-seqs-8', [3.4, 3.5, 3.3]),
  ];
  const derived = deriveBestSetting(
    'serve',
    capacities.map((c, i) => ({
      setting: ['max-num-seqs-4', 'max-num-seqs-8'][i]!,
      params: {},
      result: c.result,
    })),
  );
  const best = report(
    'serve/best-setting',
    [comparison('capacity', 'requests/s', 3.4, 3.8)],
    derived.result,
    {
      verdict: 'regression',
    },
  );
  const benchmarks = [
    ...variants('max-num-seqs-4', 4),
    ...variants('max-num-seqs-8', 8),
    ...capacities,
    best,
  ];

  it('gives each setting its median capacity, interval, goodput and cost at capacity', () => {
    const [view] = serverSettingsOf(benchmarks, { usdPerHour: 0.7582 });
    expect(view!.rows.map((r) => [r.setting, r.capacity, r.best])).toEqual([
      ['max-num-seqs-4', 3, false],
      ['max-num-seqs-8', 3.4, true],
    ]);
    const row = view!.rows[1]!;
    const [low, high] = row.interval!;
    expect(low).toBeLessThan(3.4);
    expect(high).toBeGreaterThan(3.4);
    // Between rate 2 (1.8 good/s, 256 tokens/s) and rate 4 (3.6, 512), at 3.4 a second.
    expect(row.goodput).toBeCloseTo(1.8 + (1.8 * 1.4) / 2, 9);
    expect(row.costPerMillionTokens).toBeCloseTo(costPerMillion(0.7582, 256 + (256 * 1.4) / 2), 9);
    expect(view!.best).toMatchObject({
      setting: 'max-num-seqs-8',
      runnerUp: { setting: 'max-num-seqs-4', capacity: 3 },
      verdict: 'regression',
      current: 3.4,
      baseline: 3.8,
    });
    // Without a price, no cost.
    expect(serverSettingsOf(benchmarks)[0]!.rows[1]!.costPerMillionTokens).toBeNull();
  });

  it("marks the best and says the best setting's capacity fell", () => {
    const table = settingsTable(serverSettingsOf(benchmarks, { usdPerHour: 0.7582 })[0]!);
    expect(table).toContain('### Server settings of serve: capacity under the SLO');
    expect(table).toMatch(
      /\| max-num-seqs-8 ★ best +\| `max-num-seqs=8` +\| +3\.400 \| +3\.[0-9]{3} to 3\.[0-9]{3} \|/,
    );
    expect(table).toContain(
      "**Best setting** max-num-seqs-8: capacity 3.400 requests/s; runner-up max-num-seqs-4, 3.000. The best setting's capacity fell 10.5% against the stored best's 3.800 (serve/best-setting: ❌ regression).",
    );
  });

  it('has no view without a best-setting benchmark', () => {
    expect(serverSettingsOf(benchmarks.slice(0, -1))).toEqual([]);
  });
});

// The server settings of an entry with `sweep: settings:`, side by side: per setting its
// capacity under the SLO (median of the runs, with an interval), the goodput and the cost
// per million output tokens at that capacity, its verdict against its own baseline, and
// which setting is best. Built from the judged benchmarks (report.json carries it as
// `serverSettings`; the comment's table is drawn from it). Pure.

import { bestSettingInfoOf, bestSettingName } from '../derive/best-setting.js';
import { capacityName } from '../derive/capacity.js';
import { costPerMillion } from '../derive/cost.js';
import { loadOf } from '../derive/load.js';
import type { BenchmarkReport, CostBasis, ServerSettingRow, ServerSettingsView } from '../model.js';
import { levelInterval } from '../stats/level-interval.js';
import { median } from '../stats/percentile.js';
import { isNotMeasured } from './benchmark-verdict.js';

/** One view per entry with server settings, in the order of its best-setting benchmark. */
export function serverSettingsOf(
  benchmarks: readonly BenchmarkReport[],
  cost?: CostBasis,
): ServerSettingsView[] {
  const entries = new Map<string, BenchmarkReport[]>();
  for (const benchmark of benchmarks) {
    const entry = benchmark.sweep?.setting ? benchmark.sweep.entry : undefined;
    if (entry !== undefined) entries.set(entry, [...(entries.get(entry) ?? []), benchmark]);
  }
  return [...entries].flatMap(([entry, variants]) => {
    const best = benchmarks.find((b) => b.name === bestSettingName(entry));
    return best ? [entryView(entry, variants, best, benchmarks, cost)] : [];
  });
}

function entryView(
  entry: string,
  variants: readonly BenchmarkReport[],
  best: BenchmarkReport,
  benchmarks: readonly BenchmarkReport[],
  cost: CostBasis | undefined,
): ServerSettingsView {
  const info = bestSettingInfoOf(best.result);
  const judged = best.metrics.find((m) => m.id === 'capacity');
  const sweeps = [...new Set(variants.map((v) => v.sweep!.name))];
  const rows = sweeps.map((sweep) => {
    const own = variants.filter((v) => v.sweep!.name === sweep);
    const setting = own[0]!.sweep!.setting!;
    const capacity = benchmarks.find((b) => b.name === capacityName(sweep));
    return settingRow(setting, capacity, own, cost, info?.best.setting === setting.name);
  });
  return {
    entry,
    unit: info?.best.unit ?? judged?.unit ?? 'requests/s',
    confidence: judged?.confidence ?? 0.95,
    rows,
    best: {
      benchmark: best.name,
      setting: info?.best.setting ?? null,
      runnerUp: info?.runnerUp
        ? { setting: info.runnerUp.setting, capacity: info.runnerUp.capacity }
        : null,
      verdict: isNotMeasured(best) ? 'not-measured' : best.verdict,
      current: judged?.current ?? null,
      baseline: judged?.baseline ?? null,
      change: judged?.change ?? null,
    },
  };
}

function settingRow(
  setting: { name: string; params: Record<string, unknown> },
  capacity: BenchmarkReport | undefined,
  variants: readonly BenchmarkReport[],
  cost: CostBasis | undefined,
  best: boolean,
): ServerSettingRow {
  const metric = capacity?.result?.metrics.find((m) => m.id === 'capacity');
  const judged = capacity?.metrics.find((m) => m.id === 'capacity');
  const values = (metric?.values ?? []).filter((v) => Number.isFinite(v));
  const base = {
    setting: setting.name,
    params: setting.params,
    benchmark: capacity?.name ?? '',
    best,
    change: judged?.change ?? null,
  };
  if (!capacity || values.length === 0) {
    const reason =
      capacity?.result?.notMeasured?.capacity?.reason ??
      capacity?.error ??
      'its capacity was not derived';
    return {
      ...base,
      capacity: null,
      interval: null,
      atLeast: false,
      runs: 0,
      goodput: null,
      costPerMillionTokens: null,
      verdict: capacity?.verdict === 'error' ? 'error' : 'not-measured',
      notMeasured: reason,
    };
  }
  const value = median(values);
  const load =
    capacity.capacityCurve?.load ??
    (metric?.unit === 'concurrency' ? 'max_concurrency' : 'request_rate');
  const tokens = atLoad(variants, load, 'tokens_per_second', value);
  const usdPerHour = cost?.usdPerHour;
  return {
    ...base,
    capacity: value,
    interval: levelInterval(values, judged?.confidence ?? 0.95),
    atLeast: capacity.capacityCurve?.capacity.current?.atLeast ?? false,
    runs: values.length,
    goodput: atLoad(variants, load, 'goodput', value),
    costPerMillionTokens:
      usdPerHour !== undefined && tokens !== null && tokens > 0
        ? costPerMillion(usdPerHour, tokens)
        : null,
    verdict: isNotMeasured(capacity) ? 'not-measured' : capacity.verdict,
  };
}

/**
 * A variant metric's figure (this run's, as judged) at `load`, linear between the two
 * variants around it; below the lowest load in proportion to it (a rate is 0 at no load),
 * at or above the highest the highest's. Null when a variant lacks its load or the metric.
 */
export function atLoad(
  variants: readonly BenchmarkReport[],
  setting: 'request_rate' | 'max_concurrency',
  id: string,
  load: number,
): number | null {
  const points: { load: number; value: number }[] = [];
  for (const variant of variants) {
    const at = variant.result ? loadOf(variant.result, setting) : undefined;
    const value = variant.metrics.find((m) => m.id === id)?.current;
    if (at === undefined || typeof value !== 'number' || !Number.isFinite(value)) return null;
    points.push({ load: at, value });
  }
  points.sort((a, b) => a.load - b.load);
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return null;
  if (load <= first.load) return (first.value * load) / first.load;
  if (load >= last.load) return last.value;
  const upper = points.findIndex((p) => p.load >= load);
  const a = points[upper - 1]!;
  const b = points[upper]!;
  return a.value + ((b.value - a.value) * (load - a.load)) / (b.load - a.load);
}

// The best server setting of an entry with `sweep: settings:` and an SLO: the setting whose
// capacity under the SLO has the highest median over its runs. The result is a benchmark
// of its own, `<entry>/best-setting`, whose `capacity` is that setting's capacity values
// (so it has an interval and is judged against the stored best setting's, whichever
// setting that was), and whose info names the best setting and the runner-up. Pure.

import { CAPACITY_FORMAT, type BenchmarkResult, type Metric } from '../model.js';
import { median } from '../stats/percentile.js';

/** The name of an entry's best-setting benchmark. */
export function bestSettingName(entry: string): string {
  return `${entry}/best-setting`;
}

/** One setting of the entry: its capacity benchmark's result, when there is one. */
export interface SettingCapacity {
  setting: string;
  params: Record<string, unknown>;
  /** `<entry>/<setting>/capacity` as judged; undefined when it could not be derived. */
  result?: BenchmarkResult;
}

/** A setting as the best-setting benchmark's info names it. */
export interface RankedSetting {
  setting: string;
  params: Record<string, unknown>;
  /** The median of the setting's capacities. */
  capacity: number;
  unit: string;
  runs: number;
}

/** What `<entry>/best-setting`'s info holds. */
export interface BestSettingInfo {
  best: RankedSetting;
  runnerUp?: RankedSetting;
  /** The settings that were not measured, each with the reason. */
  notMeasured: { setting: string; reason: string }[];
}

export interface DerivedBestSetting {
  result: BenchmarkResult;
  warnings: string[];
}

/**
 * The best of the settings: the highest median capacity (the first listed on a tie). A
 * setting whose capacity was not measured cannot be best; when none was, `capacity` is
 * not measured, with each setting's reason.
 */
export function deriveBestSetting(
  entry: string,
  settings: readonly SettingCapacity[],
): DerivedBestSetting {
  const ranked: (RankedSetting & { metric: Metric; from: BenchmarkResult })[] = [];
  const notMeasured: BestSettingInfo['notMeasured'] = [];
  for (const { setting, params, result } of settings) {
    const metric = result?.metrics.find((m) => m.id === 'capacity');
    if (!result || !metric || metric.values.length === 0) {
      notMeasured.push({ setting, reason: notMeasuredReason(result) });
      continue;
    }
    const { unit, values } = metric;
    ranked.push({
      setting,
      params,
      capacity: median(values),
      unit,
      runs: values.length,
      metric,
      from: result,
    });
  }
  const unit = ranked[0]?.unit;
  // Capacities in another unit (a setting whose load was read otherwise) cannot be ranked.
  const comparable = ranked.filter((r) => r.unit === unit);
  const warnings = ranked
    .filter((r) => r.unit !== unit)
    .map(
      (r) =>
        `setting ${r.setting}: its capacity is in ${r.unit}, the others' in ${unit}; it is not ranked`,
    );
  const order = [...comparable].sort((a, b) => b.capacity - a.capacity);
  const [best, runnerUp] = order;
  if (!best) return { result: noneMeasured(entry, notMeasured), warnings };
  if (notMeasured.length > 0) {
    warnings.push(
      `not ranked, as not measured: ${notMeasured.map((n) => `${n.setting} (${n.reason})`).join('; ')}`,
    );
  }
  const info: BestSettingInfo = {
    best: rankedView(best),
    ...(runnerUp ? { runnerUp: rankedView(runnerUp) } : {}),
    notMeasured,
  };
  const metric: Metric = {
    id: 'capacity',
    unit: best.unit,
    direction: 'higher-is-better',
    values: [...best.metric.values],
  };
  return {
    result: {
      name: bestSettingName(entry),
      source: entry,
      format: CAPACITY_FORMAT,
      metrics: [metric],
      runs: best.from.runs,
      info: { bestSetting: info },
    },
    warnings,
  };
}

function rankedView({ setting, params, capacity, unit, runs }: RankedSetting): RankedSetting {
  return { setting, params, capacity, unit, runs };
}

function notMeasuredReason(result: BenchmarkResult | undefined): string {
  return result?.notMeasured?.capacity?.reason ?? 'its capacity could not be derived';
}

function noneMeasured(entry: string, notMeasured: BestSettingInfo['notMeasured']): BenchmarkResult {
  const reasons = notMeasured.map((n) => `${n.setting}: ${n.reason}`).join('; ');
  return {
    name: bestSettingName(entry),
    source: entry,
    format: CAPACITY_FORMAT,
    metrics: [],
    runs: [],
    info: {},
    notMeasured: {
      capacity: {
        reason: `no setting's capacity was measured, so none can be best (${reasons})`,
        unit: 'requests/s',
        direction: 'higher-is-better',
      },
    },
  };
}

/** The best-setting info of a result, read back as untrusted (a stored record, a report). */
export function bestSettingInfoOf(
  result: BenchmarkResult | undefined,
): BestSettingInfo | undefined {
  const info = result?.info?.bestSetting;
  if (typeof info !== 'object' || info === null) return undefined;
  const { best, runnerUp } = info as Record<string, unknown>;
  const view = rankedOf(best);
  if (!view) return undefined;
  const second = rankedOf(runnerUp);
  const listed = (info as Record<string, unknown>).notMeasured;
  const notMeasured = Array.isArray(listed)
    ? listed.flatMap((n: unknown) => {
        const { setting, reason } = (n ?? {}) as Record<string, unknown>;
        return typeof setting === 'string' && typeof reason === 'string'
          ? [{ setting, reason }]
          : [];
      })
    : [];
  return { best: view, ...(second ? { runnerUp: second } : {}), notMeasured };
}

function rankedOf(value: unknown): RankedSetting | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { setting, params, capacity, unit, runs } = value as Record<string, unknown>;
  if (typeof setting !== 'string' || typeof unit !== 'string') return undefined;
  if (typeof capacity !== 'number' || !Number.isFinite(capacity)) return undefined;
  return {
    setting,
    params:
      typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {},
    capacity,
    unit,
    runs: typeof runs === 'number' ? runs : 0,
  };
}

import type { BenchmarkResult, Metric, NotMeasuredNote, ProfileSummary } from '../model.js';
import { median } from '../stats/percentile.js';

/**
 * MFU and MBU: percentages of the device's peak, higher is better. The one definition of
 * their unit and direction (the comparison uses it for MFU rows shown "not measured").
 */
export const PROFILE_METRIC = {
  unit: '%',
  direction: 'higher-is-better',
} as const satisfies Pick<Metric, 'unit' | 'direction'>;

/** The metrics only a profile measures. */
export const PROFILE_METRIC_IDS: readonly string[] = ['mfu', 'mbu'];

/**
 * The profile's figures that are compared with the baseline like any metric: MFU (gated
 * by default) and MBU (shown). One profiled run gives one value each.
 */
export function profileMetrics(profile: ProfileSummary): Metric[] {
  if (profile.status !== 'measured' || isContaminated(profile)) return [];
  const metrics: Metric[] = [];
  for (const id of ['mfu', 'mbu'] as const) {
    const value = profile.metrics[id];
    if (value !== undefined) metrics.push({ id, ...PROFILE_METRIC, values: [value] });
  }
  return metrics;
}

/**
 * The profile figures that are gated but not measured because the profile is partial
 * (profiler summaries without a graph's total_time), with the reason.
 */
export function profileNotMeasured(profile: ProfileSummary): Record<string, NotMeasuredNote> {
  const untimed = profile.untimedGraphs ?? [];
  if (profile.status !== 'measured') return {};
  let reason: string;
  if (isContaminated(profile)) reason = contaminatedReason(profile.contamination!);
  else if (untimed.length > 0)
    reason = `partial profile: the profiler gave no total_time for graph ${untimed.join(', ')}`;
  else return {};
  return { mfu: { reason, ...PROFILE_METRIC }, mbu: { reason, ...PROFILE_METRIC } };
}

/** A profiled run the profiler itself warns about, or that ran throttled, is not judged. */
export function isContaminated(profile: ProfileSummary): boolean {
  return (profile.contamination ?? []).length > 0;
}

function contaminatedReason(reasons: string[]): string {
  return (
    `contaminated profile, not judged: ${reasons.join('; ')}. ` +
    'Re-run the job; if it recurs, the runner (its cooling, power or profiler) needs a look'
  );
}

/**
 * Profiling slows a run down; `profiling_overhead` (clean throughput ÷ profiled
 * throughput − 1, in percent) shows by how much, and why the profiled run's timings are
 * never compared with the clean ones.
 */
export function withProfilingOverhead(
  profile: ProfileSummary,
  result: BenchmarkResult,
  profiledThroughput: Map<string, number>,
): ProfileSummary {
  const clean = result.metrics.find((m) => m.id === 'throughput');
  const profiled = profiledThroughput.get(result.name);
  if (!clean || clean.values.length === 0 || !profiled || profiled <= 0) return profile;
  const overhead = (median(clean.values) / profiled - 1) * 100;
  return { ...profile, metrics: { ...profile.metrics, profiling_overhead: overhead } };
}

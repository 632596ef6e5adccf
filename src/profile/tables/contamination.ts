// Why a profiled run's figures should not be judged, from its own tables: the profiler's
// Warning rows ("worth checking first: rows here can indicate a data-quality problem", the
// schema reference) and throttling in ThrottleSummary (a NeuronCore held below its full
// rate by thermal or power limits: the run measured the host's state, not the change).

import type { ProfileTables } from './profile-tables.js';

/** One reason per warning category and per throttled NeuronCore; empty when clean. */
export function contaminationOf(tables: Pick<ProfileTables, 'warnings' | 'throttles'>): string[] {
  const reasons: string[] = [];
  const byCategory = new Map<string, string[]>();
  for (const row of tables.warnings) {
    const category = text(row.category) ?? 'uncategorised';
    byCategory.set(category, [...(byCategory.get(category) ?? []), text(row.message) ?? '']);
  }
  for (const [category, messages] of byCategory) {
    const first = messages.find((m) => m !== '');
    const more = messages.length > 1 ? ` (and ${messages.length - 1} more)` : '';
    reasons.push(`profiler warning, ${category}${first ? `: ${first}` : ''}${more}`);
  }
  for (const row of tables.throttles) {
    if (
      text(row.throttle_type) !== 'all' &&
      tables.throttles.some((r) => r.throttle_type === 'all')
    )
      continue;
    const activeNs = number(row.throttle_active_time_ns);
    const percent = number(row.throttle_active_time_percent);
    if (!(activeNs > 0 || percent > 0)) continue;
    const share = percent > 0 ? `, ${(percent * 100).toFixed(1)}% of the time` : '';
    reasons.push(
      `NeuronCore ${number(row.nc_idx)} throttled for ${(activeNs / 1e6).toFixed(2)} ms${share}`,
    );
  }
  return reasons;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function number(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

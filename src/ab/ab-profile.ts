// A/B's profiles: once the blocks have judged a benchmark and a gated metric ends beyond
// its threshold, one profiled run of each side (after the blocks, so no timing is touched),
// and the operator diff of the two: which ops the head (a new compiler, a new SDK) slowed.

import type { BenchmarkSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, ProfileSummary } from '../model.js';
import { gatedMetricMoved } from '../pipeline.js';
import { profileDiffOf } from '../profile/opdiff/profile-diff.js';
import { shouldProfile } from '../runner/detect-neuron.js';
import type { AbSide } from './schedule.js';

export interface SideProfiler {
  profiled(side: AbSide): Promise<ProfileSummary | undefined>;
}

export async function withSideProfiles(
  reports: BenchmarkReport[],
  spec: BenchmarkSpec,
  sides: SideProfiler,
  {
    env,
    log,
    baseLabel,
  }: { env: Record<string, string | undefined>; log: Logger; baseLabel: string },
): Promise<BenchmarkReport[]> {
  if (reports.some((r) => r.verdict === 'error') || !gatedMetricMoved(reports)) return reports;
  // Like a pull request's `profile: on-change`: profiled only when something moved.
  const decision = await shouldProfile(spec.profile, env, undefined, false);
  if (!decision.profile) return reports;
  log.info(
    `${spec.name}: a gated metric ends beyond its threshold, so each side has 1 profiled run for the operator diff`,
  );
  const base = await sides.profiled('base');
  const head = await sides.profiled('head');
  const diff = profileDiffOf(base, head, `the base side's profile (${baseLabel})`);
  return reports.map((report) => ({
    ...report,
    ...(head ? { profile: head } : {}),
    ...(diff ? { profileDiff: diff } : {}),
  }));
}

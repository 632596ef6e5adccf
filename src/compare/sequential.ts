// Confirmation runs as a group-sequential test, like Chromium's Pinpoint: after each look
// the answer is "different" (a metric regressed: fail now), "same" (no metric is open:
// pass now) or "run more" (add the next batch of clean runs), for at most `confirmRuns`
// more runs. Each look spends its own part of the false-alarm budget: a Bonferroni split
// over the looks, the last look's part raised by what their correlation leaves unspent
// (below), so that the chance of a false alarm at any look stays within the budget however
// many looks are taken and whenever the gate stops. The first look plans the looks (planLooks):
// when the confirmation runs cannot narrow the test enough to make up for the stricter
// levels the looks spend (day-to-day drift the current day's runs cannot average away),
// it is the only look, with the whole budget. Otherwise the last look also gets what the
// correlation of the looks leaves of the budget (correlatedLooks): their runs are nested
// and their baseline shared, so the chance that any look raises a false alarm is well
// below the sum of their parts.

import type { BenchmarkReport, Comparison } from '../model.js';
import { PROFILE_METRIC_IDS } from '../profile/metrics.js';
import { studentTQuantile } from '../stats/distributions.js';
import { lastLookLevel } from '../stats/group-sequential.js';
import { changeInterval } from '../stats/interval.js';
import { withMoreRuns, type LogSpread } from '../stats/spread.js';
import { sidakLevel } from '../stats/multiplicity.js';
import { familyLevel, testedMetrics, type FamilyMember } from './family.js';

/**
 * The extra runs there are at each look: 0 at the first, then batches that grow, so that
 * a clear answer costs few runs and an open one soon has enough to settle it, ending at
 * `maxExtra`: 0, ⌈20%⌉, ⌈50%⌉, 100% of it (e.g. 0, 2, 5, 10; 0, 1, 2 for 2).
 */
export function lookSchedule(maxExtra: number): number[] {
  if (maxExtra <= 0) return [0];
  const looks = [0, Math.ceil(maxExtra * 0.2), Math.ceil(maxExtra * 0.5), maxExtra];
  return looks.filter((extra, i) => i === 0 || extra > looks[i - 1]!);
}

/**
 * Share of the budget the last look (all runs) gets; the looks before it share the rest
 * equally. Most regressions that need confirming are settled only with all the runs, and
 * clear ones are clear at any level. At 0.8 instead of half, the action found 10%
 * slowdowns of heavy-tailed requests 2.4 points more often (bench:accuracy, the same 1,000
 * pull requests) and at run CV 5% 0.4 points more often, for about one more confirmation
 * run per slowed pull request; the false alarms stay within the budget (correlatedLooks).
 */
const LAST_LOOK_SHARE = 0.8;

/**
 * The confirmation runs are worth taking when a last look with all of them at this share
 * of the budget would test narrower than one look now at the whole (planLooks): its
 * stricter level (t(0.9975) against t(0.995)) is what the runs must make up for, about
 * 9% of the interval. Bonferroni's part for the last look while it was half the budget;
 * kept when the last look's part grew to LAST_LOOK_SHARE, which would let runs that
 * narrow the test by 3% be taken.
 */
const PAY_OFF_SHARE = 0.5;

/**
 * The false-alarm budget of each look of `lookSchedule(maxExtra)`: the looks before the
 * last share a fifth of it, the last gets the rest (Bonferroni's split, which holds
 * whatever the looks' correlation; planLooks raises the last part by correlatedLooks).
 * With no confirmation runs the single look gets it all.
 */
export function lookBudgets(
  budget: number,
  maxExtra: number,
  lastShare = LAST_LOOK_SHARE,
): number[] {
  const looks = lookSchedule(maxExtra).length;
  if (looks === 1) return [budget];
  const early = (budget * (1 - lastShare)) / (looks - 1);
  return [...Array.from({ length: looks - 1 }, () => early), budget * lastShare];
}

/**
 * The last look's share for the metrics tested once the favoured metric has failed at a
 * look (judge.ts: Holm's step). A metric tested only after the first has been rejected may
 * follow its own group-sequential boundary at the whole budget, not the first's (Tamhane,
 * Mehta and Liu, 2010, primary and secondary endpoints); with the split before round 3
 * (half on the last look) a slowdown the geomean fails at an early look is named on
 * throughput and P50 as often as before the geomean's moved to the last look. With the
 * geomean's own fifth at an early look, an A/B run of 2 blocks left a 10% slower P50
 * inconclusive 3 times in 6 (test/e2e/ab.test.ts).
 */
const RELEASED_LAST_SHARE = 0.5;

/**
 * "Run more": no metric has failed the benchmark (a clear regression needs no more runs)
 * and some gated metric is still open (compare.ts: its interval reaches past twice its
 * threshold, so the runs so far can tell neither a regression nor its absence).
 */
export function needsMoreRuns(reports: readonly BenchmarkReport[]): boolean {
  if (reports.some((r) => r.verdict === 'error')) return false;
  return metricsNeedMoreRuns(reports.flatMap((r) => r.metrics));
}

/** needsMoreRuns on the metrics of every benchmark the runs measured. */
export function metricsNeedMoreRuns(metrics: readonly Comparison[]): boolean {
  if (metrics.some((m) => m.verdict === 'regression')) return false;
  return metrics.some((m) => m.worthConfirming === true);
}

/** The looks a benchmark takes: the extra runs there are at each and its part of the budget. */
export interface LookPlan {
  schedule: number[];
  budgets: number[];
  /** Each look's part for the metrics released by the favoured one (RELEASED_LAST_SHARE); with more than one look. */
  released?: number[];
}

/** What one look of a plan judges with (judge.ts: JudgeOptions). */
export interface LookOptions {
  /** This look's part of the budget. */
  falseAlarmRate: number;
  /** Confirmation runs still to come after this look. */
  moreRuns: number;
  /** The last look's part: how far the runs left could settle an open metric. */
  lastLookRate: number;
  /** This look's part for the metrics the favoured one's failure releases (LookPlan.released). */
  releasedRate?: number;
  /** A look before the last: the tail metrics beside the favoured one are held (judge.ts). */
  holdTailMetrics?: boolean;
}

export function lookOptions({ schedule, budgets, released }: LookPlan, look: number): LookOptions {
  return {
    falseAlarmRate: budgets[look]!,
    moreRuns: schedule[schedule.length - 1]! - schedule[look]!,
    lastLookRate: budgets[budgets.length - 1]!,
    ...(released ? { releasedRate: released[look]! } : {}),
    ...(look < schedule.length - 1 ? { holdTailMetrics: true } : {}),
  };
}

/** Up to `maxExtra` confirmation runs in looks (lookSchedule) sharing `budget` (lookBudgets). */
export function sequentialPlan(budget: number, maxExtra: number): LookPlan {
  const schedule = lookSchedule(maxExtra);
  const budgets = lookBudgets(budget, maxExtra);
  if (schedule.length === 1) return { schedule, budgets };
  return { schedule, budgets, released: lookBudgets(budget, maxExtra, RELEASED_LAST_SHARE) };
}

/**
 * The looks to take for these results, decided at the first look: the sequential looks,
 * unless the confirmation runs cannot pay off for any gated metric (runsCanPayOff), and
 * then one look with the whole budget and no confirmation run. Spending parts of the
 * budget on looks that cannot help only makes the first look stricter: with day-to-day
 * drift (the current runs share one day whose offset no number of its runs can show), 10
 * more runs shrink the standard error of the change by about 3%, the last look's test
 * stays wider than a single look's at the whole budget, and the action detected a 10%
 * slowdown in 65% of pull requests where `compare`, one look, did in 79%
 * (docs/statistics.md). The choice depends on the spreads alone (run-to-run and
 * day-to-day variances, their degrees of freedom, the metrics' correlation), never on the
 * change seen: for normal noise these are independent of it, so choosing the single look
 * adds no false alarm of its own. The sequential looks' last part of the budget comes from
 * the same spreads (correlatedLooks).
 */
export function planLooks(
  members: readonly FamilyMember[],
  budget: number,
  maxExtra: number,
): LookPlan {
  const plan = sequentialPlan(budget, maxExtra);
  if (plan.schedule.length === 1) return plan;
  const family = familyLevel(members, budget);
  const spreads = members
    .flatMap(testedMetrics)
    // A confirmation run is a clean run: no more of them narrows the profile's figures.
    .filter(({ current }) => !PROFILE_METRIC_IDS.includes(current.id))
    .map(
      ({ current, baseline }) =>
        changeInterval(current, baseline, { confidence: 0.95, seed: 'plan' }).spread,
    );
  if (spreads.length === 0) return plan;
  // Judged for a last look at PAY_OFF_SHARE of the budget, not its own part or what the
  // looks' correlation adds to it: with day-to-day drift the looks are so alike that their
  // correlation would hand the last look nearly the whole budget, and a last look that
  // narrows the test by a few percent would take ten runs for nothing.
  const last = sidakLevel(budget * PAY_OFF_SHARE, Math.max(1, family.tests));
  const payOff = spreads.some(
    (spread) => spread === undefined || runsCanPayOff(spread, maxExtra, family.level, last),
  );
  return payOff
    ? correlatedLooks(plan, spreads, family.tests)
    : { schedule: [0], budgets: [budget] };
}

/**
 * The looks with the last one's part of the budget raised to all that the correlation of
 * the looks leaves unspent. Each gated metric is tested at every look at the Šidák level
 * of that look's part for the family's effective number of tests; its chance of a false
 * alarm at any look is computed for the normal limit of its statistics
 * (stats/group-sequential.ts), whose correlation √(V_k / V_j) follows from the variance of
 * the change the spread projects to each look (withMoreRuns: the current runs' part
 * shrinks, the baseline's and the days' stay), and the last look's level is the largest
 * that keeps it at the metric's level for the whole budget. The smallest such level over
 * the metrics holds for all (a larger correlation only lowers the chance, Slepian's
 * inequality). With the family's metrics each within their whole-budget level, the family
 * stays within the budget as with one look. Looks the spreads cannot project (a request
 * bootstrap) keep Bonferroni's split (lookBudgets), which holds whatever the correlation.
 */
export function correlatedLooks(
  plan: LookPlan,
  spreads: readonly (LogSpread | undefined)[],
  tests: number,
): LookPlan {
  if (plan.budgets.length < 2 || spreads.length === 0) return plan;
  const raise = (budgets: number[]) =>
    withCorrelatedLast(plan.schedule, budgets, spreads, Math.max(1, tests)) ?? budgets;
  return {
    schedule: plan.schedule,
    budgets: raise(plan.budgets),
    ...(plan.released ? { released: raise(plan.released) } : {}),
  };
}

/** `budgets` with the last part raised as correlatedLooks says; undefined where a spread cannot be projected. */
function withCorrelatedLast(
  schedule: readonly number[],
  budgets: readonly number[],
  spreads: readonly (LogSpread | undefined)[],
  count: number,
): number[] | undefined {
  const budget = budgets.reduce((s, b) => s + b, 0);
  const early = budgets.slice(0, -1).map((b) => sidakLevel(b, count));
  const whole = sidakLevel(budget, count);
  let last = whole;
  // Metrics of one pooled spread have the same correlations (their variances scale alike).
  const solved = new Map<string, number | undefined>();
  for (const spread of spreads) {
    if (spread === undefined) return undefined;
    const variances = schedule.map((extra) => withMoreRuns(spread, extra).se ** 2);
    const information = variances.map((v) => variances[0]! / v);
    const key = information.map((t) => t.toPrecision(12)).join();
    if (!solved.has(key)) solved.set(key, lastLookLevel(information, early, whole));
    const level = solved.get(key);
    if (level === undefined) return undefined;
    last = Math.min(last, level);
  }
  // The family's part for that per-metric level: Šidák's, inverted.
  const lastBudget = -Math.expm1(count * Math.log1p(-last));
  return [...budgets.slice(0, -1), Math.max(budgets[budgets.length - 1]!, lastBudget)];
}

/**
 * Whether `more` confirmation runs could pay off for a metric of this spread: the last
 * look's one-sided test (at `lastLevel`, with all of them) would be narrower than one
 * look's now at the whole budget (`wholeLevel`). Earlier looks have fewer runs and
 * stricter levels still, so when the last cannot beat one look, no look can.
 */
export function runsCanPayOff(
  spread: LogSpread,
  more: number,
  wholeLevel: number,
  lastLevel: number,
): boolean {
  const now = studentTQuantile(1 - wholeLevel, spread.df) * spread.se;
  const projected = withMoreRuns(spread, more);
  return studentTQuantile(1 - lastLevel, projected.df) * projected.se < now;
}

/**
 * What the confirmation runs changed, for the report: the runs they took (and, for a
 * sweep's capacity, the passes of the whole sweep; for a server's start-up, its
 * confirmation restarts), the verdict and metrics before them.
 */
export function withConfirmation(
  report: BenchmarkReport,
  before: readonly BenchmarkReport[],
  runs: number,
  more: { sweepPasses?: number; restarts?: number } = {},
): BenchmarkReport {
  const earlier = before.find((b) => b.name === report.name);
  return {
    ...report,
    confirmation: {
      runs,
      ...(more.sweepPasses !== undefined ? { sweepPasses: more.sweepPasses } : {}),
      ...(more.restarts !== undefined ? { restarts: more.restarts } : {}),
      verdictBefore: earlier?.verdict ?? 'error',
      metricsBefore: (earlier?.metrics ?? []).map(({ id, verdict, change }) => ({
        id,
        verdict,
        change,
      })),
    },
  };
}

// Day-to-day drift of a stored baseline: a one-way ANOVA of runs within records (days),
// its F test, and the spread of a change when the days differ more than their runs do.

import { meanOf } from './mean.js';
import { fUpperTail, type LogSpread } from './spread.js';

/**
 * Level of the F test that decides whether the baseline's records (days) differ more than
 * their runs do. Drift it misses lets false alarms through (with the window's 5 records
 * alone, 2.2% of gate runs without the test, 0.5% at 5%, 1.1% at 1% in bench:accuracy),
 * while drift it sees where there is none costs detection: the interval becomes wide and
 * the confirmation runs are not taken (at 5% with 20 stored records, 4% of 10% slowdowns
 * at run CV 5% were lost so). Few records see little, so the test is lenient with them;
 * from DRIFT_MANY_RECORDS on (19 degrees of freedom with the 20 stored by default) it
 * sees a day CV of 2% at run CV 1.5% every time at the stricter level.
 */
export function driftTestLevel(records: number): number {
  return records >= DRIFT_MANY_RECORDS ? 0.01 : 0.05;
}

/** Records (the window's and the older) from which the drift test is strict (driftTestLevel). */
const DRIFT_MANY_RECORDS = 10;

/**
 * Standard error and degrees of freedom of the difference of mean logs when the
 * baseline's records differ by more than their runs do (day-to-day drift: another
 * machine, a driver update, a warmer room). A one-way random-effects model, runs within
 * records: the current runs all share one day, so the day-to-day variance τ² enters in
 * full for them and once more through the baseline's mean of records, while the
 * run-to-run variance σ² is pooled within the records and within the current runs.
 * τ² is the ANOVA estimate from the record means, (MSB − MSW) / n0, and the degrees of
 * freedom are Satterthwaite's over the two components: with little drift they stay near
 * those of σ², with much drift they fall towards the records' count − 1, so that five
 * records give an honestly wide interval. Undefined when an F test of the record means
 * against the runs within them finds no drift at driftTestLevel, or there are fewer
 * than two records (then a run is a run: logSpread).
 *
 * `older` records (stored beyond the baseline's window, same benchmark and environment)
 * join the records in the ANOVA only: in σ², in the record means of τ² and its F test,
 * never in the baseline's mean, whose own records alone weigh the drift of its estimate.
 * Five records that happen to agree then no longer hide a drift twenty records show,
 * and τ² has about 19 degrees of freedom instead of 4.
 */
export function driftSpread(
  current: number[],
  records: number[][],
  older: number[][] = [],
): LogSpread | undefined {
  const anova = dayAnova(current, records, older);
  if (!anova) return undefined;
  const { msw, msb, dfWithin, records: R } = anova;
  if (msb <= msw || fUpperTail(msb / msw, R - 1, dfWithin) >= driftTestLevel(R)) return undefined;
  const tau2 = (msb - msw) / anova.n0;
  // τ̂²'s own degrees of freedom: 2 τ̂⁴ / Var(τ̂²).
  const dfTau = (msb - msw) ** 2 / (msb ** 2 / (R - 1) + msw ** 2 / dfWithin);
  const dayPart = tau2 * anova.dayFactor;
  const runPart = msw * anova.runFactor;
  const variance = dayPart + runPart;
  const df = variance ** 2 / (dayPart ** 2 / dfTau + runPart ** 2 / dfWithin);
  return {
    se: Math.sqrt(variance),
    df: Math.max(1, df),
    perRun: msw,
    runs: current.length,
    drift: true,
    dayVariance: tau2,
    dayDf: dfTau,
    dayPart,
    withinDf: dfWithin,
  };
}

/** The one-way ANOVA of runs within records (days) that driftSpread's model rests on. */
export interface DayAnova {
  /** Mean square within the records and within the current runs (σ²'s estimate). */
  msw: number;
  dfWithin: number;
  /** Mean square between the record means, over every record (window and older). */
  msb: number;
  /** Records in the ANOVA. */
  records: number;
  /** The records' effective size: E[MSB] = σ² + n0 τ² (3 for records of 3 runs). */
  n0: number;
  /**
   * Var(difference) = τ² dayFactor + σ² runFactor: dayFactor = 1 + Σ m_r² / M² over the
   * baseline's own records (the current day's drift, and that its mean of M runs from
   * those days carries), runFactor = 1 / n + 1 / M.
   */
  dayFactor: number;
  runFactor: number;
}

/**
 * The ANOVA of driftSpread (which see for the model): undefined with fewer than two
 * records, no baseline or current run, or no run-to-run degree of freedom.
 */
export function dayAnova(
  current: readonly number[],
  records: readonly (readonly number[])[],
  older: readonly (readonly number[])[] = [],
): DayAnova | undefined {
  const own = records.filter((g) => g.length > 0);
  const groups = [...own, ...older.filter((g) => g.length > 0)];
  const R = groups.length;
  // The baseline's own runs: its mean is of these alone.
  const M = own.reduce((s, g) => s + g.length, 0);
  if (R < 2 || M < 1 || current.length < 1) return undefined;
  let within = 0;
  let dfWithin = 0;
  for (const group of [...groups, current]) {
    const mean = meanOf(group);
    within += group.reduce((s, v) => s + (v - mean) ** 2, 0);
    dfWithin += group.length - 1;
  }
  if (dfWithin < 1) return undefined;
  const grand = meanOf(groups.flat());
  const all = groups.reduce((s, g) => s + g.length, 0);
  const allSquares = groups.reduce((s, g) => s + g.length ** 2, 0);
  const squares = own.reduce((s, g) => s + g.length ** 2, 0);
  return {
    msw: within / dfWithin,
    dfWithin,
    msb: groups.reduce((s, g) => s + g.length * (meanOf(g) - grand) ** 2, 0) / (R - 1),
    records: R,
    n0: (all - allSquares / all) / (R - 1),
    dayFactor: 1 + squares / M ** 2,
    runFactor: 1 / current.length + 1 / M,
  };
}

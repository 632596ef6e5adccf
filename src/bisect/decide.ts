// Is a commit like the good end or like the bad end of a bisection? Not a threshold on its
// own change: the commit's runs are placed between the two ends measured at the start,
// and it is called good or bad only when the interval of that place lies wholly on one
// side of the midpoint. Otherwise the answer is open and it needs more runs.

import { studentTQuantile } from '../stats/distributions.js';
import { median } from '../stats/percentile.js';
import { meanOf } from '../stats/mean.js';
import { logsOf, pooledNoise } from '../stats/pooled.js';

export type CommitVerdict = 'good' | 'bad' | 'more';

export interface CommitDecision {
  verdict: CommitVerdict;
  /** Where the commit lies between the ends, on the log scale: 0 = good, 1 = bad. */
  position: number;
  /** The interval of `position` at the confidence asked for. */
  interval: [number, number];
}

/**
 * Places a commit between the ends from per-run values of one metric (positive numbers,
 * compared on the log scale like the gate's intervals). The three sides are runs of the
 * same benchmark on the same machine, so their run-to-run spread is pooled: with the
 * ends' runs behind it, two runs of a commit can already decide.
 *
 * The test is on d = mean(commit) − (mean(good) + mean(bad)) / 2: the commit is bad when
 * it is surely nearer the bad end (d on the bad side of 0 at `confidence`), good when
 * surely nearer the good end. The ends must differ (see chooseMetric); otherwise this throws.
 */
export function decideCommit(
  good: readonly number[],
  bad: readonly number[],
  commit: readonly number[],
  confidence: number,
): CommitDecision {
  const [g, b, c] = [logs(good, 'good'), logs(bad, 'bad'), logs(commit, 'commit')];
  const step = meanOf(b) - meanOf(g);
  if (step === 0) throw new RangeError('decideCommit: the good and bad ends measure the same');
  const d = meanOf(c) - (meanOf(g) + meanOf(b)) / 2;
  const position = 0.5 + d / step;
  const noise = pooledNoise([g, b, c]);
  if (noise.df < 1) return { verdict: 'more', position, interval: [-Infinity, Infinity] };
  const se = Math.sqrt(noise.variance * (1 / c.length + 1 / (4 * g.length) + 1 / (4 * b.length)));
  const half = (studentTQuantile(1 - (1 - confidence) / 2, noise.df) * se) / Math.abs(step);
  const interval: [number, number] = [position - half, position + half];
  const verdict: CommitVerdict = interval[0] > 0.5 ? 'bad' : interval[1] < 0.5 ? 'good' : 'more';
  return { verdict, position, interval };
}

/**
 * The nearer end when the runs ran out before the answer was sure, by medians: a runs
 * bound is reached mostly when a stalled run or two widened the interval, and a median
 * is not moved by them.
 */
export function nearerEnd(
  good: readonly number[],
  bad: readonly number[],
  commit: readonly number[],
): 'good' | 'bad' {
  const [g, b, c] = [median(good), median(bad), median(commit)];
  return Math.abs(Math.log(c / b)) < Math.abs(Math.log(c / g)) ? 'bad' : 'good';
}

function logs(values: readonly number[], side: string): number[] {
  const result = logsOf(values);
  if (result.length === 0) {
    throw new RangeError(`decideCommit: no positive values on the ${side} side`);
  }
  return result;
}

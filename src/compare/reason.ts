import { isTimeUnit } from '../formats/units.js';
import type { Direction, MetricVerdict } from '../model.js';
import type { OneValueStep } from './one-value.js';
import { MIN_BOOTSTRAP_SAMPLES, type IntervalMethod } from '../stats/interval.js';
import type { BlockGap } from '../stats/paired.js';
import { confidencePercent } from '../text/percent.js';

export interface VerdictFacts {
  change: number;
  ci: [number, number] | null;
  threshold: number | null;
  verdict: MetricVerdict;
  unit: string;
  /** A time read as slower or faster only when smaller is better. */
  direction?: Direction;
  confidence: number;
  method: IntervalMethod;
  /** Confidence of the interval the regression test used (the gate's budget per run). */
  testConfidence?: number;
  /** The stored records (the baseline's, and older ones) differ more than their runs: day-to-day drift widened the interval. */
  drift?: boolean;
  /**
   * Without an interval: the fewest per-request samples a side has (0: none) and whether
   * the metric is a percentile of them, to say why there is none.
   */
  samples?: { fewest: number; percentile: boolean };
  /** Stored records whose means the noise was learned from (stats/history-spread.ts). */
  history?: number;
  /** Runs each of those records holds, when more than one (a sweep summary's 2). */
  historyRuns?: number;
  /**
   * Few current runs and no stored history to lend its spread (FEW_RUNS): the current runs
   * that would settle the change seen, null when no number of them would (the baseline's
   * own few runs limit it).
   */
  settleRuns?: { runs: number; needed: number | null };
  /** The relative SDs the files state for one value a side (compare/stated.ts). */
  stated?: { current: number; baseline: number };
  /** One value a commit: whether the previous commit's value confirms it (one-value.ts). */
  oneValue?: OneValueStep;
  /** A regression an early look may not call (CompareOptions.held): the runs left decide. */
  held?: boolean;
  /** Outlier runs left out of the interval. */
  excluded?: readonly { side: 'baseline' | 'current'; change: number }[];
  /** A/B: blocks a side has no value in, left out of the pairing, and the blocks paired. */
  pairing?: { paired: number; gaps: readonly BlockGap[] };
}

/**
 * One sentence on why a metric got its verdict, e.g.
 * "8.1% slower (95% CI 6.0% to 10.2%), beyond the 5% threshold".
 */
export function describeVerdict(facts: VerdictFacts): string {
  return sentence(facts) + outliers(facts) + blockGaps(facts);
}

/** The side each BlockGap names: blocks are A/B's, whose current side is the head. */
const GAP_SIDE: Record<BlockGap['missing'], string> = {
  current: 'head has no value',
  baseline: 'base has no value',
  both: 'neither side has a value',
};

/** "; block 3: base has no value, not paired" for each block left out (VerdictFacts.pairing). */
function blockGaps(facts: VerdictFacts): string {
  const gaps = facts.pairing?.gaps ?? [];
  return gaps
    .map((gap) => `; block ${gap.block + 1}: ${GAP_SIDE[gap.missing]}, not paired`)
    .join('');
}

function sentence(facts: VerdictFacts): string {
  const { change, ci, threshold, verdict } = facts;
  const what =
    change === 0
      ? 'no change'
      : `${(Math.abs(change) * 100).toFixed(1)}% ${changeWord(change, facts.unit, facts.direction)}`;
  const interval = ci ? ` (${intervalText(change, ci, facts.confidence)})` : '';
  if (threshold === null) return `${what}${interval}; not gated (no threshold set)`;
  const limit = `the ${percent(threshold)} threshold`;
  switch (verdict) {
    case 'regression':
    case 'improvement':
      return ci
        ? `${what}${interval}, beyond ${limit}${drift(facts)}${confirmedBy(facts)}`
        : `${what}, beyond ${limit} (low confidence: ${lowConfidenceWhy(facts)})`;
    case 'inconclusive':
      if (facts.oneValue?.step === 'first') {
        return (
          `${what}${interval}, beyond ${limit}${drift(facts)}, but one value cannot tell a ` +
          'step from a one-commit spike: inconclusive until the next commit confirms it'
        );
      }
      if (facts.held) {
        return (
          `${what}${interval}, beyond ${limit}${drift(facts)}; held for the confirmation runs: ` +
          'before the last look a metric one slow request moves fails a benchmark only once ' +
          'the geometric mean of the latencies has'
        );
      }
      return (
        (ci && !includesZero(ci)
          ? `${what}${interval}, beyond ${limit}, but not clear enough for the gate's ` +
            `${confidencePercent(facts.testConfidence ?? facts.confidence)} test, which keeps false ` +
            `alarms per gate run within budget across all gated metrics: inconclusive${drift(facts)}`
          : `${what}${interval}, beyond ${limit}, but the interval includes no change: inconclusive${drift(facts)}`) +
        settleText(facts)
      );
    default: {
      const side =
        Math.abs(change) > threshold
          ? `beyond ${limit}, but the interval includes no change`
          : `within ${limit}`;
      const why = ci
        ? facts.history || facts.stated
          ? drift(facts)
          : ''
        : ` (low confidence: ${lowConfidenceWhy(facts)})`;
      return `${what}${interval}, ${side}${why}`;
    }
  }
}

/**
 * "; 2 runs are few and no stored history lends its spread: 6 current runs would settle a
 * change this large": what an inconclusive metric of few runs needs (VerdictFacts.settleRuns).
 */
function settleText(facts: VerdictFacts): string {
  const settle = facts.settleRuns;
  if (!settle) return '';
  const few = `; ${settle.runs} run${settle.runs === 1 ? ' is' : 's are'} few and no stored history lends its spread`;
  return settle.needed === null
    ? `${few}, and no number of current runs would settle it against so few baseline runs: store records of this benchmark (or give more baseline runs) first`
    : `${few}: ${settle.needed} current runs would settle a change this large (95% of the time)`;
}

/** "; a regression even without the outlier runs: 1 baseline run (31.2% from the others)". */
function outliers(facts: VerdictFacts): string {
  const runs = facts.excluded ?? [];
  if (runs.length === 0) return '';
  const side = (name: 'baseline' | 'current') => {
    const of = runs.filter((r) => r.side === name);
    if (of.length === 0) return [];
    const changes = of.map((r) => signedPercent(r.change)).join(', ');
    return [`${of.length} ${name} run${of.length === 1 ? '' : 's'} (${changes} from the others)`];
  };
  return `; a regression even without the outlier runs: ${[...side('baseline'), ...side('current')].join(' and ')}`;
}

function includesZero(ci: [number, number]): boolean {
  return ci[0] <= 0 && ci[1] >= 0;
}

/** "; the previous commit's value was beyond it too (+21.0%)": two in a row, not a spike. */
function confirmedBy(facts: VerdictFacts): string {
  const step = facts.oneValue;
  if (step?.step !== 'confirmed') return '';
  return `; the previous commit's value was beyond it too (${signedPercent(step.previous)}), so it is no one-commit spike`;
}

/** A request bootstrap sees one run a side: what happens between runs is not in it. */
function drift(facts: VerdictFacts): string {
  if (facts.stated) {
    const { current, baseline } = facts.stated;
    return (
      ` (one value a side: the noise the files state in their range, ±${(current * 100).toFixed(1)}% ` +
      `this run's and ±${(baseline * 100).toFixed(1)}% the baseline's, which within one run can be ` +
      'smaller than between runs)'
    );
  }
  if (facts.history && facts.historyRuns) {
    return (
      ` (${facts.historyRuns} runs a side: the noise learned from the means of ` +
      `${facts.history} stored records of ${facts.historyRuns} runs each)`
    );
  }
  if (facts.history) {
    return ` (one value a run: the noise learned from ${facts.history} stored records of one value each)`;
  }
  if (facts.drift) {
    return ' (the stored records differ more than their runs: the interval includes that day-to-day drift)';
  }
  if (facts.method === 'paired-t')
    return ' (both sides measured in alternating blocks on this host)';
  return facts.method === 'request-bootstrap'
    ? ' (one run a side: the interval covers request-to-request noise only, not run-to-run drift)'
    : '';
}

function lowConfidenceWhy(facts: VerdictFacts): string {
  if (facts.pairing) {
    const { paired } = facts.pairing;
    return (
      `no pairing: ${paired} block${paired === 1 ? ' has' : 's have'} a value of both sides, ` +
      'fewer than the 2 a paired interval needs, and runs of different blocks are not ' +
      'compared (the host may drift between them), so the threshold alone decides: there is no interval'
    );
  }
  const samples = facts.samples;
  if (!samples || samples.fewest === 0) {
    return 'no noise estimate: a side has one run, and this metric has no per-request samples and no stored single-value history, and the files state no range the gate can read, so the threshold alone decides: there is no interval';
  }
  if (!samples.percentile) {
    return 'a side has one run, and per-request samples give an interval for percentiles only';
  }
  return (
    `a side has one run and ${samples.fewest} per-request samples, fewer than the ` +
    `${MIN_BOOTSTRAP_SAMPLES} a request bootstrap needs, so there is no interval`
  );
}

/** The interval in the direction of the words: "8.1% slower (95% CI 6.0% to 10.2%)". */
function intervalText(change: number, ci: [number, number], confidence: number): string {
  const [low, high] = change < 0 ? [-ci[1], -ci[0]] : ci;
  return `${confidencePercent(confidence)} CI ${signedPercent(low)} to ${signedPercent(high)}`;
}

/**
 * Times where smaller is better (latencies) read as slower/faster; everything else,
 * a time where bigger is better too, as higher/lower.
 */
function changeWord(change: number, unit: string, direction: Direction | undefined): string {
  if (isTimeUnit(unit) && direction !== 'higher-is-better') return change > 0 ? 'slower' : 'faster';
  return change > 0 ? 'higher' : 'lower';
}

/** A threshold: 5%, 2.5%. */
function percent(fraction: number): string {
  const value = fraction * 100;
  return `${Number.isInteger(value) ? value : Number(value.toFixed(1))}%`;
}

function signedPercent(fraction: number): string {
  const value = (fraction * 100).toFixed(1);
  return value.startsWith('-') ? `−${value.slice(1)}%` : `${value}%`;
}

// The bisection itself, with the measuring left to a Measurer (real git worktrees and
// benchmark runs in the CLI, drawn samples in the bench): measure both ends, pick the
// metric they differ on, then halve the commits between them, giving each commit runs
// only while its answer is open. A commit that cannot be built or run is skipped, as with
// `git bisect skip`: its nearest untried neighbour is measured instead, and when only
// skipped commits are left between the last good and the first bad one, the answer is
// that range.

import type { Environment, Metric } from '../model.js';
import { logsOf, pooledChange, pooledNoise } from '../stats/pooled.js';
import { decideCommit, nearerEnd, type CommitDecision } from './decide.js';
import { allEndsChanges, chooseMetric, type EndsChange } from './ends.js';

/** What a commit measured so far: every run of it, not only the newest. */
export interface Measured {
  metrics: Metric[];
  environment: Environment;
  runs: number;
}

export interface Measurer {
  /**
   * Runs the benchmark `runs` more times at `commit`; returns all its runs so far. Throws
   * UnmeasurableCommit when the commit cannot be built or run (it is then skipped).
   */
  measure(commit: string, runs: number): Promise<Measured>;
  /** Done with `commit` (its worktree can go). */
  release(commit: string): Promise<void>;
}

export interface SearchOptions {
  /** The last known good commit. */
  good: string;
  /** Commits after `good` up to and including the bad one, oldest first. */
  candidates: readonly string[];
  /** Confidence of every decision, e.g. 0.99. */
  confidence: number;
  /** Runs each end starts with. */
  endRuns: number;
  /** Runs a commit between starts with. */
  commitRuns: number;
  /** At most this many runs of any one commit, ends included. */
  maxRuns: number;
  /** Bisect this metric; by default the one the ends differ on most clearly. */
  metric?: string;
  /** Progress, one line per event. */
  progress?: (line: string) => void;
}

/** How one commit compares with both ends. */
export interface Versus {
  change: number;
  ci: [number, number] | null;
}

export interface Step {
  commit: string;
  /** 1-based position among the candidates. */
  index: number;
  runs: number;
  verdict: 'good' | 'bad';
  /** The runs ran out before the answer was sure; `verdict` is the nearer end. */
  uncertain: boolean;
  decision: CommitDecision;
  versusGood: Versus;
  versusBad: Versus;
  /** Surely different from both ends: a partial step (several changes, or a gradual one). */
  between: boolean;
  environment: Environment;
}

/** A commit between the ends that could not be built or measured, so was skipped. */
export interface SkippedCommit {
  commit: string;
  /** 1-based position among the candidates. */
  index: number;
  /** What failed (the hook's exit, a failed run, an unreadable result), one message. */
  reason: string;
}

export interface EndSummary {
  commit: string;
  runs: number;
  environment: Environment;
}

export interface SearchResult {
  metric: EndsChange;
  good: EndSummary;
  bad: EndSummary;
  steps: Step[];
  /** The first commit measured that measures like the bad end. */
  firstBad: string;
  /** The last commit measured before it that measures like the good end. */
  lastGood: string;
  /**
   * Skipped commits between lastGood and firstBad, oldest first. Empty: firstBad is the
   * first bad commit. Otherwise the first bad commit is one of these or firstBad.
   */
  undecided: string[];
  /** Every commit skipped, in the order tried. */
  skipped: SkippedCommit[];
  /** firstBad against lastGood on the bisected metric. */
  step: Versus;
  environments: { firstBad: Environment; lastGood: Environment };
  /** Runs of the benchmark in all, ends included. */
  totalRuns: number;
}

/** Why a bisection could not start or finish; the CLI prints it as the error. */
export class BisectError extends Error {
  override name = 'BisectError';

  /** The CLI's exit code: 2 for what the user gave, 3 when a commit could not be measured. */
  constructor(
    message: string,
    readonly exitCode: 2 | 3 = 2,
  ) {
    super(message);
  }
}

/**
 * A commit that cannot be built or run (the --command hook or a benchmark run failed,
 * or its result cannot be read): skipped between the ends, fatal at an end.
 */
export class UnmeasurableCommit extends BisectError {
  override name = 'UnmeasurableCommit';

  constructor(message: string) {
    super(message, 3);
  }
}

export async function bisect(measurer: Measurer, options: SearchOptions): Promise<SearchResult> {
  const say = options.progress ?? (() => {});
  const bad = options.candidates.at(-1);
  if (bad === undefined) throw new BisectError('no commits between good and bad');
  const ends = await measureEnds(measurer, options, bad);
  const metric = ends.metric;
  say(`ends: ${metric.id} ${describeChange(metric.change, metric.ci)} from good to bad`);
  const valuesOf = (measured: Measured) => metricOf(measured, metric.id).values;
  const goodValues = valuesOf(ends.good);
  const badValues = valuesOf(ends.bad);

  const measuredAt = new Map<string, Measured>([
    [options.good, ends.good],
    [bad, ends.bad],
  ]);
  const steps: Step[] = [];
  const skipped: SkippedCommit[] = [];
  const skippedAt = new Set<number>();
  let totalRuns = ends.good.runs + ends.bad.runs;
  // lo: index of the newest commit known good (-1 = the good end); hi: the oldest known bad.
  let lo = -1;
  let hi = options.candidates.length - 1;
  for (;;) {
    const index = nextToTry(lo, hi, skippedAt);
    if (index === undefined) break;
    const commit = options.candidates[index]!;
    let measured: Measured;
    let decision: CommitDecision;
    try {
      measured = await measurer.measure(commit, Math.min(options.commitRuns, options.maxRuns));
      decision = decideCommit(goodValues, badValues, valuesOf(measured), options.confidence);
      while (decision.verdict === 'more' && measured.runs < options.maxRuns) {
        measured = await measurer.measure(commit, 1);
        decision = decideCommit(goodValues, badValues, valuesOf(measured), options.confidence);
      }
    } catch (error) {
      if (!(error instanceof UnmeasurableCommit)) throw error;
      await measurer.release(commit);
      skippedAt.add(index);
      skipped.push({ commit, index: index + 1, reason: error.message });
      say(
        `skipped ${commit.slice(0, 7)} (${index + 1} of ${options.candidates.length}): it cannot be measured`,
      );
      continue;
    }
    await measurer.release(commit);
    totalRuns += measured.runs;
    const verdict =
      decision.verdict === 'more'
        ? nearerEnd(goodValues, badValues, valuesOf(measured))
        : decision.verdict;
    measuredAt.set(commit, measured);
    const step = describeStep(commit, index, measured, decision, verdict, ends, metric.id, options);
    steps.push(step);
    say(
      `step ${steps.length}: ${commit.slice(0, 7)} (${index + 1} of ${options.candidates.length}) ${step.verdict}` +
        `${step.uncertain ? ' (uncertain: runs ran out)' : ''} after ${measured.runs} run(s)`,
    );
    if (step.verdict === 'bad') hi = index;
    else lo = index;
  }
  const firstBad = options.candidates[hi]!;
  const lastGood = lo === -1 ? options.good : options.candidates[lo]!;
  const after = measuredAt.get(firstBad)!;
  const before = measuredAt.get(lastGood)!;
  return {
    metric,
    good: { commit: options.good, runs: ends.good.runs, environment: ends.good.environment },
    bad: { commit: bad, runs: ends.bad.runs, environment: ends.bad.environment },
    steps,
    firstBad,
    lastGood,
    undecided: options.candidates.slice(lo + 1, hi),
    skipped,
    step: versus(
      metricOf(after, metric.id),
      metricOf(before, metric.id),
      [ends.good, ends.bad]
        .filter((end) => end !== after && end !== before)
        .map((end) => metricOf(end, metric.id)),
      options.confidence,
    ),
    environments: { firstBad: after.environment, lastGood: before.environment },
    totalRuns,
  };
}

/**
 * The commit to measure next between lo and hi (exclusive): the middle one, or when it
 * was skipped the untried one nearest to the middle (after it, then before it, and so
 * on), which still nearly halves the range. Undefined when none is left.
 */
export function nextToTry(
  lo: number,
  hi: number,
  skipped: ReadonlySet<number>,
): number | undefined {
  const middle = Math.floor((lo + hi) / 2);
  for (let offset = 0; offset < hi - lo; offset += 1) {
    for (const index of [middle - offset, middle + offset + 1]) {
      if (index > lo && index < hi && !skipped.has(index)) return index;
    }
  }
  return undefined;
}

/**
 * Both ends, `endRuns` each, then one more run of each while no metric separates them,
 * up to `maxRuns`. Their worktrees are released once they differ.
 */
async function measureEnds(
  measurer: Measurer,
  options: SearchOptions,
  bad: string,
): Promise<{ good: Measured; bad: Measured; metric: EndsChange }> {
  const first = Math.min(options.endRuns, options.maxRuns);
  let good = await measureEnd(measurer, options.good, first, '--good');
  let badEnd = await measureEnd(measurer, bad, first, '--bad');
  let metric = chooseMetric(good.metrics, badEnd.metrics, options.confidence, options.metric);
  while (metric === undefined && good.runs < options.maxRuns) {
    good = await measureEnd(measurer, options.good, 1, '--good');
    badEnd = await measureEnd(measurer, bad, 1, '--bad');
    metric = chooseMetric(good.metrics, badEnd.metrics, options.confidence, options.metric);
  }
  await measurer.release(options.good);
  await measurer.release(bad);
  if (metric === undefined) throw new BisectError(noDifference(good, badEnd, options));
  return { good, bad: badEnd, metric };
}

/** An end is the yardstick of every decision: one that cannot be measured stops bisect. */
async function measureEnd(
  measurer: Measurer,
  commit: string,
  runs: number,
  flag: string,
): Promise<Measured> {
  try {
    return await measurer.measure(commit, runs);
  } catch (error) {
    if (!(error instanceof UnmeasurableCommit)) throw error;
    throw new BisectError(
      `${error.message}\nThe ${flag} end must be measured (only commits between the ends can be skipped): choose another ${flag} commit, or fix the --command hook.`,
      3,
    );
  }
}

function noDifference(good: Measured, bad: Measured, options: SearchOptions): string {
  const changes = allEndsChanges(good.metrics, bad.metrics, options.confidence).filter(
    (change) => options.metric === undefined || change.id === options.metric,
  );
  const known = good.metrics.map((m) => m.id);
  if (options.metric !== undefined && !known.includes(options.metric)) {
    return `the benchmark measures no metric '${options.metric}'; it measures ${known.join(', ')}`;
  }
  const lines = changes.map((c) => `  ${c.id}: ${describeChange(c.change, c.ci)}`);
  const what =
    options.metric === undefined
      ? 'no metric is surely worse at the bad commit than at the good one'
      : `${options.metric} does not surely differ between the good and the bad commit`;
  return (
    `${what} after ${good.runs} run(s) of each, so there is nothing to bisect:\n${lines.join('\n')}\n` +
    'Check that --bad really is slower (run the gate on both), or allow more runs (--max-runs).'
  );
}

function describeStep(
  commit: string,
  index: number,
  measured: Measured,
  decision: CommitDecision,
  verdict: 'good' | 'bad',
  ends: { good: Measured; bad: Measured },
  id: string,
  options: SearchOptions,
): Step {
  const uncertain = decision.verdict === 'more';
  const metric = metricOf(measured, id);
  const [good, bad] = [metricOf(ends.good, id), metricOf(ends.bad, id)];
  const versusGood = versus(metric, good, [bad], options.confidence);
  const versusBad = versus(metric, bad, [good], options.confidence);
  const excludesZero = (v: Versus) => v.ci !== null && (v.ci[0] > 0 || v.ci[1] < 0);
  return {
    commit,
    index: index + 1,
    runs: measured.runs,
    verdict,
    uncertain,
    decision,
    versusGood,
    versusBad,
    between: excludesZero(versusGood) && excludesZero(versusBad),
    environment: measured.environment,
  };
}

/** `current` against `reference`, with the run-to-run noise pooled over `alongside` too. */
function versus(
  current: Metric,
  reference: Metric,
  alongside: readonly Metric[],
  confidence: number,
): Versus {
  const [a, b] = [logsOf(current.values), logsOf(reference.values)];
  const noise = pooledNoise([a, b, ...alongside.map((m) => logsOf(m.values))]);
  return pooledChange(a, b, noise, confidence);
}

function metricOf(measured: Measured, id: string): Metric {
  const metric = measured.metrics.find((m) => m.id === id);
  if (!metric) {
    throw new UnmeasurableCommit(
      `the runs did not measure ${id} (they measured ${measured.metrics.map((m) => m.id).join(', ') || 'nothing'})`,
    );
  }
  return metric;
}

/** `−5.6% (CI −6.2% to −5.0%)` */
export function describeChange(change: number, ci: [number, number] | null): string {
  const interval = ci ? ` (CI ${signed(ci[0])} to ${signed(ci[1])})` : '';
  return `${signed(change)}${interval}`;
}

function signed(fraction: number): string {
  const text = (fraction * 100).toFixed(1);
  return text.startsWith('-') ? `−${text.slice(1)}%` : `+${text}%`;
}

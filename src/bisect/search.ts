// The bisection itself, with the measuring left to a Measurer (real git worktrees and
// benchmark runs in the CLI, drawn samples in the bench): measure both ends, pick the
// metric they differ on, then halve the commits between them, giving each commit runs
// only while its answer is open.

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
  /** Runs the benchmark `runs` more times at `commit`; returns all its runs so far. */
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
  /** The first commit that measures like the bad end. */
  firstBad: string;
  /** Its parent in the candidates' order: the last that measures like the good end. */
  lastGood: string;
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
  let totalRuns = ends.good.runs + ends.bad.runs;
  // lo: index of the newest commit known good (-1 = the good end); hi: the oldest known bad.
  let lo = -1;
  let hi = options.candidates.length - 1;
  while (hi - lo > 1) {
    const index = Math.floor((lo + hi) / 2);
    const commit = options.candidates[index]!;
    let measured = await measurer.measure(commit, Math.min(options.commitRuns, options.maxRuns));
    let decision = decideCommit(goodValues, badValues, valuesOf(measured), options.confidence);
    while (decision.verdict === 'more' && measured.runs < options.maxRuns) {
      measured = await measurer.measure(commit, 1);
      decision = decideCommit(goodValues, badValues, valuesOf(measured), options.confidence);
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
 * Both ends, `endRuns` each, then one more run of each while no metric separates them,
 * up to `maxRuns`. Their worktrees are released once they differ.
 */
async function measureEnds(
  measurer: Measurer,
  options: SearchOptions,
  bad: string,
): Promise<{ good: Measured; bad: Measured; metric: EndsChange }> {
  const first = Math.min(options.endRuns, options.maxRuns);
  let good = await measurer.measure(options.good, first);
  let badEnd = await measurer.measure(bad, first);
  let metric = chooseMetric(good.metrics, badEnd.metrics, options.confidence, options.metric);
  while (metric === undefined && good.runs < options.maxRuns) {
    good = await measurer.measure(options.good, 1);
    badEnd = await measurer.measure(bad, 1);
    metric = chooseMetric(good.metrics, badEnd.metrics, options.confidence, options.metric);
  }
  await measurer.release(options.good);
  await measurer.release(bad);
  if (metric === undefined) throw new BisectError(noDifference(good, badEnd, options));
  return { good, bad: badEnd, metric };
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
  if (!metric) throw new BisectError(`a commit's runs did not measure ${id}`);
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

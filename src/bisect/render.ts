// What bisect prints: the first bad commit, its step against its parent with an interval,
// what changed in the environment there, and every step taken; as text or as JSON.

import {
  describeDifference,
  fingerprintDifferences,
  type FingerprintDifference,
} from '../environment/fingerprint.js';
import { short, type Commit } from './commits.js';
import { describeChange, type SearchResult, type Step } from './search.js';

export interface BisectReport {
  schemaVersion: 1;
  benchmark: string;
  confidence: number;
  metric: { id: string; unit: string; direction: string };
  good: { commit: string; runs: number };
  bad: { commit: string; runs: number };
  /** bad against good on the metric. */
  ends: { change: number; ci: [number, number] | null };
  /** The oldest commit measured bad. The first bad commit when `undecided` is empty. */
  firstBad: Commit;
  /** The newest commit measured good (or the good end) before firstBad. */
  lastGood: Commit;
  /**
   * Commits between lastGood and firstBad that were skipped (they could not be built or
   * measured), oldest first. When any: the first bad commit is one of them or firstBad.
   */
  undecided: Commit[];
  /** Every commit skipped, with what failed. */
  skipped: { commit: string; position: number; reason: string }[];
  /** firstBad against lastGood. */
  step: { change: number; ci: [number, number] | null };
  /** Fingerprint fields that differ between lastGood and firstBad. */
  environmentChange: FingerprintDifference[];
  /** Fingerprint fields that differ between the good and the bad end. */
  environmentDifferences: FingerprintDifference[];
  /** Some step was decided by the nearer end after the runs ran out. */
  uncertain: boolean;
  steps: {
    commit: string;
    position: number;
    runs: number;
    verdict: 'good' | 'bad';
    uncertain: boolean;
    between: boolean;
    versusGood: { change: number; ci: [number, number] | null };
    versusBad: { change: number; ci: [number, number] | null };
  }[];
  commits: number;
  totalRuns: number;
}

export function bisectReport(
  benchmark: string,
  result: SearchResult,
  commits: readonly Commit[],
  good: Commit,
  confidence: number,
): BisectReport {
  const find = (sha: string): Commit =>
    sha === good.sha ? good : (commits.find((c) => c.sha === sha) ?? { sha, subject: '' });
  return {
    schemaVersion: 1,
    benchmark,
    confidence,
    metric: { id: result.metric.id, unit: result.metric.unit, direction: result.metric.direction },
    good: { commit: result.good.commit, runs: result.good.runs },
    bad: { commit: result.bad.commit, runs: result.bad.runs },
    ends: { change: result.metric.change, ci: result.metric.ci },
    firstBad: find(result.firstBad),
    lastGood: find(result.lastGood),
    undecided: result.undecided.map(find),
    skipped: result.skipped.map((s) => ({
      commit: s.commit,
      position: s.index,
      reason: s.reason,
    })),
    step: result.step,
    environmentChange: fingerprintDifferences(
      result.environments.lastGood,
      result.environments.firstBad,
    ),
    environmentDifferences: fingerprintDifferences(result.good.environment, result.bad.environment),
    uncertain: result.steps.some((s) => s.uncertain),
    steps: result.steps.map((s: Step) => ({
      commit: s.commit,
      position: s.index,
      runs: s.runs,
      verdict: s.verdict,
      uncertain: s.uncertain,
      between: s.between,
      versusGood: s.versusGood,
      versusBad: s.versusBad,
    })),
    commits: commits.length,
    totalRuns: result.totalRuns,
  };
}

export function renderBisectText(report: BisectReport): string {
  const level = `${Number((report.confidence * 100).toFixed(1))}%`;
  const metric = report.metric.id;
  const lines: string[] = [];
  const undecided = report.undecided;
  if (undecided.length === 0) {
    lines.push(
      `First bad commit: ${report.firstBad.sha}${subject(report.firstBad)}`,
      `  ${metric} ${describeChange(report.step.change, report.step.ci)} against its parent ${short(report.lastGood.sha)}${subject(report.lastGood)} (${level} CI)`,
    );
  } else {
    // Only skipped commits lie between the last good and the first bad one measured.
    lines.push(
      `First bad commit is one of ${short(undecided[0]!.sha)}..${short(report.firstBad.sha)} (${undecided.length + 1} commits); ` +
        `${undecided.map((c) => short(c.sha)).join(', ')} could not be built or measured:`,
      ...undecided.map((c) => `  ${c.sha}${subject(c)} (skipped)`),
      `  ${report.firstBad.sha}${subject(report.firstBad)} (measured bad)`,
      `  ${metric} ${describeChange(report.step.change, report.step.ci)} from the last good ${short(report.lastGood.sha)}${subject(report.lastGood)} to ${short(report.firstBad.sha)} (${level} CI)`,
    );
  }
  if (report.environmentChange.length > 0) {
    lines.push(
      `  the environment changed ${undecided.length === 0 ? 'at this commit' : 'in this range'}: ${report.environmentChange.map(describeDifference).join(', ')}`,
    );
  }
  lines.push(
    '',
    `${report.benchmark}: ${metric} ${describeChange(report.ends.change, report.ends.ci)} from good ${short(report.good.commit)} (${report.good.runs} runs) to bad ${short(report.bad.commit)} (${report.bad.runs} runs)`,
  );
  if (report.environmentDifferences.length > 0) {
    lines.push(
      `Environment of good → bad: ${report.environmentDifferences.map(describeDifference).join(', ')}`,
    );
  }
  lines.push(
    `${report.steps.length} step(s) over ${report.commits} commit(s), ${report.totalRuns} benchmark runs in all:`,
  );
  for (const [i, step] of report.steps.entries()) {
    const notes = [
      step.uncertain ? 'uncertain: the runs ran out, nearer end taken' : '',
      step.between ? 'differs from both ends' : '',
    ].filter(Boolean);
    lines.push(
      `  ${i + 1}. ${short(step.commit)} (${step.position} of ${report.commits}) ${step.verdict.padEnd(4)} ${String(step.runs).padStart(2)} runs; ` +
        `vs good ${describeChange(step.versusGood.change, step.versusGood.ci)}, vs bad ${describeChange(step.versusBad.change, step.versusBad.ci)}` +
        (notes.length > 0 ? ` [${notes.join('; ')}]` : ''),
    );
  }
  if (report.skipped.length > 0) {
    lines.push(
      `${report.skipped.length} commit(s) skipped, as they could not be built or measured:`,
    );
    for (const skip of report.skipped) {
      lines.push(
        `  ${short(skip.commit)} (${skip.position} of ${report.commits}): ${skip.reason.split('\n')[0]!.replace(/^commit [0-9a-f]+: /, '')}`,
      );
    }
  }
  if (report.uncertain) {
    lines.push(
      '',
      'Some step ran out of runs before its answer was sure: re-run with a larger --max-runs to confirm.',
    );
  }
  if (report.steps.some((s) => s.between)) {
    lines.push(
      'Some commit differs from both ends: the slowdown may have come in more than one step.',
    );
  }
  return `${lines.join('\n')}\n`;
}

function subject(commit: Commit): string {
  return commit.subject ? ` "${commit.subject}"` : '';
}

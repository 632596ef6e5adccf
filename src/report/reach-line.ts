// "What this noise allows": the gated metrics whose runs let the gate catch a regression of
// twice their threshold less than 95% of the time (Comparison.reach), and the runs that
// would, measured from their own spread. A gate that cannot see a change users would call
// a regression should say so, not pass it in silence.

import type { BenchmarkReport, Comparison } from '../model.js';
import { escapeMarkdown } from './escape.js';
import { formatThreshold } from './numbers.js';

type Reached = Comparison & { reach: NonNullable<Comparison['reach']>; threshold: number };

/** A short block per benchmark, or undefined when every gated metric reaches 95%. */
export function reachLine(benchmark: BenchmarkReport): string | undefined {
  const short = benchmark.metrics.filter(
    (m): m is Reached => m.reach !== undefined && m.threshold !== null,
  );
  if (short.length === 0) return undefined;
  const lines = short.map((m) => {
    const { power, runs, runsFor95 } = m.reach;
    const needs =
      runsFor95 === null
        ? 'no number of current runs would reach 95%'
        : `${runsFor95} would reach 95%`;
    return (
      `- \`${escapeMarkdown(m.id)}\` (threshold ${formatThreshold(m.threshold)}): a ` +
      `${formatThreshold(2 * m.threshold)} regression would fail the gate about ${percent(power)} of ` +
      `the time with ${runs} runs; ${needs}`
    );
  });
  const outOfReach = short.some((m) => m.reach.runsFor95 === null);
  return [
    '_What this noise allows:_ a regression of twice a threshold could pass unseen here.',
    ...lines,
    'More runs: `runs` and `confirm-runs` in the action’s config, or more result files for ' +
      '`compare`.' +
      (outOfReach
        ? ' Where no number of runs would do, the baseline’s own noise (or its drift from ' +
          'day to day) is too large: a larger threshold or more baseline records would.'
        : ''),
  ].join('\n');
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

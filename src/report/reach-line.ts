// "What the noise allows": the gated metrics whose runs let the gate catch a regression of
// twice their threshold less than 95% of the time (Comparison.reach), and the runs that
// would, measured from their own spread. A gate that cannot see a change users would call
// a regression should say so, not pass it in silence.

import type { BenchmarkReport, Comparison } from '../model.js';
import { escapeMarkdown } from './escape.js';

/** One line per benchmark, or undefined when every gated metric reaches 95%. */
export function reachLine(benchmark: BenchmarkReport): string | undefined {
  const short = benchmark.metrics.filter(
    (m): m is Comparison & { reach: NonNullable<Comparison['reach']> } =>
      m.reach !== undefined && m.threshold !== null,
  );
  if (short.length === 0) return undefined;
  const items = short.map((m) => {
    const { power, runs, runsFor95 } = m.reach;
    const caught = `${percent(power)} of ${percent(2 * m.threshold!)} regressions caught with ${runs} runs`;
    const needs =
      runsFor95 === null
        ? 'no number of runs of one day would catch 95% (the baseline’s own noise or its day-to-day drift): a larger threshold or more stored records would'
        : `${runsFor95} runs would catch 95%`;
    return `\`${escapeMarkdown(m.id)}\` ${caught}, ${needs}`;
  });
  return (
    '_What this noise allows:_ with every run the gate may take, a regression of twice the ' +
    `threshold fails it only part of the time — ${items.join('; ')}. Set \`runs\` or ` +
    '`confirm-runs` in the config; `calibrate` measures the noise from your own runs.'
  );
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

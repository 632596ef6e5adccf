// A benchmark whose every gated metric went unmeasured (a capacity whose SLO failed at the
// lowest load of the sweep, a result file of NaNs): nothing of it was judged, so it
// neither passes nor fails. Its stored verdict stays what compareBenchmark gave (`pass`,
// or `no-baseline`), which fails nothing, as a "not measured" metric never does; the
// report reads it as "not measured", never as a pass.

import type { BenchmarkReport, Comparison } from '../model.js';

/** A gated metric with no figure this run, and why (its row's reason). */
export interface UnmeasuredMetric {
  id: string;
  reason: string;
}

/**
 * The gated metrics of a passing (or baseline-less) benchmark, when none of them has a
 * figure this run; undefined when one has, when none is gated (a benchmark that cannot
 * fail says so in its own warning), for a regression or an error, which say more, and
 * for a benchmark whose answers were checked (the agreement check judged those).
 * Read defensively: the comment job renders a report.json a pull request's run wrote.
 */
export function nothingMeasured(
  benchmark: Pick<BenchmarkReport, 'verdict' | 'metrics' | 'agreement'>,
): UnmeasuredMetric[] | undefined {
  if (benchmark.verdict !== 'pass' && benchmark.verdict !== 'no-baseline') return undefined;
  // Answers that were checked are something judged, whatever the timings.
  if (benchmark.agreement !== undefined) return undefined;
  if (!Array.isArray(benchmark.metrics)) return undefined;
  const gated = benchmark.metrics.filter((m: Comparison) => typeof m.threshold === 'number');
  if (gated.length === 0 || gated.some((m) => typeof m.current === 'number')) return undefined;
  return gated.map((m) => ({ id: String(m.id), reason: notMeasuredReason(m.reason) }));
}

/** "the SLO fails at …" from "not measured: the SLO fails at …". */
function notMeasuredReason(reason: unknown): string {
  const text = typeof reason === 'string' ? reason : '';
  const bare = text.replace(/^not measured(?: in this run)?:?\s*/, '');
  return bare === '' ? 'not measured in this run' : bare;
}

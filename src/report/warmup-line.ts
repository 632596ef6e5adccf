// The line a benchmark's section gives its warm-up (`warmup:`): what each run left out of
// its figures, and how much the requests left out differed from the rest, so that a reader
// sees whether the exclusion mattered ("their median TTFT 412 ms vs 95 ms after, 4.3×").

import type { BenchmarkReport, WarmupRule, WarmupRun } from '../model.js';
import { median } from '../stats/percentile.js';
import { formatValue } from './numbers.js';

export function warmupLine(benchmark: BenchmarkReport): string | undefined {
  const runs = (benchmark.result?.warmup ?? []).filter((run): run is WarmupRun => run !== null);
  if (runs.length === 0) return undefined;
  const excluded = runs.reduce((sum, run) => sum + run.excluded, 0);
  const all = runs.reduce((sum, run) => sum + run.excluded + run.kept, 0);
  const order = runs.every((run) => run.byStartTime) ? 'by start time' : 'in the order sent';
  const each = runs.length === 1 ? 'the run' : `each of ${runs.length} runs`;
  const cut = `${ruleText(runs[0]!.rule)} of ${each} excluded (${excluded} of ${all} requests, ${order})`;
  const comparison = ttftComparison(runs);
  return `🔥 **Warm-up**: ${cut}${comparison ? `; ${comparison}` : ''}.`;
}

function ruleText(rule: WarmupRule): string {
  return 'requests' in rule
    ? `the first ${rule.requests} request${rule.requests === 1 ? '' : 's'}`
    : `the first ${formatValue(rule.seconds)} s`;
}

/** The excluded requests' median TTFT against the kept ones', the runs' medians' median. */
function ttftComparison(runs: readonly WarmupRun[]): string | undefined {
  const both = runs.filter(
    (run) => run.excludedTtftMedianMs !== undefined && run.keptTtftMedianMs !== undefined,
  );
  if (both.length === 0) return undefined;
  const cut = median(both.map((run) => run.excludedTtftMedianMs!));
  const kept = median(both.map((run) => run.keptTtftMedianMs!));
  const of = both.length > 1 ? ` (the median of ${both.length} runs' medians)` : '';
  const ratio = kept > 0 ? `, ${ratioText(cut / kept)}` : '';
  return `their median TTFT ${formatValue(cut)} ms vs ${formatValue(kept)} ms after${of}${ratio}`;
}

function ratioText(ratio: number): string {
  const digits = ratio < 2 ? 2 : ratio < 10 ? 1 : 0;
  return `${ratio.toFixed(digits)}×`;
}

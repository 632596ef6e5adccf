// A custom file names an entry by its name, and by its name and `extra` when the file
// repeats the name (otel-arrow: `dropped_logs_total` once per test). A run with one test
// of several then names its entries otherwise than its baseline did. Each entry carries
// its other id (info.metrics[id].alias, formats/custom.ts); a metric one side has under
// the other's alias is renamed to the id the other side uses, so the two still meet.

import type { BenchmarkResult, Metric } from '../model.js';

/**
 * The current result and the baseline with each pair of metrics that are one entry under
 * two ids (each side's id is the other's alias, and neither id is on the other side)
 * renamed to the id with the extra in it.
 */
export function alignCustomIds(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
): { current: BenchmarkResult; baseline: BenchmarkResult | undefined } {
  if (!baseline || !current.format.startsWith('custom-')) return { current, baseline };
  const nowIds = new Set(current.metrics.map((m) => m.id));
  const beforeIds = new Set(baseline.metrics.map((m) => m.id));
  const nowAliases = aliasesOf(current);
  const beforeAliases = aliasesOf(baseline);
  const renames = new Map<string, string>();
  for (const [id, alias] of nowAliases) {
    if (beforeIds.has(id) || nowIds.has(alias) || beforeAliases.get(alias) !== id) continue;
    // One entry: the id with the extra in it is the longer.
    renames.set(id, id.length >= alias.length ? id : alias);
    renames.set(alias, id.length >= alias.length ? id : alias);
  }
  if (renames.size === 0) return { current, baseline };
  const renamed = (result: BenchmarkResult): BenchmarkResult => ({
    ...result,
    metrics: result.metrics.map((metric): Metric => {
      const id = renames.get(metric.id);
      return id === undefined ? metric : { ...metric, id };
    }),
  });
  return { current: renamed(current), baseline: renamed(baseline) };
}

/** Metric id → its alias, from the custom parser's info. */
function aliasesOf(result: BenchmarkResult): Map<string, string> {
  const aliases = new Map<string, string>();
  const details = result.info?.metrics;
  if (typeof details !== 'object' || details === null) return aliases;
  for (const [id, detail] of Object.entries(details as Record<string, unknown>)) {
    const alias = (detail as { alias?: unknown } | null)?.alias;
    if (typeof alias === 'string') aliases.set(id, alias);
  }
  return aliases;
}

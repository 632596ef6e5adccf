// The line a benchmark's section gives the Neuron compile cache: graphs compiled and loaded
// from the cache, the time spent compiling, and, when the run recompiled what its baseline
// loaded from the cache, that verdict's words: why it failed, or that a new compiler did it.

import type { BenchmarkReport, CompileCacheSummary } from '../model.js';
import { COLD_CACHE, NEW_COMPILER_KEYS } from '../compare/compile-cache.js';
import { GRAPHS_COMPILED } from '../observe/compile-metrics.js';
import { formatDuration } from '../text/duration.js';
import { codeSpan, escapeMarkdown } from './escape.js';

/** A count or time from report.json, which the comment job reads as untrusted: finite or nothing. */
const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

export function compileCacheLine(benchmark: BenchmarkReport): string | undefined {
  const cache = benchmark.result?.compileCache;
  const facts = cacheFacts(cache);
  if (!cache || !facts) return undefined;
  const where =
    typeof cache.dir === 'string'
      ? codeSpan(cache.dir)
      : escapeMarkdown(typeof cache.remote === 'string' ? cache.remote : 'remote');
  return `🧱 **Compile cache** (${where}): ${facts}.${recompiled(benchmark)}`;
}

/**
 * The graphs_compiled verdict's words when the run recompiled graphs: ❌ when that failed,
 * ℹ️ when a new compiler's cache keys or a cache cold before the run explain it (no graphs
 * listed in either).
 */
function recompiled(benchmark: BenchmarkReport): string {
  const verdict = benchmark.metrics.find((m) => m.id === GRAPHS_COMPILED);
  const reason = verdict?.reason;
  if (typeof reason !== 'string') return '';
  // The graphs concerned are listed under the table, with the metric's reason.
  if (verdict!.verdict === 'regression') {
    return ` ❌ ${escapeMarkdown(reason.replace(/\): .*$/s, ')'))}.`;
  }
  const explained = reason.includes(NEW_COMPILER_KEYS) || reason.includes(COLD_CACHE);
  return explained ? ` ℹ️ ${escapeMarkdown(reason)}.` : '';
}

/** `4 graphs compiled in 5 min 6 s, 0 graphs loaded from the cache`; undefined without a count. */
export function cacheFacts(cache: CompileCacheSummary | undefined): string | undefined {
  const compiled = finite(cache?.graphsCompiled);
  if (!cache || compiled === undefined) return undefined;
  const plural = (n: number) => `${n} graph${n === 1 ? '' : 's'}`;
  const facts = [`${plural(compiled)} compiled`];
  const seconds = finite(cache.compileSeconds);
  const cached = finite(cache.cached);
  if (seconds !== undefined) {
    const from = cache.compileTimeFrom === 'first-run' ? ', from the first run' : '';
    facts[0] += ` in ${formatDuration(seconds * 1000)}${from}`;
  }
  if (cached !== undefined) facts.push(`${plural(cached)} loaded from the cache`);
  return facts.join(', ');
}

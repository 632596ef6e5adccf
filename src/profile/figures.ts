import { median } from '../stats/percentile.js';
import type { ProfileGraph } from '../model.js';
import { ENGINES, type GraphSummary } from './summary-json.js';

/**
 * Merges the summaries of one graph seen on several cores (time-weighted means; bytes
 * added up), labels the graphs and fills an MFU the profiler left "not available" from the
 * graph's model flops and the peak rate implied by the other graphs.
 */
export function combineGraphs(summaries: GraphSummary[]): ProfileGraph[] {
  const byKey = new Map<string, GraphSummary[]>();
  for (const summary of summaries)
    byKey.set(summary.key, [...(byKey.get(summary.key) ?? []), summary]);
  const peak = impliedPeakFlopsPerSecond(summaries);
  const graphs = [...byKey.entries()].map(([key, seen]) => mergeGraph(key, seen, peak));
  labelGraphs(graphs, byKey);
  return graphs;
}

function mergeGraph(key: string, seen: GraphSummary[], peak: number | undefined): ProfileGraph {
  const totalTime = seen.reduce((sum, s) => sum + s.totalTime, 0) / seen.length;
  const weighted = (pick: (s: GraphSummary) => number | undefined) =>
    timeWeighted(seen.map((s) => [s.totalTime, pick(s)]));
  const engines: ProfileGraph['engines'] = {};
  for (const engine of ENGINES) {
    const value = weighted((s) => s.engines[engine]);
    if (value !== undefined) engines[engine] = value;
  }
  let mfu = weighted((s) => s.mfu);
  let mfuDerived: boolean | undefined;
  const flops = seen.reduce((sum, s) => sum + (s.modelFlops ?? 0), 0) / seen.length;
  if (mfu === undefined && peak !== undefined && flops > 0 && totalTime > 0) {
    mfu = (100 * flops) / (totalTime * peak);
    mfuDerived = true;
  }
  const graph: ProfileGraph = { key, totalTime, engines };
  assign(graph, 'mfu', mfu);
  assign(graph, 'mfuDerived', mfuDerived);
  assign(
    graph,
    'mbu',
    weighted((s) => s.mbu),
  );
  assign(
    graph,
    'dma',
    weighted((s) => s.dma),
  );
  assign(graph, 'hbmReadBytes', sumOf(seen.map((s) => s.hbmReadBytes)));
  assign(graph, 'hbmWriteBytes', sumOf(seen.map((s) => s.hbmWriteBytes)));
  return graph;
}

/** Peak flops per second implied by graphs that report both MFU and model flops. */
function impliedPeakFlopsPerSecond(summaries: GraphSummary[]): number | undefined {
  const peaks = summaries
    .filter((s) => s.mfu !== undefined && s.mfu > 0 && (s.modelFlops ?? 0) > 0 && s.totalTime > 0)
    .map((s) => s.modelFlops! / (s.totalTime * (s.mfu! / 100)));
  return peaks.length > 0 ? median(peaks) : undefined;
}

/**
 * An LLM's graphs are prefill (context encoding: much matrix work per byte moved) and
 * decode (token generation: memory bound). When the graphs' arithmetic intensities fall
 * into two groups far apart (4× or more), the upper group is labelled context encoding and
 * the lower one token generation; anything less clear is left unlabelled, not guessed.
 */
function labelGraphs(graphs: ProfileGraph[], byKey: Map<string, GraphSummary[]>): void {
  const intensity = (graph: ProfileGraph) => {
    const first = byKey.get(graph.key)?.[0];
    return (
      first?.arithmeticIntensity ?? (first?.modelFlops ?? 0) / Math.max(graph.totalTime, 1e-12)
    );
  };
  const values = graphs.map(intensity).filter((v) => v > 0);
  if (values.length < 2 || values.length !== graphs.length) return;
  const low = Math.min(...values);
  const high = Math.max(...values);
  if (high / low < 4) return;
  const split = Math.sqrt(low * high);
  for (const graph of graphs)
    graph.label = intensity(graph) > split ? 'context encoding' : 'token generation';
}

/** The whole profile's figures: time-weighted over graphs, bytes added up. */
export function overallFigures(graphs: ProfileGraph[]): Record<string, number> {
  const figures: Record<string, number> = {};
  const weighted = (pick: (g: ProfileGraph) => number | undefined) =>
    timeWeighted(graphs.map((g) => [g.totalTime, pick(g)]));
  assign(
    figures,
    'mfu',
    weighted((g) => g.mfu),
  );
  assign(
    figures,
    'mbu',
    weighted((g) => g.mbu),
  );
  for (const engine of ENGINES)
    assign(
      figures,
      `${engine}_engine_active`,
      weighted((g) => g.engines[engine]),
    );
  assign(
    figures,
    'dma_active',
    weighted((g) => g.dma),
  );
  assign(figures, 'hbm_read_bytes', sumOf(graphs.map((g) => g.hbmReadBytes)));
  assign(figures, 'hbm_write_bytes', sumOf(graphs.map((g) => g.hbmWriteBytes)));
  assign(figures, 'device_time_seconds', sumOf(graphs.map((g) => g.totalTime)));
  return figures;
}

function timeWeighted(pairs: [number, number | undefined][]): number | undefined {
  const known = pairs.filter((pair): pair is [number, number] => pair[1] !== undefined);
  const weight = known.reduce((sum, [time]) => sum + time, 0);
  if (known.length === 0) return undefined;
  if (weight === 0) return known.reduce((sum, [, value]) => sum + value, 0) / known.length;
  return known.reduce((sum, [time, value]) => sum + time * value, 0) / weight;
}

function sumOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length > 0 ? known.reduce((sum, v) => sum + v, 0) : undefined;
}

function assign<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
}

import type { EngineName } from '../model.js';
import { profilerOutputJson } from './profiler-output.js';

/** The figures of one profiled graph, as the profiler's summary-json gives them. */
export interface GraphSummary {
  /** The summary's key for the graph (like `n_<hex>`); not stable, only for display. */
  key: string;
  /** Seconds the graph ran. */
  totalTime: number;
  /** Percent (0–100); undefined where the profiler says "not available". */
  mfu?: number;
  mbu?: number;
  hfu?: number;
  engines: Partial<Record<EngineName, number>>;
  dma?: number;
  hbmReadBytes?: number;
  hbmWriteBytes?: number;
  modelFlops?: number;
  arithmeticIntensity?: number;
  /**
   * Physical NeuronCores in the logical core the graph ran on (the tables' Metadata; the
   * summary-json does not say): MFU is then per logical core (logical-core.ts).
   */
  physicalCores?: number;
  /** Every key as printed, known or not, so a newer schema loses nothing. */
  raw: Record<string, unknown>;
}

export const ENGINES = [
  'tensor',
  'vector',
  'scalar',
  'gpsimd',
  'sync',
] as const satisfies readonly EngineName[];

/** What one summary-json holds: the graphs with a device time, and those without one. */
export interface SummaryRead {
  graphs: GraphSummary[];
  /** Keys of graphs whose total_time is NaN, negative or missing: no time to weigh them by. */
  untimed: string[];
}

/**
 * Reads `view --output-format summary-json`: one object per graph, whatever its key. Every
 * `*_percent` is a fraction (× 100 here); a negative value means "not available"; `NaN`
 * (printed by versions before 2.25) is read as not available too. Log lines the profiler
 * printed around the JSON are skipped (profiler-output.ts). `source` names the output
 * (the command that printed it), for the messages.
 */
export function parseSummaryJson(text: string, source: string): SummaryRead {
  const data = profilerOutputJson(text, source);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error(`${source}: expected a JSON object with one entry per profiled graph`);
  }
  const graphs: GraphSummary[] = [];
  const untimed: string[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const figures = value as Record<string, unknown>;
    const graph = graphFromFigures(key, figures);
    if (graph) graphs.push(graph);
    else if (looksLikeGraph(figures)) untimed.push(key);
  }
  if (graphs.length === 0 && untimed.length === 0)
    throw new Error(`${source}: the summary holds no profiled graph with a total_time`);
  return { graphs, untimed };
}

/**
 * One graph's figures from the summary's keys (the summary-json's object of a graph, or a
 * row of the profile tables' Summary: the same fields and values); undefined without a
 * usable total_time.
 */
export function graphFromFigures(
  key: string,
  figures: Record<string, unknown>,
): GraphSummary | undefined {
  const totalTime = available(figures.total_time);
  if (totalTime === undefined) return undefined;
  const engines: GraphSummary['engines'] = {};
  for (const engine of ENGINES) {
    const percent = fraction(figures[`${engine}_engine_active_time_percent`]);
    if (percent !== undefined) engines[engine] = percent;
  }
  return withoutUndefined({
    key,
    totalTime,
    mfu: fraction(figures.mfu_estimated_percent),
    mbu: fraction(figures.mbu_estimated_percent),
    hfu: fraction(figures.hfu_estimated_percent),
    engines,
    dma: fraction(figures.dma_active_time_percent),
    hbmReadBytes: available(figures.hbm_read_bytes),
    hbmWriteBytes: available(figures.hbm_write_bytes),
    modelFlops: available(figures.model_flops),
    arithmeticIntensity: available(figures.mm_arithmetic_intensity),
    raw: figures,
  });
}

/** A graph's figures, as opposed to some other object a newer profiler might add. */
function looksLikeGraph(figures: Record<string, unknown>): boolean {
  return 'total_time' in figures || 'mfu_estimated_percent' in figures;
}

/** A non-negative finite number, else undefined ("not available"). */
function available(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function fraction(value: unknown): number | undefined {
  const number = available(value);
  return number === undefined ? undefined : number * 100;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

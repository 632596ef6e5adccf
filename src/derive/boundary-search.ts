// The SLO boundary searched rather than read off a grid: the load at which the SLO stops
// holding, found by probing loads one at a time (vLLM's `serve_sla`, AIPerf's adaptive
// search). Each probe gives the SLO's margin at one load: ≥ 0 when every objective holds.
//
// The search brackets the crossing (from `from` and `to`, expanding geometrically down or up
// when the range does not hold it), then narrows the bracket by regula falsi with the
// Illinois weighting until it is narrower than the resolution or the run budget is spent.
// The margin (slo-margin.ts) is a headroom ratio, linear in the load for a queue's
// latency, T0 / (1 − λ / capacity): one interpolation lands near the crossing, and
// each probe lands at least most of a resolution inside the bracket, so the next probe
// closes it. Probes are noisy: the capacity's interval is the final bracket widened by the
// margin's scatter about a line through the probes nearest the crossing. Pure: the step
// function decides; `searchBoundary` drives it with a probe function.

import { studentTQuantile } from '../stats/distributions.js';

/** One probe: the load it ran at and the SLO's margin there (≥ 0: every objective held). */
export interface BoundaryProbe {
  load: number;
  margin: number;
}

export type Resolution = { absolute: number } | { relative: number };

export interface BoundarySearchOptions {
  /** The range to start from: the search expands it when the crossing is outside. */
  from: number;
  to: number;
  /** How narrow the final bracket must be: a load, or a share of the highest load that held. */
  resolution: Resolution;
  /** The run budget: the search stops when the next probe would exceed it. */
  maxRuns: number;
  /** Runs a probe takes (1: each probe one run; see docs/serving.md). */
  runsPerProbe?: number;
  /** Loads are whole numbers (a concurrency): probes are rounded, the resolution at least 1. */
  integer?: boolean;
  /** The factor the range grows by when it does not bracket the crossing. */
  expand?: number;
  /** The confidence of the noise widening (two-sided). */
  confidence?: number;
}

export type BoundaryKind =
  /** Held at a load and failed at a higher one: the capacity is between them. */
  | 'crossed'
  /** Held at every load probed: at least the highest. */
  | 'at-least'
  /** Failed at every load probed: below the lowest. */
  | 'below';

export interface BoundaryResult {
  kind: BoundaryKind;
  /** The capacity: the crossing of the margin's line within the bracket (crossed), else the end. */
  value: number;
  /** The highest load that held below the lowest that failed (crossed only). */
  bracket?: [number, number];
  /** The search's own uncertainty: the bracket widened by the probes' noise (crossed only). */
  interval?: [number, number];
  /** The bracket is within the resolution. */
  resolved: boolean;
  /** The width the bracket had to reach, at the end. */
  resolutionWidth: number;
  /** How far the noise widened each side of the bracket, in load; undefined: not estimated. */
  noiseWidening?: number;
  runs: number;
  probes: BoundaryProbe[];
  /** What the reader must know: the budget ran out, the noise was not estimated. */
  notes: string[];
}

export type SearchStep = { kind: 'probe'; load: number } | { kind: 'done'; result: BoundaryResult };

/** A probe lands at least this share of the resolution inside each end of the bracket. */
const INSIDE_SHARE = 0.9;
/** How many probes nearest the crossing the line and its scatter are fitted to. */
const FIT_PROBES = 4;

const holds = (probe: BoundaryProbe) => probe.margin >= 0;

/** The lowest load that failed, and the highest that held below it. */
function bracketOf(probes: readonly BoundaryProbe[]): {
  low?: BoundaryProbe;
  high?: BoundaryProbe;
} {
  const failed = probes.filter((p) => !holds(p));
  const high = failed.reduce<BoundaryProbe | undefined>(
    (best, p) => (best === undefined || p.load < best.load ? p : best),
    undefined,
  );
  const held = probes.filter((p) => holds(p) && (high === undefined || p.load < high.load));
  const low = held.reduce<BoundaryProbe | undefined>(
    (best, p) => (best === undefined || p.load > best.load ? p : best),
    undefined,
  );
  return { low, high };
}

/** The width the bracket must reach: the resolution at the highest load that held. */
export function resolutionWidth(options: BoundarySearchOptions, low: number): number {
  const width =
    'absolute' in options.resolution
      ? options.resolution.absolute
      : options.resolution.relative * low;
  return options.integer ? Math.max(1, width) : width;
}

/**
 * Illinois: each probe in a row on the same side halves the weight of the other end's
 * margin, so the interpolation moves toward the end that keeps being retained.
 */
function illinoisWeights(probes: readonly BoundaryProbe[]): { low: number; high: number } {
  let run = 0;
  const lastHeld = probes.length > 0 && holds(probes[probes.length - 1]!);
  for (let i = probes.length - 1; i >= 0 && holds(probes[i]!) === lastHeld; i -= 1) run += 1;
  const halved = 0.5 ** Math.max(0, run - 1);
  return lastHeld ? { low: 1, high: halved } : { low: halved, high: 1 };
}

/** Where the line through two (load, margin) points crosses 0. */
function lineCrossing(a: BoundaryProbe, b: BoundaryProbe): number {
  return a.load + (a.margin / (a.margin - b.margin)) * (b.load - a.load);
}

function roundLoad(load: number, options: BoundarySearchOptions): number {
  return options.integer ? Math.max(1, Math.round(load)) : load;
}

/** The next load inside a bracket: the weighted interpolation, kept off both ends. */
function nextInside(
  probes: readonly BoundaryProbe[],
  low: BoundaryProbe,
  high: BoundaryProbe,
  width: number,
  options: BoundarySearchOptions,
): number {
  const weights = illinoisWeights(probes);
  const guess = lineCrossing(
    { load: low.load, margin: low.margin * weights.low },
    { load: high.load, margin: high.margin * weights.high },
  );
  const inside = Math.min(INSIDE_SHARE * width, (high.load - low.load) / 2);
  const load = Math.min(high.load - inside, Math.max(low.load + inside, guess));
  const rounded = roundLoad(load, options);
  // A whole-number load rounded onto an end moves one step inside.
  if (rounded <= low.load) return low.load + 1;
  if (rounded >= high.load) return high.load - 1;
  return rounded;
}

/** The next step of the search, from the probes so far (in the order they ran). */
export function nextStep(
  probes: readonly BoundaryProbe[],
  options: BoundarySearchOptions,
): SearchStep {
  const perProbe = options.runsPerProbe ?? 1;
  const outOfRuns = (probes.length + 1) * perProbe > options.maxRuns;
  const expand = options.expand ?? 2;
  const { low, high } = bracketOf(probes);
  if (low && high) {
    const width = resolutionWidth(options, low.load);
    const resolved = high.load - low.load <= width;
    if (resolved || outOfRuns) return { kind: 'done', result: finish(probes, options) };
    return { kind: 'probe', load: nextInside(probes, low, high, width, options) };
  }
  const from = roundLoad(options.from, options);
  const to = roundLoad(options.to, options);
  const ran = (load: number) => probes.some((p) => p.load === load);
  let load: number;
  if (!ran(from)) load = from;
  else if (!high && !ran(to)) load = to;
  else if (!high) load = roundLoad(low!.load * expand, options);
  else load = roundLoad(high.load / expand, options);
  if (outOfRuns || ran(load)) return { kind: 'done', result: finish(probes, options) };
  return { kind: 'probe', load };
}

/** Least squares of margin on load over `points`: slope, crossing and residual spread. */
function fitLine(points: readonly BoundaryProbe[]): {
  slope: number;
  crossing: number;
  residualSd?: number;
  df: number;
} {
  const n = points.length;
  const meanLoad = points.reduce((s, p) => s + p.load, 0) / n;
  const meanMargin = points.reduce((s, p) => s + p.margin, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.load - meanLoad) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.load - meanLoad) * (p.margin - meanMargin), 0);
  const slope = sxx > 0 ? sxy / sxx : 0;
  const crossing = slope < 0 ? meanLoad - meanMargin / slope : Number.NaN;
  const df = n - 2;
  if (df < 1) return { slope, crossing, df };
  const sse = points.reduce(
    (s, p) => s + (p.margin - meanMargin - slope * (p.load - meanLoad)) ** 2,
    0,
  );
  return { slope, crossing, residualSd: Math.sqrt(sse / df), df };
}

/** The result from the probes: the bracket, the crossing in it and the interval. */
export function finish(
  probes: readonly BoundaryProbe[],
  options: BoundarySearchOptions,
): BoundaryResult {
  const runs = probes.length * (options.runsPerProbe ?? 1);
  const { low, high } = bracketOf(probes);
  const common = { runs, probes: [...probes] };
  if (!high) {
    const top = Math.max(...probes.map((p) => p.load));
    const width = resolutionWidth(options, top);
    const note = `the SLO held at every load probed, up to ${top}: the capacity is at least that; the run budget (${options.maxRuns}) ran out before a load failed`;
    return {
      kind: 'at-least',
      value: top,
      resolved: false,
      resolutionWidth: width,
      notes: [note],
      ...common,
    };
  }
  if (!low) {
    const width = resolutionWidth(options, high.load);
    const floor = options.integer && high.load === 1;
    const why = floor
      ? 'no whole load is lower'
      : `the run budget (${options.maxRuns}) ran out before a load held`;
    const note = `the SLO failed at every load probed, down to ${high.load}: the capacity is below it; ${why}`;
    return {
      kind: 'below',
      value: high.load,
      resolved: false,
      resolutionWidth: width,
      notes: [note],
      ...common,
    };
  }
  return crossedResult(probes, low, high, options, common);
}

function crossedResult(
  probes: readonly BoundaryProbe[],
  low: BoundaryProbe,
  high: BoundaryProbe,
  options: BoundarySearchOptions,
  common: { runs: number; probes: BoundaryProbe[] },
): BoundaryResult {
  const width = resolutionWidth(options, low.load);
  const resolved = high.load - low.load <= width;
  const centre = lineCrossing(low, high);
  // A probe past saturation sits at the floor (−1) whatever its load: off the line.
  const onLine = probes.filter((p) => p.margin > -1);
  const nearest = (onLine.length >= 2 ? onLine : [low, high])
    .slice()
    .sort((a, b) => Math.abs(a.load - centre) - Math.abs(b.load - centre))
    .slice(0, FIT_PROBES);
  const fit = fitLine(nearest);
  // The line through the nearest probes averages their noise; it must cross within the bracket.
  const value = Number.isFinite(fit.crossing)
    ? Math.min(high.load, Math.max(low.load, fit.crossing))
    : centre;
  const notes: string[] = [];
  if (!resolved) {
    notes.push(
      `the run budget (${options.maxRuns}) ran out before the resolution: the bracket ${low.load}–${high.load} is ${round(high.load - low.load)} wide, the resolution ${round(width)}`,
    );
  }
  const widening = noiseWidening(fit, low, high, options.confidence ?? 0.95);
  if (widening === undefined) {
    notes.push(
      `the probes' noise was not estimated (fewer than 3 probes near the boundary): the interval is the bracket alone`,
    );
  }
  const spread = widening ?? 0;
  return {
    kind: 'crossed',
    value,
    bracket: [low.load, high.load],
    interval: [Math.max(0, low.load - spread), high.load + spread],
    resolved,
    resolutionWidth: width,
    ...(widening !== undefined ? { noiseWidening: widening } : {}),
    notes,
    ...common,
  };
}

/**
 * How far a probe's verdict can be wrong, in load: the margin's scatter about the line
 * (Student's t on its degrees of freedom) over the margin's fall per unit of load. A probe
 * that close to the crossing may have held or failed by noise alone.
 */
function noiseWidening(
  fit: ReturnType<typeof fitLine>,
  low: BoundaryProbe,
  high: BoundaryProbe,
  confidence: number,
): number | undefined {
  if (fit.residualSd === undefined) return undefined;
  const secant = (high.margin - low.margin) / (high.load - low.load);
  const slope = fit.slope < 0 ? fit.slope : secant;
  const t = studentTQuantile(1 - (1 - confidence) / 2, fit.df);
  return (t * fit.residualSd) / Math.abs(slope);
}

const round = (x: number) => Number(x.toPrecision(3));

/** Runs the search: probes the loads it chooses until it is done. */
export async function searchBoundary(
  probe: (load: number) => Promise<number>,
  options: BoundarySearchOptions,
): Promise<BoundaryResult> {
  checkOptions(options);
  const probes: BoundaryProbe[] = [];
  for (;;) {
    const step = nextStep(probes, options);
    if (step.kind === 'done') return step.result;
    const margin = await probe(step.load);
    if (Number.isNaN(margin)) {
      throw new RangeError(`boundary search: the probe at load ${step.load} gave no margin (NaN)`);
    }
    probes.push({ load: step.load, margin });
  }
}

/** Options the search cannot run with: a programming error (the config checks the user's). */
export function checkOptions(options: BoundarySearchOptions): void {
  const perProbe = options.runsPerProbe ?? 1;
  const size =
    'absolute' in options.resolution ? options.resolution.absolute : options.resolution.relative;
  if (!(options.from > 0 && options.to > options.from)) {
    throw new RangeError(
      `boundary search: needs 0 < from < to, got ${options.from}, ${options.to}`,
    );
  }
  if (!(size > 0))
    throw new RangeError(`boundary search: the resolution must be above 0, got ${size}`);
  if (!(options.maxRuns >= perProbe)) {
    throw new RangeError(
      `boundary search: max runs ${options.maxRuns} is less than one probe (${perProbe})`,
    );
  }
  if (options.expand !== undefined && !(options.expand > 1)) {
    throw new RangeError(`boundary search: expand must be above 1, got ${options.expand}`);
  }
}

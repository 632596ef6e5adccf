// The series of bench:changepoints (changepoints.ts) and the figures measured on them,
// as importable pieces: the quick accuracy check (accuracy-check.ts) runs the step and
// false change point figures at the bench's defaults on fewer series.
//
// Nights are made with the simulator's own noise model (examples/simulated-inf2,
// lib/latency-model.mjs): each run is 10 queries of the fixed data set, times a lognormal
// drift of the whole run (CV = the run CV asked for), per-query jitter and rare 1.5×
// stalls; the metric is throughput (queries / total time). Every series is judged in a
// gate of `gateSeries` series, its companions unchanged with the same kind of nights.

import { builtInThreshold } from '../src/config/default-thresholds.js';
import { detectEverySeries } from '../src/history/analyze.js';
import type { DetectOptions } from '../src/history/changepoints.js';
import type { Series, SeriesPoint } from '../src/history/series.js';
import { meanOf } from '../src/stats/mean.js';
import { otavaChangePoints } from './otava.js';
import { createRng } from './random.js';

interface SimModel {
  workloadCosts(queries: number): number[];
  runVariation(options: {
    seed: string | number;
    run: string | number;
    queries: number;
    noise: number;
    outliers: number;
  }): { drift: number; perQuery: number[] };
}

/** Nights of history before the step (and the length the false change points grow from). */
export const HISTORY = 60;
/** Nights a step is watched for after its first bad night. */
export const WATCH = 10;

/** How nights differ besides their runs: a log-normal night effect of CV `cv`, AR(1) with `phi`. */
export interface NightModel {
  cv: number;
  phi: number;
}

export interface SimSettings {
  seed: string;
  /** The simulator's run CV (its noise knob). */
  runCv: number;
  nights: NightModel;
  /** Every series of a gate shares its night effect (one machine's drift). */
  sharedNights: boolean;
  /** Series a gate holds (1: each alone). */
  gateSeries: number;
  /**
   * The companions' night CV where it differs from the series under test's (a quiet series
   * beside noisy ones); their phi is the same.
   */
  companionNightCv?: number;
  /** The step of the step figures: each run takes 1 + step times as long (default 0.03). */
  step?: number;
  detect: Partial<DetectOptions>;
  /**
   * The runner of each night of a gate (the same for its every series): its level and its
   * name for the records (none: one machine).
   */
  runners?: (gate: string, nights: number) => { level: number; runner?: string }[];
}

/** The detector under test: first bad indexes of regression change points per series of the gate. */
export type Detector = (gate: readonly Series[], nights: number) => number[][];

export interface ChangepointSims {
  makeSeries(
    id: string,
    nights: number,
    slowdownAt: (night: number) => number,
    runs: number,
    gate?: string,
  ): Series;
  /** The series under test (slowed by `slowdownAt`), then GATE_SERIES − 1 unchanged companions. */
  gateOf(id: string, nights: number, slowdownAt: (night: number) => number, runs: number): Series[];
  prefix(series: Series, nights: number): Series;
  ours: Detector;
  otava: Detector;
  /** Nights after a step's first bad one until it is found, per series (∞: not in WATCH). */
  stepFigures(runs: number, detector: Detector, trials: number): number[];
  /** New regression change points on `trials` unchanged series, and the series-nights analysed. */
  falseRate(
    runs: number,
    detector: Detector,
    trials: number,
  ): {
    alarms: number;
    nights: number;
    perGate: number[];
    first: { alarms: number; nights: number };
  };
  creepFigures(
    runs: number,
    detector: Detector,
    trials: number,
  ): { flagged: number; early: number };
  /** The simulator's run CV on the log scale (drift, per-query jitter and stalls together). */
  measuredRunCv(): number;
}

/** The simulator's latency model, loaded from the examples (relative to the bundle in .tmp/bench/). */
export async function loadSimModel(): Promise<SimModel> {
  return (await import(
    new URL('../../examples/simulated-inf2/lib/latency-model.mjs', import.meta.url).href
  )) as SimModel;
}

export function changepointSims(model: SimModel, settings: SimSettings): ChangepointSims {
  const { seed: SEED, runCv: CV, gateSeries: GATE_SERIES, detect: DETECT } = settings;
  const COSTS = model.workloadCosts(10);

  /** The night effect of series `id`, night by night: log-normal, AR(1) in the log. */
  function nightFactors(id: string, nights: number, cv: number): number[] {
    const { phi } = settings.nights;
    if (cv === 0) return Array.from({ length: nights }, () => 1);
    const sigma = Math.sqrt(Math.log1p(cv * cv));
    const rng = createRng(`${SEED}/nights/${id}`);
    let level = sigma * rng.normal();
    return Array.from({ length: nights }, (_, night) => {
      if (night > 0) level = phi * level + sigma * Math.sqrt(1 - phi * phi) * rng.normal();
      return Math.exp(level);
    });
  }

  /** Throughput of one simulated run, slowed down by `slowdown`. */
  function runThroughput(key: string, slowdown: number, cv: number): number {
    const { drift, perQuery } = model.runVariation({
      seed: SEED,
      run: key,
      queries: COSTS.length,
      noise: cv,
      outliers: 0.01,
    });
    let total = 0;
    COSTS.forEach((cost, i) => (total += cost * drift * perQuery[i]! * slowdown));
    return COSTS.length / total;
  }

  function makeSeries(
    id: string,
    nights: number,
    slowdownAt: (night: number) => number,
    runs: number,
    gate: string = id,
    nightCv: number = settings.nights.cv,
  ): Series {
    const points: SeriesPoint[] = [];
    const nightly = nightFactors(settings.sharedNights ? gate : id, nights, nightCv);
    const runners = settings.runners?.(gate, nights);
    for (let night = 0; night < nights; night += 1) {
      const level = nightly[night]! * (runners?.[night]?.level ?? 1);
      const values = Array.from(
        { length: runs },
        (_, r) => runThroughput(`${id}:${night}:${r}`, slowdownAt(night), CV) * level,
      );
      const runner = runners?.[night]?.runner;
      const createdAt = new Date(Date.UTC(2026, 0, 1) + night * 86_400_000).toISOString();
      points.push({
        path: `g/b/${night}.json`,
        commit: night.toString(16).padStart(40, '0'),
        createdAt,
        runId: String(night),
        event: 'schedule',
        branch: 'main',
        verdict: 'pass',
        environment: runner !== undefined ? { runner } : {},
        values,
        mean: meanOf(values),
      });
    }
    return {
      id,
      gateKey: 'g',
      benchmark: 'b',
      metric: 'throughput',
      unit: 'q/s',
      direction: 'higher-is-better',
      environmentKey: 'any',
      environment: {},
      points,
      // As the gate builds series: an issue needs a step of at least this much (5%).
      threshold: builtInThreshold('throughput', 'offline-benchmark'),
    };
  }

  function prefix(series: Series, nights: number): Series {
    return { ...series, points: series.points.slice(0, nights) };
  }

  /**
   * A gate: the series under test first, then `gateSeries` − 1 unchanged companions with
   * the same kind of nights (each its own night effect), as a gate of several benchmarks
   * and metrics on one machine gives the history; our detector fits the drift across them.
   */
  function gateOf(
    id: string,
    nights: number,
    slowdownAt: (night: number) => number,
    runs: number,
  ): Series[] {
    const companions = Array.from({ length: GATE_SERIES - 1 }, (_, k) =>
      makeSeries(
        `${id}/companion-${k}`,
        nights,
        () => 1,
        runs,
        id,
        settings.companionNightCv ?? settings.nights.cv,
      ),
    );
    return [makeSeries(id, nights, slowdownAt, runs, id), ...companions].map((series, k) => ({
      ...series,
      benchmark: `b${k}`,
      id: `g · b${k} · throughput · any`,
    }));
  }

  /** First bad indexes of regression change points, per series of the gate, on the first `nights`. */
  function ours(gate: readonly Series[], nights: number): number[][] {
    return detectEverySeries(
      gate.map((series) => prefix(series, nights)),
      DETECT,
    ).map((analysis) =>
      analysis.changePoints
        .filter((cp) => cp.direction === 'regression' && !cp.runnerChange)
        .map((cp) => cp.firstBad.index),
    );
  }

  /** Otava judges each series alone. */
  function otava(gate: readonly Series[], nights: number): number[][] {
    return gate.map((series) => {
      const means = series.points.slice(0, nights).map((p) => p.mean);
      // Throughput: a drop is a regression.
      return otavaChangePoints(means)
        .filter((cp) => cp.forwardChange < 0)
        .map((cp) => cp.index);
    });
  }

  /** Nights after the first bad one until a change point within ±1 of it is reported (series 0). */
  function delay(gate: readonly Series[], at: number, detector: Detector, watch: number): number {
    for (let seen = 0; seen < watch; seen += 1) {
      const found = detector(gate, at + seen + 1)[0]!;
      if (found.some((index) => Math.abs(index - at) <= 1)) return seen;
    }
    return Number.POSITIVE_INFINITY;
  }

  function stepFigures(runs: number, detector: Detector, trials: number): number[] {
    const delays: number[] = [];
    for (let t = 0; t < trials; t += 1) {
      const gate = gateOf(
        `step:${runs}:${t}`,
        HISTORY + WATCH,
        (n) => (n >= HISTORY ? 1 + (settings.step ?? 0.03) : 1),
        runs,
      );
      delays.push(delay(gate, HISTORY, detector, WATCH));
    }
    return delays;
  }

  /**
   * New regression change points per night analysed, on series without a change: `trials`
   * series, in gates of GATE_SERIES (every series of a gate counts); `perGate` the alarms
   * of each gate, to see how they cluster.
   */
  function falseRate(
    runs: number,
    detector: Detector,
    trials: number,
  ): {
    alarms: number;
    nights: number;
    perGate: number[];
    first: { alarms: number; nights: number };
  } {
    let alarms = 0;
    let nights = 0;
    const first = { alarms: 0, nights: 0 };
    const perGate: number[] = [];
    const length = HISTORY + 40;
    for (let t = 0; t < Math.ceil(trials / GATE_SERIES); t += 1) {
      const gate = gateOf(`null:${runs}:${t}`, length, () => 1, runs);
      let before: number[][] = gate.map(() => []);
      const gateAlarmsBefore = alarms;
      for (let n = 20; n <= length; n += 1) {
        const found = detector(gate, n);
        found.forEach((indexes, k) => {
          const fresh = indexes.filter((i) => !before[k]!.some((b) => Math.abs(b - i) <= 2));
          alarms += fresh.length;
          nights += 1;
          if (k === 0) {
            first.alarms += fresh.length;
            first.nights += 1;
          }
        });
        before = found;
      }
      perGate.push(alarms - gateAlarmsBefore);
    }
    return { alarms, nights, perGate, first };
  }

  function creepFigures(
    runs: number,
    detector: Detector,
    trials: number,
  ): { flagged: number; early: number } {
    const start = HISTORY - 32;
    const crossing = start + 32; // the fifth step
    let flagged = 0;
    let early = 0;
    for (let t = 0; t < trials; t += 1) {
      const gate = gateOf(
        `creep:${runs}:${t}`,
        crossing + 4,
        (n) => (n < start ? 1 : 1.01 ** Math.min(5, 1 + Math.floor((n - start) / 8))),
        runs,
      );
      if (detector(gate, start)[0]!.length > 0) early += 1;
      for (let n = crossing + 1; n <= crossing + 4; n += 1) {
        if (detector(gate, n)[0]!.some((i) => i >= start - 1)) {
          flagged += 1;
          break;
        }
      }
    }
    return { flagged, early };
  }

  function measuredRunCv(): number {
    const logs = Array.from({ length: 20_000 }, (_, i) =>
      Math.log(runThroughput(`cv:${i}`, 1, CV)),
    );
    const mean = meanOf(logs);
    return Math.sqrt(logs.reduce((s, v) => s + (v - mean) ** 2, 0) / (logs.length - 1));
  }

  return {
    makeSeries,
    gateOf,
    prefix,
    ours,
    otava,
    stepFigures,
    falseRate,
    creepFigures,
    measuredRunCv,
  };
}

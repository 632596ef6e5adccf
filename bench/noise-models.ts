// Noise models for bench:accuracy, most of them of shapes the gate's statistics do not
// assume (lognormal runs of iid requests): a fixed query set, fresh queries every run,
// heavy-tailed requests, outlier runs, day-to-day drift between baseline records and
// bimodal runs. Each draws the per-query times of one run of the offline benchmark.

import type { Rng } from './random.js';
import { drawQuerySet, FIXED_QUERY_JITTER, REFERENCE_WORKLOAD } from './synthetic.js';

/** Where a run sits: which baseline record (day) it belongs to, or the current build. */
export interface RunPlace {
  side: 'baseline' | 'current';
  /** Baseline record index (0 = oldest); the current runs are one record after the last. */
  record: number;
}

/** One pull request's world: its fixed queries and day offsets, drawn once per pair. */
export interface PairWorld {
  /** Per-query times in seconds of one run; `slowdown` 0.1 = every latency 10% slower. */
  run(rng: Rng, place: RunPlace, slowdown: number): number[];
}

export interface Scenario {
  name: string;
  description: string;
  /** `records`: the stored baseline records (days), the pull request on day `records`. */
  world(rng: Rng, records: number): PairWorld;
  /**
   * Records the baseline store holds, the window's included, when not the bench's
   * `--history` (the git data branch's): the window alone for the artifact store.
   */
  storedRecords?: number;
}

const { medianSeconds, querySigma } = REFERENCE_WORKLOAD;

function lognormalFactor(rng: Rng, cv: number): number {
  return Math.exp(Math.sqrt(Math.log1p(cv * cv)) * rng.normal());
}

/** The reference script: the same 10 queries every run, each with a little jitter. */
function fixedQueries(runCv: number, runFactor: (rng: Rng, place: RunPlace) => number = () => 1) {
  return (rng: Rng): PairWorld => {
    const offsets = drawQuerySet(rng, REFERENCE_WORKLOAD);
    return {
      run(runRng, place, slowdown) {
        const scale =
          medianSeconds *
          lognormalFactor(runRng, runCv) *
          runFactor(runRng, place) *
          (1 + slowdown);
        return offsets.map((o) => scale * Math.exp(o + FIXED_QUERY_JITTER * runRng.normal()));
      },
    };
  };
}

/** A Pareto(shape) multiplier ≥ 1 for the slow share of requests. */
function paretoFactor(rng: Rng, shape: number): number {
  return Math.pow(1 - rng.next(), -1 / shape);
}

/**
 * 50 fresh requests a run, lognormal σ 0.5, a share `stalls` of them × Pareto(α `shape`),
 * run CV 2%. A slowdown multiplies every request, or with `bimodal` a share of them only:
 * each request is `bimodal.factor(slowdown)` slower with chance `bimodal.share`.
 */
function freshRequests(
  stalls: number,
  shape: number,
  bimodal?: { share: number; factor: (slowdown: number) => number },
) {
  return (): PairWorld => ({
    run(rng, _place, slowdown) {
      const every = bimodal ? 1 : 1 + slowdown;
      const scale = medianSeconds * lognormalFactor(rng, 0.02) * every;
      return Array.from({ length: 50 }, () => {
        const tail = rng.next() < stalls ? paretoFactor(rng, shape) : 1;
        // Drawn whatever the slowdown, so the A/A and slowed pairs share their draws.
        const some = bimodal && rng.next() < bimodal.share ? bimodal.factor(slowdown) : 1;
        return scale * tail * some * Math.exp(0.5 * rng.normal());
      });
    },
  });
}

/**
 * A share of the requests slower, the rest as before (a slow path some requests take): a
 * fifth of them 5 × the slowdown slower, so the mean request time (and the throughput)
 * moves by about the slowdown, the median by far less.
 */
const BIMODAL_SHARE = 0.2;

/** Fixed queries, run CV 1.5%, each stored record and the pull request on a day ±2% (CV). */
function dayDrift(rng: Rng, records: number): PairWorld {
  // One factor per day: the baseline's records and the current build's day.
  const days = Array.from({ length: records + 1 }, () => lognormalFactor(rng, 0.02));
  return fixedQueries(0.015, (_r, place) => days[place.record]!)(rng);
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'fixed-1%',
    description: 'the same 10 queries every run (reference script), run CV 1%',
    world: fixedQueries(0.01),
  },
  {
    name: 'fixed-3%',
    description: 'the same 10 queries every run, run CV 3%',
    world: fixedQueries(0.03),
  },
  {
    name: 'fixed-5%',
    description: 'the same 10 queries every run, run CV 5% (threshold-sized noise)',
    world: fixedQueries(0.05),
  },
  {
    name: 'fresh-queries',
    description: '20 fresh queries every run (lognormal σ 0.156), run CV 1%',
    world: () => ({
      run(rng, _place, slowdown) {
        const scale = medianSeconds * lognormalFactor(rng, 0.01) * (1 + slowdown);
        return Array.from({ length: 20 }, () => scale * Math.exp(querySigma * rng.normal()));
      },
    }),
  },
  {
    name: 'heavy-tails',
    description: '50 fresh requests a run, lognormal σ 0.5, 5% of them × Pareto(α 2), run CV 2%',
    world: freshRequests(0.05, 2),
  },
  {
    name: 'pareto-1.5',
    description: 'heavy-tails with a heavier tail: 5% of the requests × Pareto(α 1.5)',
    world: freshRequests(0.05, 1.5),
  },
  {
    name: 'pareto-2.5',
    description: 'heavy-tails with a lighter tail: 5% of the requests × Pareto(α 2.5)',
    world: freshRequests(0.05, 2.5),
  },
  {
    name: 'light-tails',
    description: '50 fresh requests a run, normal with CV 20% (no stalls), run CV 2%',
    world: () => ({
      run(rng, _place, slowdown) {
        const scale = medianSeconds * lognormalFactor(rng, 0.02) * (1 + slowdown);
        // Clipped far out (−5 SD) only so that no request time is ≤ 0.
        return Array.from({ length: 50 }, () => scale * Math.max(0.01, 1 + 0.2 * rng.normal()));
      },
    }),
  },
  {
    name: 'bimodal-slowdown',
    description: `heavy-tails; the slowdown hits ${BIMODAL_SHARE * 100}% of the requests, each 5 × as much`,
    world: freshRequests(0.05, 2, { share: BIMODAL_SHARE, factor: (s) => 1 + 5 * s }),
  },
  {
    name: 'outlier-runs',
    description: 'fixed queries, run CV 2%, 1 run in 20 is 30% slower (noisy neighbour)',
    world: fixedQueries(0.02, (rng) => (rng.next() < 0.05 ? 1.3 : 1)),
  },
  {
    name: 'day-drift',
    description: 'fixed queries, run CV 1.5%, each baseline record and the PR on a day ±2% (CV)',
    world: dayDrift,
  },
  {
    name: 'day-drift-window',
    description:
      "day-drift with the window's 5 records alone to learn the drift from (artifact store, compare with 5 files)",
    world: dayDrift,
    storedRecords: 5,
  },
  {
    name: 'bimodal-runs',
    description: 'fixed queries, run CV 1%, each run in a fast or a 6% slower mode (50/50)',
    world: fixedQueries(0.01, (rng) => (rng.next() < 0.5 ? 1.06 : 1)),
  },
];

// The SLO boundary searched (src/derive/boundary-search.ts) against the 5-point grid the
// gate reads capacity off today (src/derive/crossing.ts), on the simulated `vllm serve`'s
// own latency model (examples/simulated-inf2/lib/serve-latency.mjs): a request's time is
// T0 / (1 − λ / capacity), T0 its time at no load with the simulator's run-to-run noise
// (SIM_NOISE, 1% by default, one draw a run) and per-request jitter; 100 requests of 128
// tokens a run, the SLO of examples/vllm-serve/perf-gate.yml (TTFT 500 ms and TPOT 50 ms
// for 90% of requests, E2E P99 4 s). Each trial draws the server's capacity so the SLO's
// true crossing is uniform in 1.5–7.5 requests/s: off the grid's loads. The truth is in
// closed form: the load at which the objectives' population percentiles, at the median run
// speed, reach their limits.
//
// For each trial: the search (from 1 to 8, resolution 5% of the load, a budget of 15 runs,
// one run a probe); the grid 1, 2, 4, 6, 8 at the example's 3 runs a load (15 runs: the
// capacity the mean of the 3 sweeps') and at 1 run (5 runs); and the plain reference, a
// bisection in the load with the same bracketing, budget and resolution. Printed: how
// often each lands within its resolution of the truth (the search: its own stated width,
// and only when it reached it; 5% of the truth for the others), with a Wilson interval,
// the runs each used, and how often the search's interval holds the truth.
//
//   npm run bench:boundary-search -- [--trials 200] [--seed perf-gate] [--noise 0.01] [--show N]

import { parseArgs } from 'node:util';
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import { requestBase } from '../examples/simulated-inf2/lib/serve-latency.mjs';
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import { sigmaForCv } from '../examples/simulated-inf2/lib/prng.mjs';
import {
  searchBoundary,
  type BoundaryResult,
  type BoundarySearchOptions,
} from '../src/derive/boundary-search.js';
import { capacityOfSweep, type Check } from '../src/derive/crossing.js';
import { attainmentMargin, sloMargin } from '../src/derive/slo-margin.js';
import { normalQuantile } from '../src/stats/distributions.js';
import { median, percentile } from '../src/stats/percentile.js';
import { createRng } from './random.js';
import { percent, rateWithInterval, table } from './text.js';

const { values: args } = parseArgs({
  options: {
    trials: { type: 'string', default: '200' },
    seed: { type: 'string', default: 'perf-gate' },
    noise: { type: 'string', default: '0.01' },
    show: { type: 'string', default: '0' },
  },
});
const TRIALS = Number(args.trials);
const NOISE = Number(args.noise);
if (!Number.isInteger(TRIALS) || TRIALS < 10) throw new Error('--trials: an integer ≥ 10');
if (!(NOISE >= 0 && NOISE <= 1)) throw new Error('--noise: a CV between 0 and 1, such as 0.01');

/** The simulator's defaults (lib/knobs.mjs): the vLLM Neuron stack, 60 ms TTFT, 12 ms ITL. */
const TTFT_MS = 60;
const ITL_MS = 12;
const OUTPUT_TOKENS = 128;
const PROMPTS = 100;
/** examples/vllm-serve/perf-gate.yml's SLO. */
const SLO = { ttftMs: 500, tpotMs: 50, attainment: 90, e2elP99Ms: 4000 };
const GRID = [1, 2, 4, 6, 8];
const GRID_RUNS = 3;
const TRUTH_RANGE: [number, number] = [1.5, 7.5];
const SEARCH: BoundarySearchOptions = {
  from: 1,
  to: 8,
  resolution: { relative: 0.05 },
  maxRuns: GRID.length * GRID_RUNS,
};

interface Server {
  capacity: number;
  seed: string;
}

/** The load growth at which the SLO stops holding: the stretch 1 / (1 − λ / capacity) allowed. */
function allowedStretch(noise: number): number {
  const jitter = 0.6 * sigmaForCv(noise);
  const t0Ms = TTFT_MS + (OUTPUT_TOKENS - 1) * ITL_MS;
  const e2el = SLO.e2elP99Ms / (t0Ms * Math.exp(normalQuantile(0.99) * jitter));
  const perRequest = Math.min(SLO.ttftMs / TTFT_MS, SLO.tpotMs / ITL_MS);
  const attained = perRequest / Math.exp(normalQuantile(SLO.attainment / 100) * jitter);
  return Math.min(e2el, attained);
}
const STRETCH = allowedStretch(NOISE);

/** The true capacity of a server of `capacity`: where the stretch reaches the allowed one. */
const truthOf = (server: Server) => server.capacity * (1 - 1 / STRETCH);

interface Run {
  /** The SLO's checks as the gate reads them: E2E P99 and the attainment (crossing.ts). */
  checks: Check[];
  /** The SLO's margin the search interpolates on (slo-margin.ts). */
  margin: number;
}

/** One `vllm bench serve` run at `rate` on its 100 requests. */
function runAt(server: Server, rate: number, run: string): Run {
  const knobs = {
    seed: server.seed,
    noise: NOISE,
    slowdown: 1,
    ttftMs: TTFT_MS,
    itlMs: ITL_MS,
    capacity: server.capacity,
    loadGrowth: 1,
  };
  const load = rate / server.capacity;
  // At or past saturation the queue grows without end: no request meets anything.
  const stretch = load < 1 ? 1 / (1 - load) : Infinity;
  const e2el: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < PROMPTS; i += 1) {
    const prefix = `${run}-`;
    const base = requestBase(knobs, {
      requestId: `${prefix}${i}`,
      prefix,
      outputTokens: OUTPUT_TOKENS,
    });
    e2el.push(base.seconds * 1000 * stretch);
    ratios.push(
      Math.max((base.ttftMs * stretch) / SLO.ttftMs, (base.itlMs * stretch) / SLO.tpotMs),
    );
  }
  const p99: Check = {
    value: Number.isFinite(stretch) ? percentile(e2el, 99) : Infinity,
    limit: SLO.e2elP99Ms,
    holds: 'at-most',
  };
  const good = ratios.filter((ratio) => ratio <= 1).length;
  const attainment: Check = {
    value: (100 * good) / PROMPTS,
    limit: SLO.attainment,
    holds: 'at-least',
  };
  const margin = Math.min(sloMargin([p99]), attainmentMargin(ratios, SLO.attainment / 100));
  return { checks: [p99, attainment], margin };
}

/** The grid's capacity: each run index a sweep, read by the gate's own crossing; their mean. */
function gridCapacity(server: Server, runs: number): number {
  const capacities = Array.from({ length: runs }, (_, run) => {
    const sweep = capacityOfSweep(
      GRID.map((rate) => ({
        load: rate,
        checks: runAt(server, rate, `grid-${rate}-${run}`).checks,
      })),
    );
    return sweep.kind === 'below-lowest' ? 0 : sweep.value;
  });
  return capacities.reduce((sum, c) => sum + c, 0) / capacities.length;
}

/** The plain reference: bisection in the load, the same bracketing, budget and resolution. */
function bisection(server: Server): { value: number; runs: number } {
  let runs = 0;
  const margin = (rate: number) => {
    runs += 1;
    return runAt(server, rate, `bisect-${runs}`).margin;
  };
  let low = SEARCH.from;
  let high = SEARCH.to;
  if (margin(low) < 0) [low, high] = [low / 2, low];
  else if (margin(high) >= 0) [low, high] = [high, high * 2];
  const relative = 0.05;
  while (high - low > relative * low && runs < SEARCH.maxRuns) {
    const middle = (low + high) / 2;
    if (margin(middle) >= 0) low = middle;
    else high = middle;
  }
  return { value: (low + high) / 2, runs };
}

/** `--show N`: the first N trials' probes, for a reader who wants to see the search work. */
function showTrial(truth: number, found: BoundaryResult): void {
  const probes = found.probes.map((p) => `${p.load.toFixed(3)} (${p.margin.toFixed(3)})`);
  const interval = found.interval?.map((x) => x.toFixed(3)).join('–') ?? 'none';
  console.log(
    `truth ${truth.toFixed(3)}: ${probes.join(', ')} → ${found.value.toFixed(3)}, interval ${interval}`,
  );
}

interface Tally {
  within: number;
  runs: number[];
}
const tally = (): Tally => ({ within: 0, runs: [] });

async function main(): Promise<void> {
  const rng = createRng(`boundary-search:${args.seed}`);
  const search = { ...tally(), covered: 0, unresolved: 0, errors: [] as number[] };
  const grid3 = tally();
  const grid1 = tally();
  const plain = tally();
  const started = Date.now();
  for (let trial = 0; trial < TRIALS; trial += 1) {
    const truth = TRUTH_RANGE[0] + rng.next() * (TRUTH_RANGE[1] - TRUTH_RANGE[0]);
    const server: Server = { capacity: truth / (1 - 1 / STRETCH), seed: `${args.seed}:${trial}` };
    const exact = truthOf(server);
    const near = (value: number, width: number) => Math.abs(value - exact) <= width;
    let probes = 0;
    const found = await searchBoundary((rate) => {
      probes += 1;
      return Promise.resolve(runAt(server, rate, `search-${probes}`).margin);
    }, SEARCH);
    if (trial < Number(args.show)) showTrial(exact, found);
    // Within its resolution only when it reached it: a search that ran out of runs states its bracket instead.
    if (found.resolved && near(found.value, found.resolutionWidth)) search.within += 1;
    if (found.interval && found.interval[0] <= exact && exact <= found.interval[1])
      search.covered += 1;
    if (!found.resolved) search.unresolved += 1;
    search.runs.push(found.runs);
    search.errors.push(Math.abs(found.value - exact) / exact);
    for (const [grid, runs] of [
      [grid3, GRID_RUNS],
      [grid1, 1],
    ] as const) {
      if (near(gridCapacity(server, runs), 0.05 * exact)) grid.within += 1;
      grid.runs.push(GRID.length * runs);
    }
    const bisected = bisection(server);
    if (near(bisected.value, 0.05 * exact)) plain.within += 1;
    plain.runs.push(bisected.runs);
  }
  const row = (name: string, t: Tally, rule: string) => [
    name,
    rule,
    rateWithInterval(t.within, TRIALS),
    String(median(t.runs)),
    String(Math.max(...t.runs)),
  ];
  console.log(
    `Boundary search against the grid: ${TRIALS} trials, simulated vllm serve (SIM_NOISE ${NOISE}), ` +
      `true capacity uniform in ${TRUTH_RANGE.join('–')} requests/s, seed ${args.seed}\n`,
  );
  console.log(
    table(
      ['method', 'within', 'share of trials (95% Wilson)', 'runs median', 'runs max'],
      [
        row('search (1 run a probe)', search, 'its resolution'),
        row(`grid ${GRID.join(',')} × ${GRID_RUNS} runs`, grid3, '5% of truth'),
        row(`grid ${GRID.join(',')} × 1 run`, grid1, '5% of truth'),
        row('plain bisection', plain, '5% of truth'),
      ],
    ),
  );
  const errors = [...search.errors].sort((a, b) => a - b);
  console.log(
    `\nsearch: interval holds the truth in ${rateWithInterval(search.covered, TRIALS)}; ` +
      `budget ran out before the resolution in ${search.unresolved}; ` +
      `error median ${percent(median(errors), 2)}, P95 ${percent(percentile(errors, 95), 2)}, max ${percent(errors.at(-1)!, 2)}`,
  );
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

await main();

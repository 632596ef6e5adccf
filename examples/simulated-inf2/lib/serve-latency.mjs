// How long the simulated `vllm serve` takes per token: the time at no load, stretched by
// how many other requests it is serving at that moment (continuous batching: every step of
// a bigger batch takes longer).
//
// A request's time T is T0 × (1 + a × n), n the others in flight. With requests arriving
// at λ per second, n is about λ × T (Little's law), so T = T0 / (1 − a × λ × T0): the
// queueing shape of an M/M/1 server, latency rising ever faster as λ nears 1 / (a × T0).
// a = growth / (capacity × T0) puts that point at SIM_SERVE_CAPACITY / growth requests
// per second, whatever the request lengths: SIM_SERVE_LOAD_GROWTH 1.15 ("latency grows 15%
// faster with load") leaves the time at no load as it is and moves the capacity 13% lower.
import { createRandom, sigmaForCv } from './prng.mjs';

/** Per-request jitter, relative to the run-to-run noise (as the offline benchmark's). */
const JITTER_SHARE = 0.6;

/**
 * The run's speed (lognormal around 1, CV SIM_NOISE): the same for every request of one
 * `vllm bench serve` run, which names itself by its request-id prefix.
 */
export function runFactor(knobs, requestIdPrefix) {
  return createRandom(`serve-run:${knobs.seed}:${requestIdPrefix}`).lognormal(
    1,
    sigmaForCv(knobs.noise),
  );
}

/**
 * A request's times at no load, in simulated ms, and its whole time at no load in
 * seconds (T0 above).
 */
export function requestBase(knobs, { requestId, prefix, outputTokens }) {
  const jitter = createRandom(`serve-request:${knobs.seed}:${requestId}`).lognormal(
    1,
    JITTER_SHARE * sigmaForCv(knobs.noise),
  );
  // SIM_SLOW_OPS: the step slowdown the server worked out for its tensor parallelism.
  const scale = knobs.slowdown * (knobs.stepSlowdown ?? 1) * runFactor(knobs, prefix) * jitter;
  const ttftMs = knobs.ttftMs * scale;
  const itlMs = knobs.itlMs * scale;
  return { ttftMs, itlMs, seconds: (ttftMs + Math.max(0, outputTokens - 1) * itlMs) / 1000 };
}

/** How much longer a step takes with `others` requests in flight beside this one. */
export function loadFactor(knobs, others, baseSeconds) {
  return 1 + (knobs.loadGrowth * others) / (knobs.capacity * baseSeconds);
}

/** The mean latency the model gives at `rate` requests per second (for the README's table). */
export function expectedLatency(knobs, baseSeconds, rate) {
  const load = (knobs.loadGrowth * rate) / knobs.capacity;
  return load < 1 ? baseSeconds / (1 - load) : Infinity;
}

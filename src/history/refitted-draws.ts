// How often a statistic of the newest nights is as large as observed, among nights drawn
// from the fitted night model, each draw's tau² fitted again as the real nights' was.
//
// Drifting nights estimate tau² from few independent values (13 of 60 at phi 0.8), so a
// z score whose variance leans on tau² is wider than normal, by how much depending on
// how the fit sees the nights. Refitting each draw reproduces exactly that: the draws'
// z scores spread as the real one does when nothing changed (a parametric bootstrap).

import { normal, type Random } from '../stats/rng.js';
import { bestTau2, fitEnd, type NightData } from './night-likelihood.js';
import { NightAlgebra, whiteVariances, type NightModel } from './night-model.js';
import { drawRunnerErrors } from './runner-levels.js';

/**
 * (1 + draws at least `observed`) / (1 + draws) for `statistic` of nights [from, to) drawn
 * from `model` (tau², phi, each night's runs' spread), stopping once past `alpha`.
 */
export function refittedDrawsPValue(
  model: NightModel,
  from: number,
  to: number,
  observed: number,
  alpha: number,
  draws: number,
  random: Random,
  statistic: (drawn: NightModel, algebra: NightAlgebra) => number,
): number {
  const length = to - from;
  const white = whiteVariances(model).slice(from, to);
  const spread = white.map(Math.sqrt);
  const drawn = new Float64Array(length);
  const data: NightData = { mean: drawn, white, segments: [[0, fitEnd(length)]] };
  const { tau2, phi } = model;
  const innovation = Math.sqrt(tau2 * (1 - phi * phi));
  let atLeast = 0;
  const { of, variance } = model.runners.effect;
  const runners = { of: of.slice(from, to), variance };
  for (let d = 0; d < draws; d += 1) {
    const runnerError = drawRunnerErrors(runners, random);
    let effect = Math.sqrt(tau2) * normal(random);
    for (let i = 0; i < length; i += 1) {
      if (i > 0) effect = phi * effect + innovation * normal(random);
      drawn[i] = effect + spread[i]! * normal(random) + runnerError(i);
    }
    const refitted = bestTau2(data, phi).tau2;
    const weight = Float64Array.from(white, (w) => 1 / Math.max(1e-12, refitted + w));
    const drawnModel: NightModel = {
      ...model,
      mean: drawn,
      runs: model.runs.slice(from, to),
      tau2: refitted,
      weight,
    };
    const algebra = new NightAlgebra(drawnModel, weight, white, runners);
    if (statistic(drawnModel, algebra) >= observed) atLeast += 1;
    if ((atLeast + 1) / (draws + 1) > alpha) break;
  }
  return (atLeast + 1) / (draws + 1);
}

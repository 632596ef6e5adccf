// Does the operator diff name what slowed a step? `--pairs` (250) base/head profile pairs
// per scenario from bench/opdiff-model.ts, the head 5–20% slower in all through one op, one
// engine (every op on it), one collective (every all-reduce) or 3 ops; and as many pairs
// of the same build. A regression is found when the injected ops the diff names cover
// ≥ 50% of the change, per op instance, or per op kind (every layer's copy together) where
// every copy of the kind was slowed. The same build must name nothing. Beside it, the diff
// without its noise rule (every op named): the plain ranking's false names.
//
//   npm run bench:opdiff [-- --pairs 250] [--relative-noise 0.02] [--total-noise 0.01]
//                        [--clock-jitter 0.01] [--op-jitter 0.02] [--smallest 0.05]

import { parseArgs } from 'node:util';
import { diffOps, type OpDiff, type OpDiffOptions } from '../src/profile/opdiff/op-diff.js';
import { byKind, opKind } from '../src/profile/opdiff/op-times.js';
import {
  inject,
  MODEL_OPS,
  profileOps,
  SCENARIOS,
  type Injection,
  type Jitter,
} from './opdiff-model.js';
import { createRng } from './random.js';
import { rateWithInterval, table } from './text.js';

function options(): { pairs: number; diff: OpDiffOptions; jitter: Jitter; smallest: number } {
  const { values } = parseArgs({
    options: {
      pairs: { type: 'string', default: '250' },
      'clock-jitter': { type: 'string', default: '0.01' },
      'op-jitter': { type: 'string', default: '0.02' },
      smallest: { type: 'string', default: '0.05' },
      'relative-noise': { type: 'string', default: '0.02' },
      'total-noise': { type: 'string', default: '0.01' },
    },
  });
  const pairs = Number(values.pairs);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('--pairs must be a whole number ≥ 1');
  return {
    pairs,
    jitter: { clock: Number(values['clock-jitter']), op: Number(values['op-jitter']) },
    smallest: Number(values.smallest),
    diff: {
      relativeNoise: Number(values['relative-noise']),
      totalNoise: Number(values['total-noise']),
    },
  };
}

/** The share of the change the named injected ops cover. */
function coveredShare(diff: OpDiff, injected: Set<string>): number {
  return diff.named.filter((c) => injected.has(c.op)).reduce((sum, c) => sum + c.share, 0);
}

/** Kinds every copy of which was slowed: only those may be credited at the kind level. */
function wholeKinds(injection: Injection): Set<string> {
  const injectedKinds = new Set([...injection.keys()].map(opKind));
  for (const op of MODEL_OPS) {
    if (!injection.has(op.op)) injectedKinds.delete(opKind(op.op));
  }
  return injectedKinds;
}

function found(
  base: ReturnType<typeof profileOps>,
  head: ReturnType<typeof profileOps>,
  injection: Injection,
  diff: OpDiffOptions,
) {
  const perOp = coveredShare(diffOps(base, head, diff), new Set(injection.keys()));
  const perKind = coveredShare(diffOps(byKind(base), byKind(head), diff), wholeKinds(injection));
  return Math.max(perOp, perKind) >= 0.5;
}

function main(): void {
  const { pairs, diff, jitter, smallest } = options();
  const rng = createRng('opdiff');
  const rows: string[][] = [];
  let foundAll = 0;
  for (const scenario of SCENARIOS) {
    let hits = 0;
    for (let pair = 0; pair < pairs; pair += 1) {
      const fraction = smallest + (0.2 - smallest) * rng.next();
      const injection = inject(scenario, fraction, rng);
      const [base, head] = [profileOps(rng, new Map(), jitter), profileOps(rng, injection, jitter)];
      if (found(base, head, injection, diff)) hits += 1;
    }
    foundAll += hits;
    rows.push([scenario, rateWithInterval(hits, pairs), '—']);
  }
  rows.push(['all regressions', rateWithInterval(foundAll, pairs * SCENARIOS.length), '—']);
  let falseNames = 0;
  let plainFalse = 0;
  for (let pair = 0; pair < pairs; pair += 1) {
    const [base, head] = [profileOps(rng, new Map(), jitter), profileOps(rng, new Map(), jitter)];
    const named = (d: OpDiffOptions) =>
      diffOps(base, head, d).named.length + diffOps(byKind(base), byKind(head), d).named.length;
    if (named(diff) > 0) falseNames += 1;
    if (named({ z: 0, relativeNoise: 0, totalNoise: 0 }) > 0) plainFalse += 1;
  }
  rows.push([
    'same build: names an op',
    rateWithInterval(falseNames, pairs),
    rateWithInterval(plainFalse, pairs),
  ]);
  console.log(
    `${MODEL_OPS.length} ops per step; jitter: clock sd ${jitter.clock}, op sd ${jitter.op}; regressions ${smallest * 100}–20% of the step; noise rule: ${diff.relativeNoise} of the op, ${diff.totalNoise} of the step; ${pairs} pairs each\n`,
  );
  console.log(table(['pairs', 'the diff', 'without its noise rule'], rows));
}

main();

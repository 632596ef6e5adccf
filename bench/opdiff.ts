// bench:opdiff — does the operator diff name what slowed down, and nothing when nothing did?
// Each pair is two profiled runs on the simulator (bench/opdiff-simulated.ts: both graphs,
// both NeuronCores, the simulator's run drift, core variation and op jitter, written as
// profile tables and read by the gate), the head with a regression of 5–20% of the step:
// one op, one engine, the collectives, or three ops. A regression is found when the view
// the comment leads with (profileDiffOf: by op or by op kind) names the injected ops as
// covering ≥ 50% of the change; an unchanged pair is a false name when either view names
// anything. Beside it a plain reference on the same pairs: for a regression, the op (or op
// kind) whose raw time grew most, found when injected and half the change or more; for an
// unchanged pair, the diff without its noise rule (every op that moved at all).

import { parseArgs } from 'node:util';
import type { OpDiff, OpTime, ProfileDiff } from '../src/model.js';
import { opKind } from '../src/profile/opdiff/op-times.js';
import { profileDiffOf } from '../src/profile/opdiff/profile-diff.js';
import {
  inject,
  OP_NAMES,
  SCENARIOS,
  simulatedProfile,
  type Injection,
  type Noise,
} from './opdiff-simulated.js';
import { createRng } from './random.js';
import { rateWithInterval, table } from './text.js';

function options(): { pairs: number; noise: Noise; smallest: number } {
  const { values } = parseArgs({
    options: {
      pairs: { type: 'string', default: '250' },
      'run-noise': { type: 'string', default: '0.01' },
      'op-jitter': { type: 'string', default: '0.02' },
      smallest: { type: 'string', default: '0.05' },
    },
  });
  const pairs = Number(values.pairs);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('--pairs must be a whole number ≥ 1');
  return {
    pairs,
    noise: { run: Number(values['run-noise']), op: Number(values['op-jitter']) },
    smallest: Number(values.smallest),
  };
}

/** Kinds every copy of which was slowed: only those may be credited at the kind level. */
function wholeKinds(injected: Set<string>): Set<string> {
  const kinds = new Set([...injected].map(opKind));
  for (const op of OP_NAMES) if (!injected.has(op)) kinds.delete(opKind(op));
  return kinds;
}

/** The share of the change the lead view's named injected ops cover. */
function covered(diff: ProfileDiff, injection: Injection): number {
  const credited = diff.lead === 'ops' ? injection.ops : wholeKinds(injection.ops);
  return diff[diff.lead].named
    .filter((change) => credited.has(change.op))
    .reduce((sum, change) => sum + change.share, 0);
}

/** Ops that moved at all beyond the shared factor: the diff without its noise rule. */
function movedAtAll(diff: OpDiff): number {
  return diff.named.length + diff.other.ops;
}

/**
 * The plain reference: the one op, or op kind, whose raw time grew most (no shared factor,
 * no noise rule), found when it is injected and its growth is half the change or more.
 */
function plainFound(base: OpTime[], head: OpTime[], injection: Injection): boolean {
  const grown = (key: (op: string) => string) => {
    const change = new Map<string, number>();
    for (const op of base) change.set(key(op.op), (change.get(key(op.op)) ?? 0) - op.deviceNs);
    for (const op of head) change.set(key(op.op), (change.get(key(op.op)) ?? 0) + op.deviceNs);
    const total = [...change.values()].reduce((sum, ns) => sum + ns, 0);
    const [top, ns] = [...change].sort((a, b) => b[1] - a[1])[0]!;
    return { top, share: total > 0 ? ns / total : 0 };
  };
  const byOp = grown((op) => op);
  const byKind = grown(opKind);
  return (
    (injection.ops.has(byOp.top) && byOp.share >= 0.5) ||
    (wholeKinds(injection.ops).has(byKind.top) && byKind.share >= 0.5)
  );
}

async function main(): Promise<void> {
  const { pairs, noise, smallest } = options();
  const rng = createRng('opdiff');
  const rows: string[][] = [];
  let foundAll = 0;
  let pairNo = 0;
  let plainAll = 0;
  const pair = async (injection?: Injection) => {
    pairNo += 1;
    const base = await simulatedProfile(`base-${pairNo}`, noise);
    const head = await simulatedProfile(`head-${pairNo}`, noise, injection?.slowOps ?? []);
    return { diff: profileDiffOf(base, head, 'base')!, base: base.ops!, head: head.ops! };
  };
  for (const scenario of SCENARIOS) {
    let hits = 0;
    let plain = 0;
    for (let i = 0; i < pairs; i += 1) {
      const injection = inject(scenario, smallest + (0.2 - smallest) * rng.next(), rng);
      const { diff, base, head } = await pair(injection);
      if (covered(diff, injection) >= 0.5) hits += 1;
      if (plainFound(base, head, injection)) plain += 1;
    }
    foundAll += hits;
    plainAll += plain;
    rows.push([scenario, rateWithInterval(hits, pairs), rateWithInterval(plain, pairs)]);
  }
  const all = pairs * SCENARIOS.length;
  rows.push(['all regressions', rateWithInterval(foundAll, all), rateWithInterval(plainAll, all)]);
  let falseNames = 0;
  let plainFalse = 0;
  for (let i = 0; i < pairs; i += 1) {
    const { diff } = await pair();
    if (diff.ops.named.length + diff.kinds.named.length > 0) falseNames += 1;
    if (movedAtAll(diff.ops) > 0) plainFalse += 1;
  }
  rows.push([
    'same build: names an op',
    rateWithInterval(falseNames, pairs),
    rateWithInterval(plainFalse, pairs),
  ]);
  console.log(
    `${OP_NAMES.length} ops (both graphs, 2 NeuronCores) per profile, from the simulator; run noise ${noise.run}, op jitter ${noise.op}; regressions ${smallest * 100}–20% of the step; ${pairs} pairs each\n`,
  );
  console.log(table(['pairs', 'the diff', 'plain: largest raw growth / no noise rule'], rows));
}

await main();

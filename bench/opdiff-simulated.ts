// Profiles for the operator-diff bench, made by the simulator and read by the gate: the
// simulated device's figures of both graphs on both NeuronCores (device-figures.mjs: run
// drift, each core's variation, each op's own jitter and rare stalls, SIM_SLOW_OPS), written
// as Neuron Explorer tables by the simulated profiler (profile-tables.mjs) and read back by
// the gate's reader (readProfileTables, profileDetail): every step but the processes.
// Regressions are SIM_SLOW_OPS selectors whose factors add 5–20% to the step.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileSummary } from '../src/model.js';
import { profileDetail } from '../src/profile/tables/profile-detail.js';
import { readProfileTables } from '../src/profile/tables/profile-tables.js';
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import { DEFAULT_CONFIGURATION } from '../examples/simulated-inf2/lib/benchmark-args.mjs';
// @ts-expect-error: as above
import { deviceFigures } from '../examples/simulated-inf2/lib/device-figures.mjs';
// @ts-expect-error: as above
import { createRandom, sigmaForCv } from '../examples/simulated-inf2/lib/prng.mjs';
// @ts-expect-error: as above
import { summarizeGraph } from '../examples/simulated-inf2/lib/profile-summary.mjs';
// @ts-expect-error: as above
import { writeProfileTables } from '../examples/simulated-inf2/lib/profile-tables.mjs';
import type { Rng } from './random.js';
import * as opModel from './simulator-op-model.js';
import type { SpecOp } from './simulator-op-model.js';

interface SlowOp {
  selector: string;
  factor: number;
}

const TP = 2;
const CONFIGURATION = { ...DEFAULT_CONFIGURATION, tensor_parallel_size: TP };
/** Every op of every graph, with its weight: what a share of the step is measured in. */
const ALL_OPS: SpecOp[] = opModel.GRAPHS.flatMap((graph) => opModel.graphOps(graph, TP));
const STEP_US = ALL_OPS.reduce((sum, op) => sum + op.us, 0);
/** Distinct op names (the same name in both graphs is one op to the diff). */
export const OP_NAMES = [...new Set(ALL_OPS.map((op) => op.op))];

export type Scenario = 'one op' | 'one engine' | 'one collective' | 'spread over 3 ops';
export const SCENARIOS: Scenario[] = [
  'one op',
  'one engine',
  'one collective',
  'spread over 3 ops',
];

/** An injected regression: the selectors, and the op names they slow. */
export interface Injection {
  slowOps: SlowOp[];
  ops: Set<string>;
}

/** Selectors that add `fraction` of the step, slowing `chosen` ops by one factor. */
function slowing(selector: string, chosen: SpecOp[], fraction: number): Injection {
  const us = chosen.reduce((sum, op) => sum + op.us, 0);
  return {
    slowOps: [{ selector, factor: 1 + (fraction * STEP_US) / us }],
    ops: new Set(chosen.map((op) => op.op)),
  };
}

export function inject(scenario: Scenario, fraction: number, rng: Rng): Injection {
  const pick = () => OP_NAMES[Math.floor(rng.next() * OP_NAMES.length)]!;
  const named = (name: string) => ALL_OPS.filter((op) => op.op === name);
  switch (scenario) {
    case 'one op': {
      const name = pick();
      return slowing(`op:${name}`, named(name), fraction);
    }
    case 'one engine': {
      const engines = ['tensor', 'vector', 'scalar'];
      const engine = engines[Math.floor(rng.next() * engines.length)]!;
      return slowing(
        `engine:${engine}`,
        ALL_OPS.filter((op) => op.engine === engine),
        fraction,
      );
    }
    case 'one collective':
      return slowing(
        `collective:${opModel.COLLECTIVE_OPERATION}`,
        ALL_OPS.filter((op) => op.collective),
        fraction,
      );
    case 'spread over 3 ops': {
      const names = new Set<string>();
      while (names.size < 3) names.add(pick());
      const parts = [...names].map((name) => slowing(`op:${name}`, named(name), fraction / 3));
      return { slowOps: parts.flatMap((p) => p.slowOps), ops: new Set(names) };
    }
  }
}

export interface Noise {
  /** SIM_NOISE: the run's drift and each core's variation (CV). */
  run: number;
  /** SIM_OP_JITTER: each op's own (CV). */
  op: number;
}

/** One profiled run on the simulator, its tables read by the gate. */
export async function simulatedProfile(
  run: string,
  noise: Noise,
  slowOps: SlowOp[] = [],
): Promise<Pick<ProfileSummary, 'ops'>> {
  const knobs = {
    seed: 1,
    run,
    noise: noise.run,
    opJitter: noise.op,
    slowdown: 1,
    slowOps,
    queries: 1,
  };
  const drift = createRandom(`bench-drift:${run}`).lognormal(1, sigmaForCv(noise.run));
  const graphs = [0, 1].flatMap((vnc) =>
    (
      deviceFigures({ knobs, configuration: CONFIGURATION, drift, vnc, mode: 'model' }) as {
        graph: string;
      }[]
    ).map((entry) => {
      const ntff = { vnc, captured_at: '2026-11-30T00:00:00Z', instance_type: 'inf2.xlarge' };
      const neff = { graph: entry.graph, tensor_parallel_size: TP };
      return { ntff, neff, entry, summary: summarizeGraph({ ntff, neff, entry }) };
    }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'opdiff-'));
  try {
    writeProfileTables(dir, graphs, run);
    return profileDetail([{ where: run, tables: await readProfileTables(dir) }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

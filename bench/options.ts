// The options the simulation benches share: how many trials, and the seed they draw from.

import { parseArgs } from 'node:util';

/** `--trials N` (at least 10, 2,000 by default) and `--seed` (perf-gate) from the command line. */
export function trialsAndSeed(): { trials: number; seed: string } {
  const { values } = parseArgs({
    options: {
      trials: { type: 'string', default: '2000' },
      seed: { type: 'string', default: 'perf-gate' },
    },
  });
  const trials = Number(values.trials);
  if (!Number.isInteger(trials) || trials < 10) {
    throw new Error(`--trials must be an integer of at least 10, got ${values.trials}`);
  }
  return { trials, seed: values.seed };
}

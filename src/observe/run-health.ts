// Clean runs that should not be judged: those during which neuron-monitor saw an execution
// end in an error or new ECC events on the device (memory-figures.ts: `unhealthy`). Their
// timings measured a faulty device, not the change, so they are left out of the verdict and
// named; a benchmark whose every run was so has no verdict at all.

import type { RunOutcome } from '../model.js';

export interface HealthyRuns {
  healthy: RunOutcome[];
  /** One line per run left out, saying why. */
  leftOut: string[];
}

export function healthyRuns(clean: readonly RunOutcome[]): HealthyRuns {
  const healthy: RunOutcome[] = [];
  const leftOut: string[] = [];
  for (const run of clean) {
    const problems = run.memory?.unhealthy ?? [];
    if (problems.length === 0) healthy.push(run);
    else {
      leftOut.push(
        `run ${run.index} is left out of the verdict: neuron-monitor saw ${problems.join(' and ')} while it ran. ` +
          'Re-run the job; if it recurs, the device needs a look (neuron-ls, the driver log)',
      );
    }
  }
  return { healthy, leftOut };
}

// Bisection trials on drawn samples: the gate's own parsing and aggregation of
// offline-benchmark results drawn from the bench's noise model, and the real search and
// decision code (src/bisect/search.ts), with no git and no processes, so thousands of
// trials take seconds.

import type { ParsedRun } from '../src/formats/aggregate.js';
import { bisect, type Measured, type Measurer, type SearchOptions } from '../src/bisect/search.js';
import { parseRun, sideResult } from './gate.js';
import { createRng, type Rng } from './random.js';
import {
  drawQuerySet,
  FIXED_QUERY_JITTER,
  REFERENCE_WORKLOAD,
  syntheticRunText,
  type NoiseModel,
} from './synthetic.js';

export interface SampledTrial {
  /** Index of the culprit among the candidates (0-based). */
  culprit: number;
  found: number;
  steps: number;
  runs: number;
  uncertainSteps: number;
}

/** Commits `c1 … cN` after the good commit `c0`; from the culprit on, every run is slower. */
export async function sampledTrial(
  seed: string,
  commits: number,
  slowdown: number,
  runCv: number,
  settings: Omit<SearchOptions, 'good' | 'candidates'>,
): Promise<SampledTrial> {
  const rng = createRng(seed);
  const culprit = Math.floor(rng.next() * commits);
  const model: NoiseModel = {
    ...REFERENCE_WORKLOAD,
    runCv,
    fixedQueries: {
      queryOffsets: drawQuerySet(createRng(`${seed}/queries`), REFERENCE_WORKLOAD),
      queryJitter: FIXED_QUERY_JITTER,
    },
  };
  const candidates = Array.from({ length: commits }, (_, i) => `c${i + 1}`);
  const measurer = new SampledMeasurer(rng, model, (commit) =>
    commit !== 'c0' && Number(commit.slice(1)) - 1 >= culprit ? slowdown : 0,
  );
  const result = await bisect(measurer, { ...settings, good: 'c0', candidates });
  return {
    culprit,
    found: candidates.indexOf(result.firstBad),
    steps: result.steps.length,
    runs: result.totalRuns,
    uncertainSteps: result.steps.filter((s) => s.uncertain).length,
  };
}

class SampledMeasurer implements Measurer {
  private readonly runs = new Map<string, ParsedRun[]>();

  constructor(
    private readonly rng: Rng,
    private readonly model: NoiseModel,
    private readonly slowdownOf: (commit: string) => number,
  ) {}

  measure(commit: string, count: number): Promise<Measured> {
    const runs = this.runs.get(commit) ?? [];
    for (let i = 0; i < count; i += 1) {
      runs.push(parseRun(syntheticRunText(this.rng, this.model, this.slowdownOf(commit))));
    }
    this.runs.set(commit, runs);
    return Promise.resolve({
      metrics: sideResult(runs).metrics,
      environment: {},
      runs: runs.length,
    });
  }

  release(): Promise<void> {
    return Promise.resolve();
  }
}

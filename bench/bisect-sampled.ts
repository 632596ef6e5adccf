// Bisection trials on drawn samples: the gate's own parsing and aggregation of
// offline-benchmark results drawn from the bench's noise model, and the real search and
// decision code (src/bisect/search.ts), with no git and no processes, so thousands of
// trials take seconds.

import type { ParsedRun } from '../src/formats/aggregate.js';
import {
  bisect,
  UnmeasurableCommit,
  type Measured,
  type Measurer,
  type SearchOptions,
} from '../src/bisect/search.js';
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
  /** Commits tried that could not be built (skipped). */
  skipped: number;
  /** The answer's range (lastGood exclusive, firstBad inclusive) holds the culprit. */
  inRange: boolean;
  /** Commits in that range: 1 when the culprit is named alone. */
  rangeSize: number;
}

/** Commits `c1 … cN` after the good commit `c0`; from the culprit on, every run is slower. */
export async function sampledTrial(
  seed: string,
  commits: number,
  slowdown: number,
  runCv: number,
  settings: Omit<SearchOptions, 'good' | 'candidates'>,
  /** Share of the commits between the ends that cannot be built (drawn per commit). */
  unbuildable = 0,
): Promise<SampledTrial> {
  const rng = createRng(seed);
  const culprit = Math.floor(rng.next() * commits);
  const brokenRng = createRng(`${seed}/broken`);
  const broken = new Set(
    Array.from({ length: commits - 1 }, (_, i) => `c${i + 1}`).filter(
      () => brokenRng.next() < unbuildable,
    ),
  );
  const model: NoiseModel = {
    ...REFERENCE_WORKLOAD,
    runCv,
    fixedQueries: {
      queryOffsets: drawQuerySet(createRng(`${seed}/queries`), REFERENCE_WORKLOAD),
      queryJitter: FIXED_QUERY_JITTER,
    },
  };
  const candidates = Array.from({ length: commits }, (_, i) => `c${i + 1}`);
  const measurer = new SampledMeasurer(
    rng,
    model,
    (commit) => (commit !== 'c0' && Number(commit.slice(1)) - 1 >= culprit ? slowdown : 0),
    broken,
  );
  const result = await bisect(measurer, { ...settings, good: 'c0', candidates });
  const found = candidates.indexOf(result.firstBad);
  const from = found - result.undecided.length;
  return {
    culprit,
    found: result.undecided.length === 0 ? found : -1,
    steps: result.steps.length,
    runs: result.totalRuns,
    uncertainSteps: result.steps.filter((s) => s.uncertain).length,
    skipped: result.skipped.length,
    inRange: culprit >= from && culprit <= found,
    rangeSize: result.undecided.length + 1,
  };
}

class SampledMeasurer implements Measurer {
  private readonly runs = new Map<string, ParsedRun[]>();

  constructor(
    private readonly rng: Rng,
    private readonly model: NoiseModel,
    private readonly slowdownOf: (commit: string) => number,
    private readonly broken: ReadonlySet<string> = new Set(),
  ) {}

  measure(commit: string, count: number): Promise<Measured> {
    if (this.broken.has(commit)) {
      return Promise.reject(new UnmeasurableCommit(`commit ${commit}: the build failed`));
    }
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

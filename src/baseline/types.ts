import type { BenchmarkResult } from '../model.js';

/** The results a run is compared against, and where they came from. */
export interface Baseline {
  /** For the reader: file names, a branch and commit, ... */
  source: string;
  benchmarks: BenchmarkResult[];
}

/** Where baselines live. The file store comes first; git branch and artifact stores follow. */
export interface BaselineStore {
  /** The baseline, or undefined when there is none yet. */
  load(): Promise<Baseline | undefined>;
}

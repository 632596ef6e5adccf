import type { BaselineInfo, BenchmarkResult, Environment } from '../model.js';
import type { BaselineRecord } from './record.js';

/** The results a run is compared against, and where they came from. */
export interface Baseline {
  /** For the reader: file names, a branch and commit, ... */
  source: string;
  /** Every stored result, by benchmark name (file stores). */
  benchmarks: BenchmarkResult[];
  /** What reading the store skipped (a record that does not parse, ...). */
  warnings?: string[];
  /**
   * Files the user named (`--baseline`, `baseline-path`): when none of their benchmarks
   * matches a measured one, the gate stops with an error instead of passing.
   */
  named?: boolean;
  /**
   * Record stores choose per benchmark, for the environment the current run is measured
   * on, reading older records when the newest hold too few that fit; without it the
   * result of the same name in `benchmarks` is the baseline (see chooseByName).
   */
  choose?: (name: string, environment: Environment) => Promise<BaselineChoice>;
  /**
   * Record stores: a benchmark's stored records, newest first (for the regression streak);
   * after `choose`, as far back as it read.
   */
  history?: (name: string) => BaselineRecord[];
  /**
   * Record stores: the names of the benchmarks read up front, for a result named by its
   * settings whose name is not among them (baseline/by-settings.ts).
   */
  names?: () => string[];
}

/** One benchmark's baseline and how it was chosen. */
export interface BaselineChoice {
  /** Undefined when no stored record fits: the benchmark has no baseline. */
  result?: BenchmarkResult;
  info: BaselineInfo;
  /** What choosing skipped or could not read, for the benchmark's report. */
  warnings?: string[];
}

/** Where baselines live: files given by path, a git data branch, or an artifact. */
export interface BaselineStore {
  /** The baseline, or undefined when there is none yet. */
  load(): Promise<Baseline | undefined>;
}

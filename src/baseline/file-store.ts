import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { refuseLinkedFolderOf } from '../fs/no-links.js';
import type { GateConfig } from '../config/types.js';
import type { BenchmarkResult } from '../model.js';
import { readResultFiles, type ReadOptions } from './result-files.js';
import { BASELINE_FILE_KIND } from './result-schema.js';
import { SampleRunsJson, withStoredSamples } from './stored-samples.js';
import type { Baseline, BaselineStore } from './types.js';

export interface FileStoreOptions extends ReadOptions {
  /**
   * The store's own file (the action's `baseline-store: file` writes it): missing means no
   * baseline yet, and the first storing run creates it. Any other missing path is an error.
   */
  createdOnWrite?: string;
}

/** A baseline path (`--baseline`, `baseline-path`) that does not exist: most often a typo. */
export const MISSING_BASELINE_FILE =
  'not found: the baseline file is missing. Check the path and its spelling; to record a ' +
  'baseline, run once with --save-baseline (CLI) or save-baseline (action) instead.';

/** A baseline read from files given by path (`baseline-path`, `--baseline`). */
export class FileBaselineStore implements BaselineStore {
  constructor(
    private readonly paths: string[],
    private readonly options: FileStoreOptions,
  ) {}

  async load(): Promise<Baseline | undefined> {
    const paths = await this.existingPaths();
    if (paths.length === 0) return undefined;
    const benchmarks = await readResultFiles(paths, this.options);
    return { source: paths.map((path) => basename(path)).join(', '), benchmarks, named: true };
  }

  /** The paths to read: all of them, less the store's own file while it does not exist. */
  private async existingPaths(): Promise<string[]> {
    const own = this.options.createdOnWrite;
    if (own === undefined || !(await isMissing(own))) return this.paths;
    return this.paths.filter((path) => path !== own);
  }
}

/** Nothing at `path`; any other problem (a folder, no permission) is left for the read to name. */
async function isMissing(path: string): Promise<boolean> {
  try {
    await stat(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Writes results as a baseline file that `--baseline` / `baseline-path` reads later. */
export async function writeBaselineFile(
  path: string,
  results: BenchmarkResult[],
  options: { now?: Date; root?: string } = {},
): Promise<void> {
  // Written after the benchmark ran, outside its sandbox: never into a folder it linked.
  if (options.root !== undefined) await refuseLinkedFolderOf(options.root, path);
  await writeFileAtomic(path, baselineFileText(results, options.now ?? new Date()));
}

/** The content of a baseline file holding `results`. */
export function baselineFileText(results: BenchmarkResult[], now: Date = new Date()): string {
  // Samples as a stored record holds them: each set once, reduced, percentiles preserved.
  const json = new SampleRunsJson();
  const benchmarks = results.map((result) => ({
    ...result,
    metrics: json.metrics(withStoredSamples(result.metrics)),
  }));
  return json.stringify({
    kind: BASELINE_FILE_KIND,
    schemaVersion: 1,
    createdAt: now.toISOString(),
    benchmarks,
  });
}

/**
 * The baseline store of a configured gate. A plain result file names no benchmark; it is
 * taken as the baseline of the only configured benchmark. `createdOnWrite`: see
 * FileStoreOptions.
 */
export function fileBaselineStoreFor(
  config: GateConfig,
  options: { createdOnWrite?: string } = {},
): FileBaselineStore {
  const only = config.benchmarks.length === 1 ? config.benchmarks[0]?.name : undefined;
  return new FileBaselineStore(config.baselinePaths, {
    format: 'auto',
    fallbackName: only ?? 'benchmark',
    window: config.baselineWindow,
    missing: MISSING_BASELINE_FILE,
    ...options,
  });
}

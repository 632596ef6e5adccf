import { basename } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import type { GateConfig } from '../config/types.js';
import type { BenchmarkResult } from '../model.js';
import { readResultFiles, type ReadOptions } from './result-files.js';
import { BASELINE_FILE_KIND } from './result-schema.js';
import type { Baseline, BaselineStore } from './types.js';

/** A baseline read from files given by path (`baseline-path`, `--baseline`). */
export class FileBaselineStore implements BaselineStore {
  constructor(
    private readonly paths: string[],
    private readonly options: ReadOptions,
  ) {}

  async load(): Promise<Baseline | undefined> {
    if (this.paths.length === 0) return undefined;
    const benchmarks = await readResultFiles(this.paths, this.options);
    return { source: this.paths.map((path) => basename(path)).join(', '), benchmarks };
  }
}

/** Writes results as a baseline file that `--baseline` / `baseline-path` reads later. */
export async function writeBaselineFile(
  path: string,
  results: BenchmarkResult[],
  now: Date = new Date(),
): Promise<void> {
  await writeFileAtomic(path, baselineFileText(results, now));
}

/** The content of a baseline file holding `results`. */
export function baselineFileText(results: BenchmarkResult[], now: Date = new Date()): string {
  const file = {
    kind: BASELINE_FILE_KIND,
    schemaVersion: 1,
    createdAt: now.toISOString(),
    benchmarks: results,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * The baseline store of a configured gate. A plain result file names no benchmark; it is
 * taken as the baseline of the only configured benchmark.
 */
export function fileBaselineStoreFor(config: GateConfig): FileBaselineStore {
  const only = config.benchmarks.length === 1 ? config.benchmarks[0]?.name : undefined;
  return new FileBaselineStore(config.baselinePaths, {
    format: 'auto',
    fallbackName: only ?? 'benchmark',
    window: config.baselineWindow,
  });
}

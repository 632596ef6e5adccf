// The runs of a test's result: clean runs of 1 s that passed, as a gate run records them.
import type { HostLoad, RunInfo } from '../../src/model.js';

/** `count` clean runs of 1 s that passed, numbered from 1, each with `load` when given. */
export function cleanRuns(count: number, load?: HostLoad): RunInfo[] {
  return Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    kind: 'clean' as const,
    ok: true,
    durationMs: 1000,
    exitCode: 0,
    timedOut: false,
    ...(load === undefined ? {} : { hostLoad: load }),
  }));
}

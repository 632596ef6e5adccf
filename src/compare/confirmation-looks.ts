// A benchmark's confirmation looks (sequential.ts): while a gated metric is open, the next
// look adds what can settle it. A metric of the runs gets clean runs; the server's start-up
// (server_startup, one value per clean start) gets restarts of the server instead: a
// confirmation run against a server that is already up adds no start, and a restart costs
// one model load where a run costs the whole benchmark. Each kind catches up with the
// plan's extra at that look (0, 2, 5, 10 for confirm-runs 10), so the starts at the last
// look are as many as the plan projected and `confirm-runs` bounds the restarts as it
// bounds the runs; every look is judged at its part of the benchmark's budget as before.

import { STARTS_METRIC } from './alike-starts.js';
import { needsMoreRuns } from './sequential.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport } from '../model.js';

/** What the looks so far added: clean runs, and restarts of the server that became ready. */
export interface Taken {
  runs: number;
  restarts: number;
}

/**
 * What the next look adds to reach `extra`, the plan's extra at that look: runs while a
 * metric of the runs is open, restarts while server_startup is. Without a server to
 * restart (`canRestart` false), an open start-up asks for runs, as any open metric.
 */
export function lookAdds(
  reports: readonly BenchmarkReport[],
  extra: number,
  taken: Taken,
  canRestart: boolean,
): Taken {
  const open = reports.flatMap((r) => r.metrics).filter((m) => m.worthConfirming === true);
  const isStart = (id: string) => canRestart && id === STARTS_METRIC;
  const runsOpen = open.some((m) => !isStart(m.id));
  const startsOpen = open.some((m) => isStart(m.id));
  return {
    runs: runsOpen ? Math.max(0, extra - taken.runs) : 0,
    restarts: startsOpen ? Math.max(0, extra - taken.restarts) : 0,
  };
}

/** The confirmation record's restarts (withConfirmation): none said when there were none. */
export function restartsOf(taken: Taken): { restarts?: number } {
  return taken.restarts > 0 ? { restarts: taken.restarts } : {};
}

/** Restarts that became ready, and why the restarting stopped early. */
export interface Restarted {
  restarts: number;
  failure?: string;
}

export interface ConfirmLooksOptions {
  /** The benchmark, for the log. */
  name: string;
  /** The plan's extra at each look (sequential.ts: LookPlan). */
  schedule: readonly number[];
  /** The entry's `confirm-runs`, for the log. */
  maxExtra: number;
  log: Logger;
  /** Judges every run and start so far at look `look`'s part of the budget. */
  judgeLook: (look: number) => Promise<BenchmarkReport[]>;
  /** Takes `count` more clean runs, the first of them confirmation run `step`. */
  takeRuns: (count: number, step: number) => Promise<void>;
  /** Restarts the server `count` times, the first restart `step`; undefined without a server of this benchmark's. */
  restart?: (count: number, step: number) => Promise<Restarted>;
}

export interface ConfirmedLooks {
  reports: BenchmarkReport[];
  taken: Taken;
  /** The look the reports are of. */
  lastLook: number;
  /** A restart that never became ready: the start-up is judged on the starts before it. */
  warnings: string[];
}

/** The looks after the first (`first`, look 0), each adding what its open metrics need. */
export async function confirmLooks(
  first: BenchmarkReport[],
  options: ConfirmLooksOptions,
): Promise<ConfirmedLooks> {
  const { schedule, log, name, maxExtra } = options;
  const taken: Taken = { runs: 0, restarts: 0 };
  const warnings: string[] = [];
  let reports = first;
  let lastLook = 0;
  for (let look = 1; look < schedule.length && needsMoreRuns(reports); look += 1) {
    const adds = lookAdds(reports, schedule[look]!, taken, options.restart !== undefined);
    if (adds.runs + adds.restarts === 0) break;
    let failure: string | undefined;
    if (adds.restarts > 0) {
      log.info(
        `${name}: server_startup is not settled yet; ${adds.restarts} confirmation restart(s) ` +
          `of the server (at most ${maxExtra} in all)`,
      );
      const restarted = await options.restart!(adds.restarts, taken.restarts + 1);
      taken.restarts += restarted.restarts;
      failure = restarted.failure;
      if (failure) warnings.push(failure);
    }
    if (adds.runs > 0 && failure === undefined) {
      log.info(
        `${name}: a change is not settled yet (it may be a regression of twice its threshold); ` +
          `${adds.runs} confirmation run(s) more (at most ${maxExtra} in all)`,
      );
      await options.takeRuns(adds.runs, taken.runs + 1);
      taken.runs = schedule[look]!;
    }
    lastLook = look;
    reports = await options.judgeLook(look);
    if (failure) break;
  }
  return { reports, taken, lastLook, warnings };
}

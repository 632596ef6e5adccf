// A benchmark's confirmation looks (src/compare/confirmation-looks.ts): while server_startup
// is open the looks restart the server, while a metric of the runs is open they take clean
// runs, each kind catching up with the plan's extra at that look, never beyond
// confirm-runs; a decided look stops them.
import { describe, expect, it } from 'vitest';
import {
  confirmLooks,
  lookAdds,
  type ConfirmLooksOptions,
} from '../../src/compare/confirmation-looks.js';
import { lookSchedule } from '../../src/compare/sequential.js';
import { MemoryLogger } from '../../src/log.js';
import type { BenchmarkReport, Comparison } from '../../src/model.js';

const SCHEDULE = lookSchedule(10);

function metric(id: string, open: boolean, verdict = open ? 'inconclusive' : 'pass'): Comparison {
  return {
    id,
    verdict,
    change: 0.2,
    ...(open ? { worthConfirming: true } : {}),
  } as unknown as Comparison;
}

function report(metrics: Comparison[]): BenchmarkReport[] {
  const failed = metrics.some((m) => m.verdict === 'regression');
  return [
    {
      name: 'served',
      verdict: failed ? 'regression' : 'pass',
      metrics,
      warnings: [],
    } as unknown as BenchmarkReport,
  ];
}

/**
 * The looks with a judge that says which metrics are open from the starts and runs so far:
 * `startsOpen(starts)`, `runsOpen(runs)`; it records each look's starts and runs.
 */
async function looksWith(
  startsOpen: (restarts: number, runs: number) => boolean | 'regression',
  runsOpen: (runs: number) => boolean,
  options: { canRestart?: boolean; failAt?: number } = {},
) {
  let runs = 0;
  let restarts = 0;
  const looks: { look: number; runs: number; restarts: number }[] = [];
  const judge = () => {
    const starts = startsOpen(restarts, runs);
    return report([
      metric('server_startup', starts === true, starts === 'regression' ? 'regression' : undefined),
      metric('throughput', runsOpen(runs)),
    ]);
  };
  const restart: ConfirmLooksOptions['restart'] = async (count, step) => {
    for (let i = 0; i < count; i += 1) {
      if (step + i === options.failAt)
        return { restarts: i, failure: `restart ${step + i} failed` };
      restarts += 1;
    }
    return { restarts: count };
  };
  const confirmed = await confirmLooks(judge(), {
    name: 'served',
    schedule: SCHEDULE,
    maxExtra: 10,
    log: new MemoryLogger(),
    judgeLook: async (look) => {
      looks.push({ look, runs, restarts });
      return judge();
    },
    takeRuns: async (count, step) => {
      expect(step).toBe(runs + 1);
      runs += count;
    },
    ...(options.canRestart === false ? {} : { restart }),
  });
  return { confirmed, looks, runs: () => runs, restarts: () => restarts };
}

describe('confirmLooks', () => {
  it('restarts the server, and takes no run, while server_startup alone is open', async () => {
    const { confirmed, looks } = await looksWith(
      (restarts) => restarts < 5,
      () => false,
    );
    // Looks after 0, 2 and 5 restarts (0, 2, 5, 10): settled at the third.
    expect(looks).toEqual([
      { look: 1, runs: 0, restarts: 2 },
      { look: 2, runs: 0, restarts: 5 },
    ]);
    expect(confirmed.taken).toEqual({ runs: 0, restarts: 5 });
    expect(confirmed.lastLook).toBe(2);
  });

  it('stops at the first look that decides it, a failure too', async () => {
    const { confirmed, looks } = await looksWith(
      (restarts) => (restarts >= 2 ? 'regression' : true),
      () => false,
    );
    expect(looks).toEqual([{ look: 1, runs: 0, restarts: 2 }]);
    expect(confirmed.reports[0]!.verdict).toBe('regression');
  });

  it('never restarts more than confirm-runs, however long it stays open', async () => {
    const { confirmed, looks } = await looksWith(
      () => true,
      () => false,
    );
    expect(looks.map((l) => l.restarts)).toEqual([2, 5, 10]);
    expect(confirmed.taken.restarts).toBe(10);
  });

  it('lets each kind catch up with the plan when it is open again', async () => {
    // Both open at the first look; the runs alone at the second; the starts at the third.
    const { confirmed, looks } = await looksWith(
      (restarts, runs) => restarts < 10 && !(restarts === 2 && runs === 2),
      (runs) => runs < 5,
    );
    expect(looks).toEqual([
      { look: 1, runs: 2, restarts: 2 },
      { look: 2, runs: 5, restarts: 2 },
      { look: 3, runs: 5, restarts: 10 },
    ]);
    expect(confirmed.taken).toEqual({ runs: 5, restarts: 10 });
  });

  it('takes runs for an open start-up without a server to restart', async () => {
    const { confirmed } = await looksWith(
      () => true,
      () => false,
      { canRestart: false },
    );
    expect(confirmed.taken).toEqual({ runs: 10, restarts: 0 });
  });

  it('judges on the starts before a restart that never became ready, and stops', async () => {
    const { confirmed, looks } = await looksWith(
      () => true,
      () => true,
      { failAt: 4 },
    );
    // Restarts 1–2 at the first look; restart 4 fails at the second: judged on 3, no run taken.
    expect(looks).toEqual([
      { look: 1, runs: 2, restarts: 2 },
      { look: 2, runs: 2, restarts: 3 },
    ]);
    expect(confirmed.taken).toEqual({ runs: 2, restarts: 3 });
    expect(confirmed.warnings).toEqual(['restart 4 failed']);
  });
});

describe('lookAdds', () => {
  it('asks nothing of a kind whose metrics are settled', () => {
    const reports = report([metric('server_startup', false), metric('latency_p50', true)]);
    expect(lookAdds(reports, 5, { runs: 2, restarts: 0 }, true)).toEqual({
      runs: 3,
      restarts: 0,
    });
  });
});

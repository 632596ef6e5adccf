// accept-after never absorbs a regression the history has found: its records (the
// accepting one included) stay out of the baseline until a change point restores the
// level or someone accepts it, and no further accept-after is made while it is open.
import { describe, expect, it } from 'vitest';
import { readGateHistory } from '../../src/action/gate-history.js';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { RecordBaselineStore, type RecordSource } from '../../src/baseline/record-store.js';
import { planRecords } from '../../src/baseline/update.js';
import { withRecordPaths } from '../../src/history/series.js';
import { MemoryLogger } from '../../src/log.js';
import { allNights } from './night-records.js';

const HERE = {
  instanceType: 'inf2.xlarge',
  neuronCores: 2,
  neuronSdkVersion: '2.26.0',
  configHash: 'cafe123',
};

/** 30 good nights, 3 nights 10% slower (the 3rd accepted by accept-after), 3 more slow. */
function nights(): BaselineRecord[] {
  const records = allNights({
    benchmarks: ['a'],
    nights: 36,
    slowdown: (_, night) => (night >= 30 ? 1.1 : 1),
    verdict: (_, night) => (night >= 30 && night < 33 ? 'regression' : 'pass'),
  });
  const accepting = records[32]!;
  records[32] = {
    ...accepting,
    acceptance: {
      reason: 'accept-after',
      at: accepting.createdAt,
      records: [pathOfRecord(records[30]!), pathOfRecord(records[31]!)],
    },
  };
  return records;
}

function source(records: BaselineRecord[]): RecordSource {
  const newestFirst = [...records].reverse();
  return { readRecords: async () => ({ records: newestFirst, warnings: [] }) };
}

async function baselineNight(records: BaselineRecord[], held?: Map<string, Set<string>>) {
  const store = new RecordBaselineStore(source(records), {
    gateKey: 'nightly',
    window: 5,
    defaultBranch: 'main',
    match: 'strict',
    label: 'perf-gate-data',
  });
  if (held) store.holdOut(held);
  const baseline = await store.load();
  const choice = await baseline!.choose!('a', HERE);
  return { commit: choice.info.commit, records: choice.info.records };
}

describe('accept-after and an open regression', () => {
  it('asks for an issue by the configured thresholds, the built-in ones where none is set', async () => {
    const stored = {
      readStoredRecords: async () => ({ records: withRecordPaths(nights()), warnings: [] }),
    };
    const read = async (thresholds?: Record<string, number>) => {
      const history = await readGateHistory(
        stored,
        'nightly',
        'main',
        (benchmark) => (benchmark === 'a' ? thresholds : undefined),
        new MemoryLogger(),
      );
      return history!.analysis;
    };
    // 10% slower: beyond the built-in 5% of throughput and P50.
    expect((await read()).regressions[0]!.persistent).toBe(true);
    // A team that gates at 20% gets the change points, neither a regression nor an issue.
    const loose = await read({ default: 0.2 });
    expect(loose.analyses.some((a) => a.changePoints.length > 0)).toBe(true);
    expect(loose.regressions).toEqual([]);
  });

  it('keeps every record of the regression out of the baseline, the accepting one too', async () => {
    const records = nights();
    const stored = {
      readStoredRecords: async () => ({ records: withRecordPaths(records), warnings: [] }),
    };
    const history = await readGateHistory(
      stored,
      'nightly',
      'main',
      () => undefined,
      new MemoryLogger(),
    );
    const [regression] = history!.analysis.regressions;
    expect(regression!.firstBad.runId).toBe('1030-1');
    // accept-after does not close it.
    expect(regression!.status).toBe('open');
    expect([...history!.heldOut.get('a')!].sort()).toEqual(
      records.slice(30).map(pathOfRecord).sort(),
    );
    // Without the history, the accept-after record starts the baseline afresh: absorbed.
    const absorbed = await baselineNight(records);
    expect(absorbed.commit).toBe(records[35]!.commit);
    // With it, the baseline is the last good nights.
    const kept = await baselineNight(records, history!.heldOut);
    expect(kept).toEqual({ commit: records[29]!.commit, records: 5 });

    // And no new accept-after while the regression is open.
    const report = {
      name: 'a',
      verdict: 'regression' as const,
      metrics: [],
      notes: [],
      warnings: [],
      result: { ...records[35]!.result, name: 'a' },
    };
    const earlier = records
      .slice(33)
      .reverse()
      .map((r) => ({ ...r, verdict: 'regression' as const }));
    const plan = (openRegression?: (name: string) => boolean) =>
      planRecords([report as never], {
        gateKey: 'nightly',
        commit: 'd'.repeat(40),
        branch: 'main',
        event: 'schedule',
        runId: '2000-1',
        acceptCurrent: false,
        acceptAfter: 3,
        defaultBranch: 'main',
        history: () => earlier,
        ...(openRegression ? { openRegression } : {}),
      }).records[0]!.acceptance;
    expect(plan()).toEqual(expect.objectContaining({ reason: 'accept-after' }));
    expect(plan((name) => history!.heldOut.has(name))).toBeUndefined();
  });
});

// A pull request while the default branch has an open regression. The PR is built on the
// branch as it is now, regression included: compared with the level before the regression
// it would be charged with it (a +6% PR read −7.5%, an unchanged one −2.8%). So it is
// compared with the branch's records since the regression, and the baseline says so; the
// branch's own nights still hold the regression out, so that it keeps failing.
import { describe, expect, it } from 'vitest';
import { applyOpenRegressions, readGateHistory } from '../../src/action/gate-history.js';
import { type BaselineRecord, recordToResult } from '../../src/baseline/record.js';
import { RecordBaselineStore, type RecordSource } from '../../src/baseline/record-store.js';
import { compareBenchmark } from '../../src/compare/benchmark.js';
import { withRecordPaths } from '../../src/history/series.js';
import { MemoryLogger } from '../../src/log.js';
import { allNights, nightRecords, type NightsOptions } from '../history/night-records.js';

const HERE = {
  instanceType: 'inf2.xlarge',
  neuronCores: 2,
  neuronSdkVersion: '2.26.0',
  configHash: 'cafe123',
};

/** 30 good nights, then 10 at `level` of the throughput, judged as `verdict`. */
function branch(level: number, verdict: BaselineRecord['verdict']): NightsOptions {
  return {
    benchmarks: ['a'],
    nights: 40,
    runs: 5,
    runCv: 0.01,
    slowdown: (_, night) => (night >= 30 ? 1 / level : 1),
    verdict: (_, night) => (night >= 30 ? verdict : 'pass'),
  };
}

function source(records: BaselineRecord[]): RecordSource {
  const newestFirst = [...records].reverse();
  return { readRecords: async () => ({ records: newestFirst, warnings: [] }) };
}

/** A run measured at the branch's current level times `factor` in throughput. */
function measured(main: NightsOptions, factor: number) {
  const level = 1 / main.slowdown!('a', 39);
  const [record] = nightRecords({ ...main, seed: 'run', slowdown: () => 1 / level / factor }, 99);
  return recordToResult(record!);
}

type Run = { branch: string | undefined; pullRequestBase: string | undefined };
const PULL_REQUEST: Run = { branch: '12/merge', pullRequestBase: 'main' };
const NIGHT: Run = { branch: 'main', pullRequestBase: undefined };

/** The run's throughput change against the baseline the gate chooses, and that baseline's info. */
async function judged(main: NightsOptions, factor: number, run: Run) {
  const records = allNights(main);
  const history = await readGateHistory(
    { readStoredRecords: async () => ({ records: withRecordPaths(records), warnings: [] }) },
    'nightly',
    'main',
    () => undefined,
    new MemoryLogger(),
  );
  const store = new RecordBaselineStore(source(records), {
    gateKey: 'nightly',
    window: 5,
    defaultBranch: 'main',
    match: 'strict',
    label: 'perf-gate-data',
  });
  applyOpenRegressions(
    {
      holdOut: (paths, by) => store.holdOut(paths, by),
      compareWithCurrentLevel: (levels) => store.compareWithCurrentLevel(levels),
    },
    history!,
    run,
  );
  const choice = await (await store.load())!.choose!('a', HERE);
  const thresholds = { throughput: 0.05, latency_p50: 0.05 };
  const compared = compareBenchmark(measured(main, factor), choice.result, thresholds, {
    confidence: 0.95,
    seed: 'a',
  });
  return {
    change: compared.metrics.find((m) => m.id === 'throughput')!.change!,
    verdicts: compared.metrics.filter((m) => m.threshold !== null).map((m) => m.verdict),
    info: choice.info,
    records,
  };
}

describe('a pull request while main has an open regression', () => {
  const stepped = branch(0.865, 'regression');

  it('reads its own change, not main’s 13.5% step', async () => {
    expect((await judged(stepped, 1.06, PULL_REQUEST)).change).toBeCloseTo(0.06, 1);
    const unchanged = await judged(stepped, 1, PULL_REQUEST);
    expect(Math.abs(unchanged.change)).toBeLessThan(0.015);
    // Against its own base, a change that changes nothing is neither worse nor better.
    expect(unchanged.verdicts).toEqual(['unchanged', 'unchanged']);
  });

  it('nor a step within the threshold that the history found (records that passed)', async () => {
    const small = branch(0.972, 'pass');
    expect(Math.abs((await judged(small, 1, PULL_REQUEST)).change)).toBeLessThan(0.01);
  });

  it('says which records formed its baseline and which regression it is compared past', async () => {
    const { info, records } = await judged(stepped, 1, PULL_REQUEST);
    expect(info.records).toBe(5);
    expect(info.span).toEqual({
      oldest: { commit: records[35]!.commit, createdAt: records[35]!.createdAt },
      newest: { commit: records[39]!.commit, createdAt: records[39]!.createdAt },
    });
    expect(info.openRegression).toEqual({
      id: 'nightly@1030-1',
      branch: 'main',
      firstBad: { commit: records[30]!.commit, createdAt: records[30]!.createdAt },
      use: 'since',
      records: 10,
    });
  });
});

describe('the branch’s own night while it has an open regression', () => {
  it('is still judged against the level before it, and says what was held out', async () => {
    const night = await judged(branch(0.865, 'regression'), 1, NIGHT);
    expect(night.change).toBeCloseTo(-0.135, 1);
    expect(night.info.span?.newest.commit).toBe(night.records[29]!.commit);
    expect(night.info.openRegression).toMatchObject({ use: 'held-out', records: 10 });
  });

  it('leaves a pull request into another branch alone', async () => {
    const other = await judged(branch(0.865, 'regression'), 1, {
      branch: '12/merge',
      pullRequestBase: 'release',
    });
    expect(other.info.openRegression).toBeUndefined();
  });
});

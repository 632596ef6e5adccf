// The baseline chosen from records on a real data branch (a bare repository as origin).
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import type { BaselineRecord, StoredMetric } from '../../src/baseline/record.js';
import {
  RecordBaselineStore,
  recordsToRead,
  type RecordSource,
  type RecordStoreOptions,
} from '../../src/baseline/record-store.js';
import { planRecords } from '../../src/baseline/update.js';
import { chooseBaselines } from '../../src/baseline/for-results.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import type { BenchmarkReport, BenchmarkResult, Environment, Metric } from '../../src/model.js';
import { at, makeRepos, sampleRecord, sampleResult, type Repos } from './git/support.js';

const HERE: Environment = {
  instanceType: 'inf2.xlarge',
  neuronCores: 2,
  neuronSdkVersion: '2.26.0',
  configHash: 'abc123',
};

async function gitStore(repos: Repos): Promise<GitBranchStore> {
  return new GitBranchStore({
    repoDir: repos.checkout,
    workDir: await mkdtemp(join(repos.root, 'work-')),
  });
}

async function baselineFrom(
  repos: Repos,
  options: Partial<RecordStoreOptions> = {},
  source?: RecordSource,
) {
  const store = new RecordBaselineStore(source ?? (await gitStore(repos)), {
    gateKey: 'default',
    window: 5,
    defaultBranch: 'main',
    match: 'strict',
    label: 'perf-gate-data',
    commitUrl: (sha) => `https://github.com/octo/inference/commit/${sha}`,
    ...options,
  });
  return (await store.load())!;
}

/** The store's reads of the data branch, by their per-benchmark limit. */
function countingReads(inner: RecordSource, failAfter = Number.POSITIVE_INFINITY) {
  const limits: (number | undefined)[] = [];
  const source: RecordSource = {
    readRecords: (gateKey, benchmark, options) => {
      limits.push(options?.limit);
      if (limits.length > failAfter) {
        return Promise.reject(new Error('could not fetch the baseline branch: network down'));
      }
      return inner.readRecords(gateKey, benchmark, options);
    },
  };
  return { source, limits };
}

/** Stored records of `benchmark` at times from..to, newest last, each changed by `change`. */
function records(
  from: number,
  to: number,
  change: (record: BaselineRecord) => BaselineRecord = (record) => record,
): BaselineRecord[] {
  const list: BaselineRecord[] = [];
  for (let i = from; i <= to; i += 1) list.push(change(sampleRecord('bench', i, at(i))));
  return list;
}

const regressed = (record: BaselineRecord): BaselineRecord => ({
  ...record,
  verdict: 'regression',
  event: 'schedule',
});

/** A record of another environment (Neuron SDK 2.27.0): never part of this one's baseline. */
const elsewhere = (record: BaselineRecord): BaselineRecord => ({
  ...record,
  environment: { ...record.environment, neuronSdkVersion: '2.27.0' },
});

describe('RecordBaselineStore on a git data branch', () => {
  it('pools the stored records of a benchmark into its baseline, with where they came from', async () => {
    const repos = await makeRepos();
    const records = [1, 2, 3].map((i) => sampleRecord('bench', i, at(i)));
    await (await gitStore(repos)).appendRecords(records);
    const baseline = await baselineFrom(repos);
    expect(baseline.source).toMatch(/^perf-gate-data @ [0-9a-f]{7}$/);
    const choice = await baseline.choose!('bench', HERE);
    expect(choice.info).toMatchObject({
      records: 3,
      commit: records[2]!.commit,
      commitUrl: `https://github.com/octo/inference/commit/${records[2]!.commit}`,
    });
    // Three records of three runs each: nine runs of throughput.
    expect(choice.result!.metrics.find((m) => m.id === 'throughput')!.values).toHaveLength(9);
    expect((await baseline.choose!('other', HERE)).result).toBeUndefined();
  });

  it("never takes an A/B comparison's record into a baseline, nor its streak", async () => {
    const repos = await makeRepos();
    const ab = (i: number): BaselineRecord => ({
      ...sampleRecord('bench', i, at(i)),
      ab: { base: { label: 'main', environment: HERE }, blocks: 2, changes: {} },
    });
    // The newest three are A/B records: the baseline is the two before them.
    const stored = [1, 2].map((i) => sampleRecord('bench', i, at(i)));
    await (await gitStore(repos)).appendRecords([...stored, ab(3), ab(4), ab(5)]);
    const baseline = await baselineFrom(repos);
    const choice = await baseline.choose!('bench', HERE);
    expect(choice.info.records).toBe(2);
    expect(choice.info.commit).toBe(stored[1]!.commit);
    expect(baseline.history!('bench').map((r) => r.commit)).toEqual([
      stored[1]!.commit,
      stored[0]!.commit,
    ]);
  });

  it('carries older accepted records for the day-to-day drift, up to 20 in all, never into the baseline', async () => {
    const repos = await makeRepos();
    // 25 records: the newest 5 form the baseline; 15 older accepted ones teach the drift;
    // regressions and records of another environment teach nothing.
    const stored = [
      ...records(1, 17),
      ...records(18, 18, regressed),
      ...records(19, 19, elsewhere),
      ...records(20, 27),
    ];
    await (await gitStore(repos)).appendRecords(stored);
    const choice = await (await baselineFrom(repos, { acceptAfter: 0 })).choose!('bench', HERE);
    expect(choice.info.records).toBe(5);
    const p50 = choice.result!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.values).toHaveLength(15);
    // Read: the newest 20 (8 to 27); of them 18 fit; 5 are the window (23 to 27).
    const olderRecords = [22, 21, 20, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8];
    expect(p50.olderRecords).toEqual(
      olderRecords.map(
        (i) =>
          stored
            .find((r) => r.createdAt === at(i).toISOString())!
            .result.metrics.find((m) => m.id === 'latency_p50')!.values,
      ),
    );
  });

  it('carries the newest record the baseline left out (a regression), for one value a commit', async () => {
    const repos = await makeRepos();
    const stored = [...records(1, 8), ...records(9, 9, regressed)];
    await (await gitStore(repos)).appendRecords(stored);
    const store = await baselineFrom(repos, { acceptAfter: 0 });
    const p50 = (await store.choose!('bench', HERE)).result!.metrics.find(
      (m) => m.id === 'latency_p50',
    )!;
    const valuesOf = (i: number) =>
      stored
        .find((r) => r.createdAt === at(i).toISOString())!
        .result.metrics.find((m) => m.id === 'latency_p50')!.values;
    expect(p50.newestLeftOut).toEqual(valuesOf(9));
  });

  it('carries the newest record an open regression holds out, for one value a commit', async () => {
    const repos = await makeRepos();
    const stored = records(1, 9);
    await (await gitStore(repos)).appendRecords(stored);
    const store = new RecordBaselineStore(await gitStore(repos), {
      gateKey: 'default',
      window: 5,
      defaultBranch: 'main',
      match: 'strict',
      label: 'perf-gate-data',
      acceptAfter: 0,
    });
    // As history/regressions.ts holds out an open regression's records.
    store.holdOut(new Map([['bench', new Set([pathOfRecord(stored[8]!)])]]));
    const choice = await (await store.load())!.choose!('bench', HERE);
    const p50 = choice.result!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.newestLeftOut).toEqual(
      stored[8]!.result.metrics.find((m) => m.id === 'latency_p50')!.values,
    );
    expect(choice.info.commit).toBe(stored[7]!.commit);
  });

  it('carries no newest record when the baseline holds it', async () => {
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords(records(1, 8));
    const choice = await (await baselineFrom(repos, { acceptAfter: 0 })).choose!('bench', HERE);
    const p50 = choice.result!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.newestLeftOut).toBeUndefined();
  });

  it('reports a fingerprint mismatch as no baseline with the differences', async () => {
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords([sampleRecord('bench', 1, at(1))]);
    const choice = await (
      await baselineFrom(repos)
    ).choose!('bench', {
      ...HERE,
      neuronSdkVersion: '2.27.0',
    });
    expect(choice.result).toBeUndefined();
    expect(choice.info.environmentNotes).toEqual(['Neuron SDK 2.26.0 → 2.27.0']);
  });

  it('accepts a regression that persists for 3 runs, and later runs compare with it', async () => {
    const repos = await makeRepos();
    const git = await gitStore(repos);
    await git.appendRecords([sampleRecord('bench', 1, at(1))]);
    const regressed = (seed: number): BenchmarkReport => ({
      name: 'bench',
      format: 'offline-benchmark',
      verdict: 'regression',
      metrics: [],
      warnings: [],
      result: sampleResult('bench', seed),
    });
    const accepted: string[] = [];
    for (const run of [2, 3, 4]) {
      const baseline = await baselineFrom(repos);
      const plan = planRecords([regressed(run)], {
        gateKey: 'default',
        commit: `${run}`.repeat(40).slice(0, 40),
        branch: 'main',
        event: 'schedule',
        runId: String(run),
        now: at(run),
        acceptCurrent: false,
        acceptAfter: 3,
        defaultBranch: 'main',
        history: baseline.history!,
      });
      await (await gitStore(repos)).appendRecords(plan.records);
      accepted.push(...plan.accepted.keys());
      // Until the third regression, the baseline stays the passing record.
      if (run < 4) expect((await baseline.choose!('bench', HERE)).info.records).toBe(1);
    }
    expect(accepted).toEqual(['bench']);
    const after = await (await baselineFrom(repos)).choose!('bench', HERE);
    // The three regressed runs are the new normal; the old passing record is not.
    expect(after.info.records).toBe(3);
    expect(after.result!.runs).toHaveLength(9);
  });

  it('reads further back when the newest records are 25 unaccepted regressions', async () => {
    const repos = await makeRepos();
    const passing = records(1, 3);
    await (await gitStore(repos)).appendRecords([...passing, ...records(4, 28, regressed)]);
    const { source, limits } = countingReads(await gitStore(repos));
    // accept-after 0: the regressions are never accepted, so they pile up.
    const baseline = await baselineFrom(repos, { acceptAfter: 0 }, source);
    const choice = await baseline.choose!('bench', HERE);
    expect(choice.info.records).toBe(3);
    expect(choice.info.commit).toBe(passing[2]!.commit);
    expect(choice.result!.runs).toHaveLength(9);
    // The newest 20 first, then twice as many: all 28, so there is nothing further.
    expect(limits).toEqual([20, 40]);
    expect(baseline.history!('bench')).toHaveLength(28);
    // A second choice (the confirmation runs) reads nothing more.
    await baseline.choose!('bench', HERE);
    expect(limits).toEqual([20, 40]);
  });

  it('reads further back for records of this environment behind those of another', async () => {
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords([...records(1, 6), ...records(7, 30, elsewhere)]);
    const choice = await (await baselineFrom(repos)).choose!('bench', HERE);
    expect(choice.info.records).toBe(5);
    expect(choice.info.environmentNotes).toBeUndefined();
  });

  it('keeps the newest records it read, with a warning, when reading further back fails', async () => {
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords([...records(1, 2), ...records(3, 24, regressed)]);
    const { source } = countingReads(await gitStore(repos), 1);
    const choice = await (
      await baselineFrom(repos, { acceptAfter: 0 }, source)
    ).choose!('bench', HERE);
    expect(choice.result).toBeUndefined();
    expect(choice.warnings).toEqual([
      'the baseline of bench is chosen from its newest 20 stored records only: reading older ones failed (could not fetch the baseline branch: network down)',
    ]);
  });

  it('accepts a regression after accept-after runs even when that is more than 20', async () => {
    expect(recordsToRead(5, 25)).toBe(26);
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords([...records(1, 1), ...records(2, 25, regressed)]);
    const baseline = await baselineFrom(repos, { acceptAfter: 25 });
    // Until it is accepted, the passing record stays the baseline.
    expect((await baseline.choose!('bench', HERE)).info.records).toBe(1);
    const plan = planRecords(
      [
        {
          name: 'bench',
          format: 'offline-benchmark',
          verdict: 'regression',
          metrics: [],
          warnings: [],
          result: sampleResult('bench', 26),
        },
      ],
      {
        gateKey: 'default',
        commit: 'f'.repeat(40),
        branch: 'main',
        event: 'schedule',
        runId: '26',
        now: at(26),
        acceptCurrent: false,
        acceptAfter: 25,
        defaultBranch: 'main',
        history: baseline.history!,
      },
    );
    expect([...plan.accepted.keys()]).toEqual(['bench']);
    // This run and the 24 regressions before it.
    expect(plan.records[0]!.acceptance!.records).toHaveLength(24);
  });

  it('says which fingerprint fields were not compared because one side does not know them', async () => {
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords([sampleRecord('bench', 1, at(1))]);
    const baseline = await baselineFrom(repos);
    // The record knows no vLLM version; this run knows no Neuron SDK version.
    const choice = await baseline.choose!('bench', {
      ...HERE,
      neuronSdkVersion: undefined,
      vllmVersion: '0.10.2',
    });
    expect(choice.info.records).toBe(1);
    expect(choice.info.environmentNotes).toEqual([
      'Neuron SDK version unknown in this run (not compared)',
      'vLLM version unknown in the baseline (not compared)',
    ]);
    const same = await baseline.choose!('bench', HERE);
    expect(same.info.environmentNotes).toBeUndefined();
  });
});

describe('a loose baseline whose records span compiler versions', () => {
  const OLD = '2.21.18209.0+043b1bf7';
  const NEW = '2.22.5122.0+1c2d3e4f';
  /** A record of `compiler` whose runs compiled and loaded these many graphs. */
  const cacheRecord = (i: number, compiler: string, compiled: number, seconds?: number) => {
    const record = sampleRecord('bench', i, at(i));
    const count = (id: string, value: number, direction: Metric['direction']): StoredMetric => ({
      id,
      unit: 'graphs',
      direction,
      values: [value],
    });
    record.environment = { ...HERE, compilerVersion: compiler };
    record.result.metrics.push(
      count('graphs_compiled', compiled, 'lower-is-better'),
      count('graphs_cached', 4 - compiled, 'higher-is-better'),
      ...(seconds === undefined
        ? []
        : [
            {
              id: 'compile_time',
              unit: 's',
              direction: 'lower-is-better' as const,
              values: [seconds],
            },
          ]),
    );
    return record;
  };
  const values = (result: BenchmarkResult | undefined, id: string) =>
    result?.metrics.find((m) => m.id === id)?.values;

  it("counts the cache's graphs on the newest record's compiler only, and pools compile_time", async () => {
    // Newest first: the first night on the new compiler recompiled all four graphs.
    const stored = [
      cacheRecord(3, NEW, 4, 330),
      cacheRecord(2, OLD, 0),
      cacheRecord(1, OLD, 4, 300),
    ];
    const source: RecordSource = {
      readRecords: () => Promise.resolve({ records: stored, warnings: [] }),
    };
    const baseline = await baselineFrom({} as Repos, { match: 'loose' }, source);
    const { result } = await baseline.choose!('bench', { ...HERE, compilerVersion: NEW });
    expect(result!.environment?.compilerVersion).toBe(NEW);
    expect(values(result, 'graphs_compiled')).toEqual([4]);
    expect(values(result, 'graphs_cached')).toEqual([0]);
    expect(values(result, 'compile_time')).toEqual([330, 300]);
    expect(values(result, 'throughput')).toHaveLength(9);
  });

  it('pools them all when the newest record does not know its compiler', async () => {
    const unknown = cacheRecord(3, NEW, 4);
    delete unknown.environment.compilerVersion;
    const stored = [unknown, cacheRecord(2, OLD, 0)];
    const source: RecordSource = {
      readRecords: () => Promise.resolve({ records: stored, warnings: [] }),
    };
    const baseline = await baselineFrom({} as Repos, { match: 'loose' }, source);
    const { result } = await baseline.choose!('bench', HERE);
    expect(values(result, 'graphs_compiled')).toEqual([4, 0]);
  });
});

describe('a store whose benchmarks were named by the settings that differed', () => {
  const today = (len: number, kvcache = 'cpu') =>
    `prompts=20,concurrency=16,chunksize=256,input_len=${len},kvcache=${kvcache}`;
  const results = [100, 1000].map((len, i) => ({
    ...sampleResult(today(len), 90 + i),
    environment: HERE,
  }));

  it('gives today’s full names the records of the old names, and says so', async () => {
    const repos = await makeRepos();
    const old = ['input_len=100', 'input_len=1000'].flatMap((name) =>
      [1, 2, 3].map((i) => sampleRecord(name, i, at(i))),
    );
    await (await gitStore(repos)).appendRecords(old);
    const chosen = await chooseBaselines(await baselineFrom(repos), results, 'strict', false);
    expect(chosen.baseline!.benchmarks.map((b) => b.name)).toEqual([today(100), today(1000)]);
    expect(chosen.infos.get(today(1000))).toMatchObject({ records: 3 });
    expect(chosen.warnings.get(today(1000))).toEqual([
      'compared with baseline "input_len=1000": the settings both name are equal; this run also names ' +
        'prompts=20, concurrency=16, chunksize=256, kvcache=cpu',
    ]);
  });

  it('compares no other workload from a store, naming the nearest instead', async () => {
    const repos = await makeRepos();
    const cpu = [1, 2, 3].map((i) => sampleRecord(today(100), i, at(i)));
    await (await gitStore(repos)).appendRecords(cpu);
    const disk = { ...results[0]!, name: today(100, 'disk') };
    const chosen = await chooseBaselines(await baselineFrom(repos), [disk], 'strict', false);
    expect(chosen.baseline!.benchmarks).toEqual([]);
    expect(chosen.warnings.get(today(100, 'disk'))).toEqual([
      `no stored baseline has this name; the nearest, "${today(100)}", has 4 of 5 settings ` +
        'equal: kvcache cpu → disk: not compared, a changed workload is a new benchmark',
    ]);
  });
});

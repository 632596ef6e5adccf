// The baseline chosen from records on a real data branch (a bare repository as origin).
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { RecordBaselineStore } from '../../src/baseline/record-store.js';
import { planRecords } from '../../src/baseline/update.js';
import type { BenchmarkReport, Environment } from '../../src/model.js';
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

async function baselineFrom(repos: Repos) {
  const store = new RecordBaselineStore(await gitStore(repos), {
    gateKey: 'default',
    window: 5,
    defaultBranch: 'main',
    match: 'strict',
    label: 'perf-gate-data',
    commitUrl: (sha) => `https://github.com/octo/inference/commit/${sha}`,
  });
  return (await store.load())!;
}

describe('RecordBaselineStore on a git data branch', () => {
  it('pools the stored records of a benchmark into its baseline, with where they came from', async () => {
    const repos = await makeRepos();
    const records = [1, 2, 3].map((i) => sampleRecord('bench', i, at(i)));
    await (await gitStore(repos)).appendRecords(records);
    const baseline = await baselineFrom(repos);
    expect(baseline.source).toMatch(/^perf-gate-data @ [0-9a-f]{7}$/);
    const choice = baseline.choose!('bench', HERE);
    expect(choice.info).toMatchObject({
      records: 3,
      commit: records[2]!.commit,
      commitUrl: `https://github.com/octo/inference/commit/${records[2]!.commit}`,
    });
    // Three records of three runs each: nine runs of throughput.
    expect(choice.result!.metrics.find((m) => m.id === 'throughput')!.values).toHaveLength(9);
    expect(baseline.choose!('other', HERE).result).toBeUndefined();
  });

  it('reports a fingerprint mismatch as no baseline with the differences', async () => {
    const repos = await makeRepos();
    await (await gitStore(repos)).appendRecords([sampleRecord('bench', 1, at(1))]);
    const choice = (await baselineFrom(repos)).choose!('bench', {
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
      if (run < 4) expect(baseline.choose!('bench', HERE).info.records).toBe(1);
    }
    expect(accepted).toEqual(['bench']);
    const after = (await baselineFrom(repos)).choose!('bench', HERE);
    // The three regressed runs are the new normal; the old passing record is not.
    expect(after.info.records).toBe(3);
    expect(after.result!.runs).toHaveLength(9);
  });
});

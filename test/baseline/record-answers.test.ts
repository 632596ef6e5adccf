// A record keeps the agreement check's answers (stored mode) beside its samples, each within
// its own budget; the baseline's answers are its newest record's that kept some, with that
// run's commit and time; and a record without answers reads as before.
import { describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { recordToResult, type BaselineRecord } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { RecordBaselineStore } from '../../src/baseline/record-store.js';
import { parseRecord, serializeRecord } from '../../src/baseline/record-text.js';
import { MAX_RECORD_BYTES } from '../../src/baseline/reduce-samples.js';
import type { BenchmarkResult, Environment } from '../../src/model.js';
import { answersOf } from '../support/stored-answers.js';
import { at, makeRepos, sampleRecord, sampleResult } from './git/support.js';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';

const recordOf = (result: BenchmarkResult, i = 1) =>
  createRecord({
    gateKey: 'default',
    result,
    commit: `${i}`.padStart(40, 'c'),
    branch: 'main',
    event: 'schedule',
    runId: `${i}`,
    verdict: 'pass',
    createdAt: at(i),
  });

describe("the agreement check's answers in a record", () => {
  it("are stored and read back whole, outside the samples' budget", () => {
    const answers = answersOf(7);
    const withSamples = sampleResult('serve', 1, 2_000);
    const plain = recordOf(withSamples);
    const record = recordOf({ ...withSamples, answers });
    expect(record.result.answers).toEqual(answers);
    // The samples kept are the same as without answers: their budget is the samples' own.
    expect(record.result.metrics).toEqual(plain.result.metrics);
    const text = serializeRecord(record);
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_RECORD_BYTES);
    expect(recordToResult(parseRecord(text)).answers).toEqual(answers);
  });

  it('may be absent: a record from before reads as before', () => {
    const text = serializeRecord(recordOf(sampleResult('serve', 2)));
    expect(text).not.toContain('"answers"');
    expect(recordToResult(parseRecord(text)).answers).toBeUndefined();
  });
});

describe("the baseline's answers", () => {
  const HERE: Environment = sampleRecord('serve', 1, at(1)).environment;

  /** The baseline of `serve` chosen from `records` on a real data branch. */
  async function chosenFrom(records: BaselineRecord[]) {
    const repos = await makeRepos();
    const store = new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await mkdtemp(join(repos.root, 'work-')),
    });
    await store.appendRecords(records);
    const baseline = await new RecordBaselineStore(store, {
      gateKey: 'default',
      window: 5,
      defaultBranch: 'main',
      match: 'strict',
      label: 'perf-gate-data',
    }).load();
    return baseline!.choose!('serve', HERE);
  }

  it("are the newest record's that kept some, with its commit and time", async () => {
    const older = recordOf({ ...sampleResult('serve', 1), answers: answersOf(1) }, 1);
    const newer = recordOf({ ...sampleResult('serve', 2), answers: answersOf(2) }, 2);
    // The newest run's check could not finish: it kept no answers.
    const newest = recordOf(sampleResult('serve', 3), 3);
    const choice = await chosenFrom([older, newer, newest]);
    expect(choice.info.records).toBe(3);
    expect(choice.result!.answers).toEqual({
      ...answersOf(2),
      from: { commit: newer.commit, createdAt: newer.createdAt },
    });
  });

  it('name the run that answered when a record kept an older run’s answers on', async () => {
    const from = { commit: 'd'.repeat(40), createdAt: '2026-01-01T00:00:00.000Z' };
    const carried = recordOf(
      { ...sampleResult('serve', 1), answers: { ...answersOf(1), from } },
      4,
    );
    const choice = await chosenFrom([carried]);
    expect(choice.result!.answers!.from).toEqual(from);
  });

  it('that are not an object leave the record and its timings readable', () => {
    const record = recordOf({ ...sampleResult('serve', 5), answers: answersOf(5) });
    const odd = JSON.parse(serializeRecord(record)) as { result: Record<string, unknown> };
    odd.result.answers = 'not answers';
    const parsed = parseRecord(JSON.stringify(odd));
    expect(parsed.result.answers).toBeUndefined();
    expect(parsed.result.metrics).toEqual(record.result.metrics);
  });
});

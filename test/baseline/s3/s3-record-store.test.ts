import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathOfRecord } from '../../../src/baseline/record-paths.js';
import { serializeRecord } from '../../../src/baseline/record-text.js';
import { encodeBatches } from '../../../src/baseline/s3/batch.js';
import { StoreKeys } from '../../../src/baseline/s3/s3-keys.js';
import { GitBranchStore } from '../../../src/baseline/git/git-branch-store.js';
import { RecordBaselineStore } from '../../../src/baseline/record-store.js';
import { at, makeRepos, sampleRecord, sampleResult } from '../git/support.js';
import { BUCKET, PREFIX, startHarness, type StoreHarness } from './support.js';

let h: StoreHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const WHERE = `s3://${BUCKET}/${PREFIX}/`;
const BATCH = /^perf\/default\/runs\/\d{8}\/\d{8}T\d{6}Z-[^/]+-[0-9a-f]{8}\.json$/;

/** One night: a record of each benchmark, one run. */
function night(n: number, benchmarks = ['llama 8b', 'qwen3']) {
  return benchmarks.map((name, i) =>
    sampleRecord(name, n * 10 + i, at(n * 86_400 + i), { runId: `run-${n}` }),
  );
}

describe('S3RecordStore: writing and reading back', () => {
  it('writes one immutable batch object per write and reads the newest first, `limit` per benchmark', async () => {
    const store = h.store();
    const nights = [1, 2, 3, 4].map((n) => night(n));
    for (const records of nights) {
      const written = await store.appendRecords(records);
      expect(written).toEqual({ added: records.map(pathOfRecord), pruned: [], attempts: 1 });
    }
    const keys = h.keys();
    expect(keys).toHaveLength(4);
    for (const key of keys) expect(key).toMatch(BATCH);
    expect(h.s3.log.filter((e) => e.operation === 'PutObject').map((e) => e.ifNoneMatch)).toEqual([
      '*',
      '*',
      '*',
      '*',
    ]);

    const all = await store.readRecords('default');
    expect(all.warnings).toEqual([]);
    expect(all.records.map((r) => r.createdAt)).toEqual(
      nights
        .flat()
        .map((r) => r.createdAt)
        .sort()
        .reverse(),
    );
    expect(all.records[0]).toEqual(nights[3]![1]);

    const newest = await store.readRecords('default', 'qwen3', { limit: 2 });
    expect(newest.records).toEqual([nights[3]![1], nights[2]![1]]);
    const perBenchmark = await store.readRecords('default', undefined, { limit: 1 });
    expect(perBenchmark.records).toEqual([nights[3]![1], nights[3]![0]]);
  });

  it('stops reading once the newest `limit` are in hand', async () => {
    const store = h.store();
    for (let n = 1; n <= 40; n += 1) await store.appendRecords(night(n));
    const before = h.s3.count('GetObject');
    const read = await store.readRecords('default', 'llama 8b', { limit: 3 });
    expect(read.records).toHaveLength(3);
    // Each night is its own day folder: the newest days' batches, not all 40.
    expect(h.s3.count('GetObject') - before).toBeLessThanOrEqual(4);
  });

  it('finds the baseline of a benchmark paused for longer than the others fill the window', async () => {
    // 'weekly' ran on nights 1 to 3 and then paused; 'nightly' ran every night to 30.
    const store = h.store();
    for (let n = 1; n <= 30; n += 1) {
      await store.appendRecords(night(n, n <= 3 ? ['nightly', 'weekly'] : ['nightly']));
    }
    const first = await h.store().readRecords('default', undefined, { limit: 5 });
    expect(first.stoppedEarly).toBe(true);
    expect(first.records.map((r) => r.benchmark)).not.toContain('weekly');
    const baseline = await new RecordBaselineStore(h.store(), {
      gateKey: 'default',
      window: 5,
      match: 'strict',
      label: 's3',
    }).load();
    const choice = await baseline!.choose!('weekly', sampleResult('weekly', 0).environment!);
    expect(choice.result).toBeDefined();
    expect(choice.info.records).toBe(3);
    // One that was never stored reads alone too, and has none.
    expect(
      (await baseline!.choose!('new', sampleResult('new', 0).environment!)).result,
    ).toBeUndefined();
  });

  it("reads past a long run's batch for a newer record in an older-keyed batch", async () => {
    // A long run over midnight: its key carries its newest record's time (day 2, 05:00),
    // but its llama record is from day 1, 23:00; a short run keyed day 1, 23:40 (the day
    // folder read after) holds a newer llama record (23:30).
    const long = [
      sampleRecord('llama 8b', 1, at(23 * 3600), { runId: 'long' }),
      sampleRecord('qwen3', 2, at(29 * 3600), { runId: 'long' }),
    ];
    const short = [
      sampleRecord('llama 8b', 3, at(23.5 * 3600), { runId: 'short' }),
      sampleRecord('qwen3', 4, at(23.67 * 3600), { runId: 'short' }),
    ];
    await h.store().appendRecords(long);
    await h.store().appendRecords(short);
    const read = await h.store().readRecords('default', undefined, { limit: 1 });
    expect(read.records).toEqual([long[1], short[0]]);
  });

  it('adds nothing for a retried write of the same records', async () => {
    const store = h.store();
    const records = night(1);
    await store.appendRecords(records);
    const again = await h.store().appendRecords(records);
    expect(again).toEqual({ added: [], pruned: [], attempts: 1 });
    expect(h.keys()).toHaveLength(1);
    expect((await store.readRecords('default')).records).toHaveLength(2);
  });

  it('loses nothing and duplicates nothing when 16 stores write at once', async () => {
    const writes = Array.from({ length: 16 }, (_, writer) => night(writer + 1, ['a', 'b', 'c']));
    // Two writers retry a run already being written: the same records again.
    const results = await Promise.all(
      [...writes, writes[0]!, writes[5]!].map((records) => h.store().appendRecords(records)),
    );
    const added = results.flatMap((r) => r.added);
    expect(new Set(added).size).toBe(48);
    expect(added).toHaveLength(48);
    const stored = await h.store().readStoredRecords('default');
    expect(stored.warnings).toEqual([]);
    expect(stored.records.map((r) => r.path).sort()).toEqual(
      writes.flat().map(pathOfRecord).sort(),
    );
    expect(h.keys()).toHaveLength(16);
  });

  it('reads a record back byte for byte, samples and all', async () => {
    const records = night(1);
    await h.store().appendRecords(records);
    const read = await h.store().readRecords('default', 'qwen3');
    expect(read.records.map(serializeRecord)).toEqual([serializeRecord(records[1]!)]);
  });
});

describe('S3RecordStore: failures', () => {
  it('says so loudly, overwriting nothing, when its content-hashed key holds other bytes', async () => {
    const records = night(1);
    const [batch] = encodeBatches(records);
    const key = new StoreKeys('perf/').batch(
      batch!.folder,
      batch!.stamp,
      batch!.runId,
      batch!.hash8,
    );
    await h.put(key, 'someone else');
    await expect(h.store().appendRecords(records)).rejects.toThrow(
      `s3://${BUCKET}/${key} already holds other bytes under a key named by the hash of this write's bytes: something other than neuron-perf-gate writes under ${WHERE}`,
    );
    expect(h.s3.object(BUCKET, key)?.toString()).toBe('someone else');
  });

  it('retries a 503 SlowDown and writes once', async () => {
    const rule = h.s3.fault({ method: 'PUT', key: /\/runs\// }, { kind: 'SlowDown' });
    const records = night(1);
    const written = await h.store().appendRecords(records);
    expect(rule.fired).toBe(1);
    expect(written).toEqual({ added: records.map(pathOfRecord), pruned: [], attempts: 2 });
    expect(h.s3.log.map((e) => `${e.operation} ${e.status}`)).toEqual([
      'PutObject 503',
      'PutObject 200',
    ]);
    expect(h.keys()).toHaveLength(1);
  });

  it('retries an upload whose connection dropped: it finds its own object and counts it added', async () => {
    // The write lands, the answer never comes: the retry meets the object (412) and reads it.
    h.s3.fault({ method: 'PUT', key: /\/runs\// }, { kind: 'drop' });
    const records = night(1);
    const written = await h.store().appendRecords(records);
    expect(written.added).toEqual(records.map(pathOfRecord));
    expect(written.attempts).toBe(2);
    expect(h.s3.log.map((e) => `${e.operation} ${e.status}`)).toEqual([
      'PutObject 0',
      'PutObject 412',
      'GetObject 200',
    ]);
    expect((await h.store().readRecords('default')).records).toEqual([...records].reverse());
  });

  it('retries a read whose body was cut mid-way, never half-reading it', async () => {
    const records = night(1);
    await h.store().appendRecords(records);
    h.s3.fault({ method: 'GET', key: /\/runs\// }, { kind: 'drop' });
    const read = await h.store().readRecords('default');
    expect(read.records).toHaveLength(2);
    expect(h.s3.count('GetObject')).toBe(2);
  });

  it('gives up on an answer that does not start and asks again', async () => {
    const records = night(1);
    await h.store().appendRecords(records);
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    h.s3.fault({ method: 'GET', key: /\/runs\// }, { kind: 'slow-first-byte', release: held });
    try {
      // The held answer never comes on its own: the outcome does not depend on the timeout.
      const read = await h.store({ requestTimeoutMs: 200 }).readRecords('default');
      expect(read.records).toHaveLength(2);
      expect(h.s3.count('GetObject')).toBe(2);
    } finally {
      release();
    }
  });

  it('gives up at its deadline with an error naming the bucket, losing nothing stored', async () => {
    const earlier = night(1);
    await h.store().appendRecords(earlier);
    h.s3.fault({ method: 'PUT', times: 1_000 }, { kind: 'InternalError' });
    const store = h.store({ deadlineMs: 0 });
    await expect(store.appendRecords(night(2))).rejects.toThrow(
      /could not store 2 record\(s\) in s3:\/\/test-bucket\/perf\/: could not write s3:\/\/test-bucket\/perf\/default\/runs\/.*500 InternalError.*Nothing of this write was stored.*re-run the job/,
    );
    expect(h.keys()).toHaveLength(1);
    expect((await h.store().readRecords('default')).records).toEqual([...earlier].reverse());
  });

  it('names the store and what to check when the credentials are refused', async () => {
    const store = h.store({ bucket: 'no-such-bucket' });
    await expect(store.readRecords('default')).rejects.toThrow(
      /s3:\/\/no-such-bucket\/perf\/.*NoSuchBucket.*check the bucket name and region/,
    );
  });
});

describe("S3RecordStore: what is not the gate's", () => {
  it('refuses and names objects under the gate that it did not write', async () => {
    const records = night(1);
    await h.store().appendRecords(records);
    await h.put('perf/default/runs/notes.txt', 'hello');
    await h.put('perf/default/runs/20260101/notes.txt', 'hello');
    await h.put('perf/default/runs/20260101/20260101T000000Z-x-deadbeef.json', '{"a": 1}');
    const read = await h.store().readRecords('default');
    expect(read.records).toHaveLength(2);
    expect(read.warnings).toEqual([
      `${WHERE}default/runs/notes.txt: directly in the runs folder; not an object of this store, refused`,
      `${WHERE}default/runs/20260101/notes.txt: not a batch object; not an object of this store, refused`,
      `${WHERE}default/runs/20260101/20260101T000000Z-x-deadbeef.json: is not a neuron-perf-gate batch (no "kind": "neuron-perf-gate-batch"); not an object of this store, refused`,
    ]);
    const stored = await h.store().readStoredRecords('default');
    expect(stored.records).toHaveLength(2);
    expect(stored.warnings).toHaveLength(3);
  });

  it("skips another gate's records inside a batch, and refuses another gate's batch", async () => {
    const mine = sampleRecord('llama 8b', 1, at(1));
    const theirs = sampleRecord('llama 8b', 2, at(2), { gateKey: 'other' });
    const batch = (gateKey: string, list: (typeof mine)[]) =>
      JSON.stringify({
        kind: 'neuron-perf-gate-batch',
        schemaVersion: 1,
        gateKey,
        records: list.map((r) => ({ path: pathOfRecord(r), text: serializeRecord(r) })),
      });
    const mixed = 'perf/default/runs/19700101/19700101T000002Z-mixed-0000000a.json';
    const foreign = 'perf/default/runs/19700101/19700101T000003Z-theirs-0000000b.json';
    await h.put(mixed, batch('default', [mine, theirs]));
    await h.put(foreign, batch('other', [theirs]));
    const read = await h.store().readRecords('default');
    expect(read.records).toEqual([mine]);
    expect(read.warnings).toEqual([
      `s3://${BUCKET}/${foreign}: a batch of gate 'other' in another gate's folder; refused`,
      `s3://${BUCKET}/${mixed} (${pathOfRecord(theirs)}): holds gate 'other', not this folder's; skipped`,
    ]);
  });
});

describe('S3RecordStore: the history, as the data branch gives it', () => {
  it('reads every record oldest first, without samples, in the order GitBranchStore does', async () => {
    const repos = await makeRepos();
    const branch = new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await mkdtemp(join(repos.root, 'work-')),
    });
    // Two gates, ties in time (ordered by path), writes out of time order.
    const writes = [
      [...night(3), sampleRecord('llama 8b', 90, at(3 * 86_400), { runId: 'tie' })],
      night(1),
      [sampleRecord('qwen3', 91, at(2 * 86_400), { gateKey: 'nightly/trn' })],
      night(2),
    ];
    const s3 = h.store();
    for (const records of writes) {
      await branch.appendRecords(records);
      await s3.appendRecords(records);
    }
    for (const gate of ['default', 'nightly/trn', undefined]) {
      const fromBranch = await branch.readStoredRecords(gate);
      const fromS3 = await s3.readStoredRecords(gate);
      expect(fromS3.warnings).toEqual([]);
      expect(fromS3.records).toEqual(fromBranch.records);
    }
    const all = await s3.readStoredRecords();
    expect(all.records).toHaveLength(writes.flat().length);
    for (const { record } of all.records) {
      for (const metric of record.result.metrics) expect(metric.samples).toBeUndefined();
    }
  });
});

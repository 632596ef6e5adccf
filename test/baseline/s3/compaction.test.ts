import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BaselineRecord } from '../../../src/baseline/record.js';
import { sampleRecord } from '../git/support.js';
import { BUCKET, startHarness, type StoreHarness } from './support.js';

let h: StoreHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1, 2);
const MANIFEST = 'perf/default/manifest.json';
const LEASE = 'perf/default/lease.json';

/** `days` nights from 1 January 2026 (to 22 March for 81), two runners a night. */
async function writeNights(days = 81): Promise<BaselineRecord[]> {
  const store = h.store();
  const all: BaselineRecord[] = [];
  for (let day = 0; day < days; day += 1) {
    for (const runner of [0, 1]) {
      const at = (minute: number) => new Date(START + day * DAY + (runner * 10 + minute) * 60_000);
      const runId = `${day}-${runner}`;
      const records = [
        sampleRecord('llama 8b', day * 4 + runner * 2, at(0), { runId }),
        sampleRecord('qwen3', day * 4 + runner * 2 + 1, at(1), { runId }),
      ];
      await store.appendRecords(records);
      all.push(...records);
    }
  }
  return all;
}

const on = (iso: string) => () => new Date(iso);

/** Requests the call makes, in all. */
async function requestsOf(call: () => Promise<unknown>): Promise<number> {
  const before = h.s3.requestCount;
  await call();
  return h.s3.requestCount - before;
}

function manifestMonths(): string[] {
  const text = h.s3.object(BUCKET, MANIFEST)?.toString();
  return text === undefined
    ? []
    : (JSON.parse(text) as { months: { month: string }[] }).months.map((m) => m.month);
}

describe('S3RecordStore compaction', () => {
  it('merges finished months into month objects; the history reads the same from far fewer objects', async () => {
    await writeNights();
    const store = h.store();
    const before = await store.readStoredRecords('default');
    const seriesBefore = await requestsOf(() => store.readStoredRecords('default', 'llama 8b'));

    const result = await store.compact('default', { now: on('2026-03-25T00:00:00Z') });
    expect(result).toEqual({ compacted: ['2026-01', '2026-02'], warnings: [] });
    expect(manifestMonths()).toEqual(['2026-01', '2026-02']);
    expect(h.keys('perf/default/months/')).toHaveLength(4);
    expect(h.keys(LEASE)).toEqual([]);

    const after = await store.readStoredRecords('default');
    expect(after).toEqual(before);
    const series = await store.readStoredRecords('default', 'llama 8b');
    expect(series.records).toEqual(before.records.filter((r) => r.record.benchmark === 'llama 8b'));
    const seriesAfter = await requestsOf(() => store.readStoredRecords('default', 'llama 8b'));
    // Before: the listing and all 162 batch objects. After: the manifest, the listing, two
    // month objects and March's 44 batches.
    expect(seriesBefore).toBe(1 + 1 + 162);
    expect(seriesAfter).toBe(1 + 1 + 2 + 44);

    // The newest records still come from the batch objects, samples and all.
    const newest = await store.readRecords('default', 'qwen3', { limit: 2 });
    expect(newest.records.map((r) => r.runId)).toEqual(['80-1', '80-0']);
    expect(newest.records[0]?.result.metrics[1]?.samples).toBeDefined();
  });

  it("reads one series' months only, not those of a benchmark whose name starts the same", async () => {
    const store = h.store();
    const records = [0, 1, 2].flatMap((day) =>
      ['llama', 'llama-8b'].map((name, i) =>
        sampleRecord(name, day * 2 + i, new Date(START + day * DAY + i * 60_000), {
          runId: `${day}`,
        }),
      ),
    );
    for (const day of [0, 1, 2]) await store.appendRecords(records.slice(day * 2, day * 2 + 2));
    await store.compact('default', { now: on('2026-02-01T00:00:00Z') });
    let series!: Awaited<ReturnType<typeof store.readStoredRecords>>;
    const requests = await requestsOf(async () => {
      series = await store.readStoredRecords('default', 'llama');
    });
    expect(series.records.map((r) => r.record.benchmark)).toEqual(['llama', 'llama', 'llama']);
    // The manifest, the listing, llama's January: not llama-8b's.
    expect(requests).toBe(3);
  });

  it('backs off while another compactor holds the lease', async () => {
    await writeNights(40);
    let paused!: () => void;
    const pausing = new Promise<void>((done) => (paused = done));
    let resume!: () => void;
    const held = new Promise<void>((done) => (resume = done));
    const first = h.store().compact('default', {
      now: on('2026-03-01T00:00:00Z'),
      owner: 'first',
      beforeCommit: async () => {
        paused();
        await held;
      },
    });
    await pausing;
    const second = await h.store().compact('default', {
      now: on('2026-03-01T00:05:00Z'),
      owner: 'second',
    });
    expect(second).toEqual({
      compacted: [],
      leaseHeldBy: 'first until 2026-03-01T00:15:00.000Z',
      warnings: [],
    });
    resume();
    expect((await first).compacted).toEqual(['2026-01', '2026-02']);
    expect(h.keys(LEASE)).toEqual([]);
  });

  it('keeps both compactions when one commits between the manifest read and write of another', async () => {
    const records = await writeNights();
    const store = h.store();
    await store.compact('default', { now: on('2026-02-10T00:00:00Z') });
    expect(manifestMonths()).toEqual(['2026-01']);
    const januaryEtag = `"${createHash('md5')
      .update(h.s3.object(BUCKET, MANIFEST) ?? '')
      .digest('hex')}"`;
    // A's manifest write is held at the server until B, who took A's lease as expired,
    // has committed February and March.
    let release!: () => void;
    h.s3.fault(
      { method: 'PUT', key: MANIFEST },
      { kind: 'slow-first-byte', release: new Promise<void>((done) => (release = done)) },
    );
    const a = h.store().compact('default', { now: on('2026-03-10T00:00:00Z'), owner: 'a' });
    // Arrived and unanswered: A's, the first compaction's was answered.
    await h.s3.until((log) =>
      log.some((e) => e.key === MANIFEST && e.method === 'PUT' && e.status === 0),
    );
    const b = await h.store().compact('default', { now: on('2026-04-10T00:00:00Z'), owner: 'b' });
    expect(b.compacted).toEqual(['2026-02', '2026-03']);
    release();
    await a;
    const manifestPuts = h.s3.log.filter((e) => e.key === MANIFEST && e.method === 'PUT');
    // Jan (first compaction), A's February held, B's February and March, A's retry.
    const held = manifestPuts[1];
    expect(held?.ifMatch).toBe(januaryEtag);
    expect([409, 412]).toContain(held?.status);
    expect(manifestPuts.map((e) => e.status)).toEqual([200, held?.status, 200, 200]);
    expect(manifestMonths()).toEqual(['2026-01', '2026-02', '2026-03']);
    const history = await store.readStoredRecords('default');
    expect(history.records).toHaveLength(records.length);
    expect(new Set(history.records.map((r) => r.path)).size).toBe(records.length);
  });

  it('leaves reads correct when a compaction dies between its month objects and the manifest', async () => {
    await writeNights(40);
    const store = h.store();
    const before = await store.readStoredRecords('default');
    const crash = store.compact('default', {
      now: on('2026-03-01T00:00:00Z'),
      beforeCommit: () => Promise.reject(new Error('killed')),
    });
    await expect(crash).rejects.toThrow('killed');
    expect(h.keys('perf/default/months/2026-01/')).toHaveLength(2);
    expect(h.keys(MANIFEST)).toEqual([]);
    expect(await store.readStoredRecords('default')).toEqual(before);

    // A compactor killed outright leaves its lease: the next one waits for it to expire.
    await h.put(LEASE, JSON.stringify({ owner: 'killed', expiresAt: '2026-03-01T00:15:00.000Z' }));
    const waiting = await store.compact('default', { now: on('2026-03-01T00:10:00Z') });
    expect(waiting.leaseHeldBy).toBe('killed until 2026-03-01T00:15:00.000Z');
    const done = await store.compact('default', { now: on('2026-03-01T00:20:00Z') });
    expect(done.compacted).toEqual(['2026-01', '2026-02']);
    // The dead compaction's January objects are the same bytes: written again, not doubled.
    expect(h.keys('perf/default/months/2026-01/')).toHaveLength(2);
    expect(await store.readStoredRecords('default')).toEqual(before);
  });
});

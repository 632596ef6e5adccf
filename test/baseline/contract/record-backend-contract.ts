// One contract for every record store (issue 52): the same cases run against the git data
// branch, S3 and PostgreSQL, each through its own runner (`*.contract.test.ts`) that says
// how to open a fresh store, open it again as another writer would, and clean up.

import { describe, expect, it } from 'vitest';
import { acceptanceRecord } from '../../../src/baseline/accept.js';
import type { RecordBackend } from '../../../src/baseline/record-backend.js';
import type { BaselineRecord } from '../../../src/baseline/record.js';
import { pathOfRecord } from '../../../src/baseline/record-paths.js';
import { createRecord, type RecordInput } from '../../../src/baseline/record-create.js';
import { answersOf } from '../../support/stored-answers.js';
import { at, sampleRecord, sampleResult } from '../git/support.js';

export interface OpenedStore {
  backend: RecordBackend;
  /** The same store through a new instance: another process's writer. */
  reopen: () => Promise<RecordBackend>;
  cleanup: () => Promise<void>;
  /**
   * Puts a record of gate FOREIGN_GATE where `gateKey`'s records are (the store's own
   * way); returns the path or key the store's warning should name.
   */
  plantForeign?: (gateKey: string) => Promise<string>;
  /**
   * The store writes without reading what is stored (S3: each write a new immutable
   * object), so `added` names every record of a write, and a record stored twice or two
   * records wanting one path are told apart when read. Reads must still show each once.
   */
  writesBlind?: boolean;
  /** Arms one fault for the store's next call of that kind (the store's own way). */
  faults?: {
    'write-dropped'?: () => Promise<void>;
    'read-dropped'?: () => Promise<void>;
  };
}

const GATE = 'default';
/** The gate of the record plantForeign puts in place. */
export const FOREIGN_GATE = 'someone-else';

function withoutSamplesOrAnswers(record: BaselineRecord): BaselineRecord {
  const copy = structuredClone(record);
  for (const metric of copy.result.metrics) delete metric.samples;
  return copy;
}

/** What `record` was created from, but its result. */
function recordInputOf(record: BaselineRecord): Omit<RecordInput, 'result'> {
  const { gateKey, commit, branch, event, runId, verdict, createdAt } = record;
  return { gateKey, commit, branch, event, runId, verdict, createdAt };
}

/** Records of `benchmark` at the given seconds, seeded apart. */
function records(benchmark: string, seconds: number[], gateKey = GATE): BaselineRecord[] {
  return seconds.map((s) => sampleRecord(benchmark, s, at(s), { gateKey }));
}

export function describeRecordBackendContract(
  name: string,
  open: () => Promise<OpenedStore>,
): void {
  /** Runs `body` on a fresh store and cleans up after, whatever happens. */
  const withStore = async (body: (store: OpenedStore) => Promise<void>) => {
    const store = await open();
    try {
      await body(store);
    } finally {
      await store.backend.close?.();
      await store.cleanup();
    }
  };

  describe(`RecordBackend contract: ${name}`, () => {
    it('reads back what it wrote: newest first, per benchmark, with a limit, samples kept', () =>
      withStore(async ({ backend }) => {
        const qwen = records('qwen', [1, 3, 5]);
        const llama = records('llama', [2, 4]);
        const written = await backend.appendRecords([...qwen, ...llama]);
        expect([...written.added].sort()).toEqual([...qwen, ...llama].map(pathOfRecord).sort());

        const all = await backend.readRecords(GATE);
        expect(all.warnings).toEqual([]);
        expect(all.records.map((r) => r.createdAt)).toEqual(
          [5, 4, 3, 2, 1].map((s) => at(s).toISOString()),
        );
        expect(all.records.find((r) => r.runId === qwen[0]!.runId)).toEqual(qwen[0]);

        const newest = await backend.readRecords(GATE, undefined, { limit: 2 });
        expect(newest.records.map((r) => r.runId).sort()).toEqual(
          [qwen[2]!, qwen[1]!, llama[1]!, llama[0]!].map((r) => r.runId).sort(),
        );
        const onlyLlama = await backend.readRecords(GATE, 'llama');
        expect(onlyLlama.records).toEqual([llama[1], llama[0]]);
        const nothing = await backend.readRecords('no-such-gate');
        expect(nothing.records).toEqual([]);
      }));

    it('lists every stored record oldest first, with its path and without samples', () =>
      withStore(async ({ backend }) => {
        const written = [...records('qwen', [3, 1]), ...records('llama', [2])];
        await backend.appendRecords(written);
        const listed = await backend.readStoredRecords(GATE);
        expect(listed.warnings).toEqual([]);
        expect(listed.records.map((r) => r.path)).toEqual(
          [written[1]!, written[2]!, written[0]!].map(pathOfRecord),
        );
        expect(listed.records[0]!.record).toEqual(withoutSamplesOrAnswers(written[1]!));
        expect(listed.records.every((r) => r.record.result.metrics.every((m) => !m.samples))).toBe(
          true,
        );
      }));

    it("keeps a record's agreement answers whole (30 KB and more of packed text), and lists it without them", () =>
      withStore(async ({ backend }) => {
        const plain = sampleRecord('qwen', 1, at(1));
        const answered = createRecord({
          ...recordInputOf(sampleRecord('qwen', 2, at(2))),
          result: { ...sampleResult('qwen', 2), answers: answersOf(2) },
        });
        await backend.appendRecords([plain, answered]);
        const read = await backend.readRecords(GATE, 'qwen');
        expect(read.records).toEqual([answered, plain]);
        expect(read.records[0]!.result.answers!.answers.length).toBeGreaterThan(30_000);
        // The listing (the history, the dashboard) reads per-run values only.
        const listed = await backend.readStoredRecords(GATE, 'qwen');
        expect(listed.records.map((r) => r.record.result.answers)).toEqual([undefined, undefined]);
      }));

    it('adds nothing for a retried identical write', () =>
      withStore(async ({ backend, reopen, writesBlind }) => {
        const batch = records('qwen', [1, 2]);
        await backend.appendRecords(batch);
        const again = await backend.appendRecords(batch);
        expect(again.added).toEqual([]);
        const elsewhere = await (await reopen()).appendRecords([batch[1]!]);
        if (!writesBlind) expect(elsewhere.added).toEqual([]);
        expect((await backend.readStoredRecords(GATE)).records).toHaveLength(2);
        expect((await backend.readRecords(GATE)).records).toEqual([...batch].reverse());
      }));

    it('keeps two different records that want the same path', () =>
      withStore(async ({ backend, writesBlind }) => {
        const first = sampleRecord('qwen', 1, at(1));
        const second = sampleRecord('qwen', 2, at(1), { runId: first.runId, commit: first.commit });
        expect(pathOfRecord(second)).toBe(pathOfRecord(first));
        await backend.appendRecords([first]);
        const added = await backend.appendRecords([second]);
        expect(added.added).toHaveLength(1);
        if (!writesBlind) expect(added.added[0]).not.toBe(pathOfRecord(first));
        const paths = (await backend.readStoredRecords(GATE)).records.map((r) => r.path);
        expect(new Set(paths).size).toBe(2);
        const read = await backend.readRecords(GATE, 'qwen');
        expect(read.records).toHaveLength(2);
        expect(read.records).toEqual(expect.arrayContaining([first, second]));
      }));

    it('loses nothing and duplicates nothing with 8 writers at once', () =>
      withStore(async ({ backend, reopen }) => {
        await backend.appendRecords(records('qwen', [0]));
        const shared = sampleRecord('shared', 99, at(99));
        const writers = await Promise.all(Array.from({ length: 8 }, () => reopen()));
        await Promise.all(
          writers.map((writer, i) =>
            writer.appendRecords([sampleRecord('qwen', i + 1, at(i + 1)), shared]),
          ),
        );
        await Promise.all(writers.map((writer) => writer.close?.()));
        const listed = await backend.readStoredRecords(GATE);
        const paths = listed.records.map((r) => r.path);
        expect(new Set(paths).size).toBe(paths.length);
        expect(listed.records.map((r) => r.record.runId).sort()).toEqual(
          [...Array.from({ length: 9 }, (_, i) => String(1000 + i)), shared.runId].sort(),
        );
      }));

    it('round-trips acceptance and override marks', () =>
      withStore(async ({ backend }) => {
        const [regressed] = records('qwen', [1]);
        await backend.appendRecords([regressed!]);
        const manual = acceptanceRecord(regressed!, {
          reason: 'manual',
          by: 'octocat',
          note: 'new normal after the SDK upgrade',
          at: at(10),
          records: [pathOfRecord(regressed!)],
        });
        const override = acceptanceRecord(regressed!, {
          reason: 'accept-current',
          by: 'octocat',
          at: at(11),
          records: [],
        });
        await backend.appendRecords([manual, override]);
        const read = await backend.readRecords(GATE, 'qwen');
        expect(read.records).toEqual([override, manual, regressed]);
        const listed = await backend.readStoredRecords(GATE);
        expect(listed.records.map((r) => r.record.acceptance)).toEqual([
          undefined,
          manual.acceptance,
          override.acceptance,
        ]);
      }));

    it('orders the history across gates by time, and reads one gate alone', () =>
      withStore(async ({ backend }) => {
        const nightly = records('qwen', [1, 4], 'nightly');
        const pr = records('qwen', [2, 3], 'pull-requests');
        await backend.appendRecords([nightly[1]!, pr[0]!]);
        await backend.appendRecords([pr[1]!, nightly[0]!]);
        const all = await backend.readStoredRecords();
        expect(all.records.map((r) => [r.record.gateKey, r.record.createdAt])).toEqual([
          ['nightly', at(1).toISOString()],
          ['pull-requests', at(2).toISOString()],
          ['pull-requests', at(3).toISOString()],
          ['nightly', at(4).toISOString()],
        ]);
        const one = await backend.readStoredRecords('nightly');
        expect(one.records.map((r) => r.record.gateKey)).toEqual(['nightly', 'nightly']);
      }));

    it("reads one benchmark's history alone, not a benchmark whose name starts the same", () =>
      withStore(async ({ backend }) => {
        const llama = records('llama', [1, 3]);
        const longer = records('llama-8b', [2]);
        await backend.appendRecords([...llama, ...longer]);
        const one = await backend.readStoredRecords(GATE, 'llama');
        expect(one.records.map((r) => r.path)).toEqual(llama.map(pathOfRecord));
        expect(one.records[1]!.record).toEqual(withoutSamplesOrAnswers(llama[1]!));
        const none = await backend.readStoredRecords(GATE, 'mistral');
        expect(none.records).toEqual([]);
      }));

    it('skips a record of another gate where this gate keeps its own, naming it', async (ctx) => {
      const store = await open();
      try {
        if (!store.plantForeign) return ctx.skip('the store gives no way to plant a record');
        await store.backend.appendRecords(records('qwen', [1]));
        const where = await store.plantForeign(GATE);
        const read = await store.backend.readRecords(GATE);
        expect(read.records.map((r) => r.gateKey)).toEqual([GATE]);
        expect(read.warnings).toHaveLength(1);
        expect(read.warnings[0]).toContain(where);
        expect(read.warnings[0]).toContain(FOREIGN_GATE);
        const listed = await store.backend.readStoredRecords(GATE);
        expect(listed.records).toHaveLength(1);
        expect(listed.warnings.join('\n')).toContain(where);
      } finally {
        await store.backend.close?.();
        await store.cleanup();
      }
    });

    it('after a write dropped half way, holds all of it or none, and a retry completes it', async (ctx) => {
      const store = await open();
      try {
        const arm = store.faults?.['write-dropped'];
        if (!arm) return ctx.skip('the store gives no way to drop a write');
        await store.backend.appendRecords(records('qwen', [1]));
        const batch = records('qwen', [2, 3, 4]);
        await arm();
        const failed = await store.backend.appendRecords(batch).then(
          () => false,
          () => true,
        );
        const after = (await store.backend.readStoredRecords(GATE)).records.length;
        expect([1, 4]).toContain(after);
        if (failed) expect(after).toBe(1);
        await store.backend.appendRecords(batch);
        const read = await store.backend.readRecords(GATE);
        expect(read.records).toEqual([...batch].reverse().concat(records('qwen', [1])));
      } finally {
        await store.backend.close?.();
        await store.cleanup();
      }
    });

    it('after a read dropped half way, fails or reads everything, never a part', async (ctx) => {
      const store = await open();
      try {
        const arm = store.faults?.['read-dropped'];
        if (!arm) return ctx.skip('the store gives no way to drop a read');
        const written = records('qwen', [1, 2, 3]);
        await store.backend.appendRecords(written);
        await arm();
        const read = await store.backend.readRecords(GATE).then(
          (result) => result.records,
          () => undefined,
        );
        if (read !== undefined) expect(read).toEqual([...written].reverse());
        expect((await store.backend.readRecords(GATE)).records).toEqual([...written].reverse());
      } finally {
        await store.backend.close?.();
        await store.cleanup();
      }
    });
  });
}

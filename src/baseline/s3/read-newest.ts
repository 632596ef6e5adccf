// A gate's newest records (readRecords): its days listed newest first, each day's batch
// objects read newest first, a few at a time, until every benchmark has its `limit`
// records and no unread batch can hold a newer one. A batch's key carries its newest
// record's time, so the reading stops at the first key older than what is kept.

import type { ReadRecordsResult } from '../record-backend.js';
import { gateFolder } from '../record-paths.js';
import { READ_CONCURRENCY } from './bounded.js';
import {
  RecordNames,
  readBatchObjects,
  type ReadEntry,
  type RecordFilter,
} from './batch-records.js';
import type { S3Calls } from './s3-calls.js';
import { batchStamp, stampOf, type StoreKeys } from './s3-keys.js';

const DAY_FOLDER = /\/\d{8}\/$/;

export async function readNewest(
  calls: S3Calls,
  keys: StoreKeys,
  gateKey: string,
  benchmark: string | undefined,
  limit: number,
): Promise<ReadRecordsResult> {
  const folder = gateFolder(gateKey);
  const runs = keys.runs(folder);
  const filter: RecordFilter = {
    gateKey,
    gateFolder: folder,
    ...(benchmark !== undefined ? { benchmark } : {}),
    samples: true,
  };
  const kept = new Newest(limit, benchmark);
  const warnings: string[] = [];
  const top = await calls.list(runs, { folders: true });
  warnings.push(...strangers(calls, top.keys, 'directly in the runs folder'));
  const days = top.folders.filter((day) => DAY_FOLDER.test(day)).reverse();
  warnings.push(
    ...strangers(
      calls,
      top.folders.filter((day) => !DAY_FOLDER.test(day)),
      'a folder that is not a day',
    ),
  );
  let stoppedEarly = false;
  days: for (const day of days) {
    const listed = (await calls.list(day)).keys;
    const batches = listed.flatMap((key) => {
      const stamp = batchStamp(key, runs);
      return stamp === undefined ? [] : [{ key, stamp }];
    });
    warnings.push(
      ...strangers(
        calls,
        listed.filter((key) => batchStamp(key, runs) === undefined),
        'not a batch object',
      ),
    );
    batches.reverse();
    for (let start = 0; start < batches.length; start += READ_CONCURRENCY) {
      const chunk = batches.slice(start, start + READ_CONCURRENCY);
      if (kept.complete(chunk[0]!.stamp)) {
        stoppedEarly = benchmark === undefined;
        break days;
      }
      const keysRead = chunk.map((batch) => batch.key);
      const read = await readBatchObjects(calls, keysRead, filter, warnings);
      for (const entries of read) kept.add(entries);
    }
  }
  return { records: kept.newestFirst(), warnings, ...(stoppedEarly ? { stoppedEarly } : {}) };
}

/** Warnings naming objects under a gate's runs folder that the store did not write. */
function strangers(calls: S3Calls, keys: string[], what: string): string[] {
  return keys.map((key) => `${calls.url(key)}: ${what}; not an object of this store, refused`);
}

/** The newest `limit` records of each benchmark met so far. */
class Newest {
  private readonly byBenchmark = new Map<string, ReadEntry[]>();
  private readonly names = new RecordNames();

  constructor(
    private readonly limit: number,
    private readonly benchmark: string | undefined,
  ) {}

  add(entries: ReadEntry[]): void {
    for (const entry of entries) {
      const path = this.names.name(entry.path, entry.identity);
      if (path === undefined) continue;
      const list = this.byBenchmark.get(entry.record.benchmark) ?? [];
      list.push({ ...entry, path });
      this.byBenchmark.set(entry.record.benchmark, list);
    }
  }

  /**
   * Whether no batch with a key stamped `nextStamp` or older can change what is kept:
   * every benchmark met (or the one asked for) has `limit` records all newer than that.
   */
  complete(nextStamp: string): boolean {
    if (this.limit === 0) return true;
    if (!Number.isFinite(this.limit) || this.byBenchmark.size === 0) return false;
    if (this.benchmark !== undefined && !this.byBenchmark.has(this.benchmark)) return false;
    for (const list of this.byBenchmark.values()) {
      if (list.length < this.limit) return false;
      sortNewestFirst(list);
      if (stampOf(list[this.limit - 1]!.record.createdAt) <= nextStamp) return false;
    }
    return true;
  }

  newestFirst(): ReadRecordsResult['records'] {
    const kept = [...this.byBenchmark.values()].flatMap((list) =>
      sortNewestFirst(list).slice(0, this.limit),
    );
    return sortNewestFirst(kept).map((entry) => entry.record);
  }
}

/** Newest first, as GitBranchStore orders them: by time, then by path. */
function sortNewestFirst<T extends ReadEntry>(list: T[]): T[] {
  return list.sort(
    (a, b) => b.record.createdAt.localeCompare(a.record.createdAt) || b.path.localeCompare(a.path),
  );
}

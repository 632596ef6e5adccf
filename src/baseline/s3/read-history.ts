// Every record of a gate, or of every gate (readStoredRecords), without samples, oldest
// first: the compacted months the gate's manifest names, and the batch objects no
// compacted month covers.

import type { ReadStoredRecordsResult, StoredRecord } from '../record-backend.js';
import { gateFolder } from '../record-paths.js';
import { mapBounded } from './bounded.js';
import {
  RecordNames,
  readBatchObjects,
  type ReadEntry,
  type RecordFilter,
} from './batch-records.js';
import { coveredBatches, monthObjects, readManifest } from './manifest.js';
import { slugify } from '../../runner/slug.js';
import { readMonth } from './month.js';
import type { S3Calls } from './s3-calls.js';
import { batchStamp, type StoreKeys } from './s3-keys.js';

export async function readHistory(
  calls: S3Calls,
  keys: StoreKeys,
  gateKey: string | undefined,
  benchmark?: string,
): Promise<ReadStoredRecordsResult> {
  const folders = gateKey === undefined ? await gateFolders(calls, keys) : [gateFolder(gateKey)];
  const warnings: string[] = [];
  const records: StoredRecord[] = [];
  for (const folder of folders) {
    const filter: RecordFilter = {
      ...(gateKey !== undefined ? { gateKey } : {}),
      gateFolder: folder,
      ...(benchmark !== undefined ? { benchmark } : {}),
      samples: false,
    };
    const entries = await readGate(calls, keys, filter, warnings);
    const names = new RecordNames();
    for (const entry of sortOldestFirst(entries)) {
      const path = names.name(entry.path, entry.identity);
      if (path !== undefined) records.push({ path, record: entry.record });
    }
  }
  return { records: sortOldestFirst(records), warnings };
}

/** The gate folders under the store's prefix. */
async function gateFolders(calls: S3Calls, keys: StoreKeys): Promise<string[]> {
  const top = await calls.list(keys.prefix, { folders: true });
  return top.folders.map((folder) => folder.slice(keys.prefix.length, -1));
}

async function readGate(
  calls: S3Calls,
  keys: StoreKeys,
  filter: RecordFilter,
  warnings: string[],
): Promise<ReadEntry[]> {
  const gatePrefix = keys.gate(filter.gateFolder);
  const runs = keys.runs(filter.gateFolder);
  const [{ manifest }, listed] = await Promise.all([
    readManifest(calls, keys, filter.gateFolder, warnings),
    calls.list(runs),
  ]);
  const covered = coveredBatches(manifest, gatePrefix);
  for (const key of listed.keys.filter((k) => batchStamp(k, runs) === undefined)) {
    warnings.push(`${calls.url(key)}: not a batch object; not an object of this store, refused`);
  }
  const batches = listed.keys.filter((k) => batchStamp(k, runs) !== undefined && !covered.has(k));
  const months = monthObjects(manifest, gatePrefix).filter((key) => isOfBenchmark(key, filter));
  const fromMonths = await mapBounded(months, async (key) => {
    const own: string[] = [];
    return { entries: await readMonth(calls, key, filter, own), own };
  });
  for (const { own } of fromMonths) warnings.push(...own);
  const fromBatches = await readBatchObjects(calls, batches, filter, warnings);
  return [...fromMonths.flatMap((month) => month.entries), ...fromBatches.flat()];
}

/** Whether a month object, `<benchmark-slug>-<hash8>.json`, is of the benchmark asked for. */
function isOfBenchmark(key: string, filter: RecordFilter): boolean {
  if (filter.benchmark === undefined) return true;
  const name = /([^/]+)-[0-9a-f]{8}\.json$/.exec(key);
  return name?.[1] === slugify(filter.benchmark);
}

/** Oldest first, as GitBranchStore orders them: by time, then by path. */
function sortOldestFirst<T extends StoredRecord>(list: T[]): T[] {
  return list.sort(
    (a, b) => a.record.createdAt.localeCompare(b.record.createdAt) || a.path.localeCompare(b.path),
  );
}

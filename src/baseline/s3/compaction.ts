// Compaction: a finished month's batch objects of a gate merged into one month object per
// benchmark (records without samples), so a year of history is a few hundred reads, not
// tens of thousands. Under the gate's lease; committed by the manifest, which is replaced
// with If-Match only. Month objects are immutable and named by their content's hash: a
// compaction that crashed before its manifest update left objects nobody reads, and one
// done again writes the same keys. Batch objects stay (readRecords reads recent ones).

import { slugify } from '../../runner/slug.js';
import { gateFolder } from '../record-paths.js';
import { mapBounded } from './bounded.js';
import {
  RecordNames,
  readBatchObjects,
  type ReadEntry,
  type RecordFilter,
} from './batch-records.js';
import { newOwner, releaseLease, takeLease } from './lease.js';
import { emptyManifest, readManifest, type CompactedMonth } from './manifest.js';
import { encodeMonth } from './month.js';
import type { S3Calls } from './s3-calls.js';
import { batchStamp, monthOf, type StoreKeys } from './s3-keys.js';

export const DEFAULT_LEASE_MS = 15 * 60_000;
/** Manifest updates lost to other compactors before giving up: each loss is one commit of theirs. */
const MAX_MANIFEST_TRIES = 20;

export interface CompactOptions {
  /** For tests: the clock that says which months are finished and when a lease expires. */
  now?: () => Date;
  leaseMs?: number;
  /** Who holds the lease, for messages (default: a random id). */
  owner?: string;
  /** For tests: called after a month's objects are written, before the manifest is. */
  beforeCommit?: (month: string) => Promise<void>;
}

export interface CompactResult {
  /** Months this compaction committed to the manifest. */
  compacted: string[];
  /** Set when another compactor holds the gate's lease: who, until when. */
  leaseHeldBy?: string;
  warnings: string[];
}

export async function compactGate(
  calls: S3Calls,
  keys: StoreKeys,
  gateKey: string,
  options: CompactOptions = {},
): Promise<CompactResult> {
  const now = options.now ?? (() => new Date());
  const folder = gateFolder(gateKey);
  const leaseKey = keys.lease(folder);
  const owner = options.owner ?? newOwner();
  const lease = await takeLease(calls, leaseKey, owner, now(), options.leaseMs ?? DEFAULT_LEASE_MS);
  if (!lease.held) return { compacted: [], leaseHeldBy: lease.by, warnings: [] };
  try {
    return await compactMonths(calls, keys, gateKey, now(), options);
  } finally {
    await releaseLease(calls, leaseKey, lease.etag);
  }
}

async function compactMonths(
  calls: S3Calls,
  keys: StoreKeys,
  gateKey: string,
  now: Date,
  options: CompactOptions,
): Promise<CompactResult> {
  const folder = gateFolder(gateKey);
  const runs = keys.runs(folder);
  const warnings: string[] = [];
  const { manifest } = await readManifest(calls, keys, folder, warnings);
  const done = new Set(manifest.months.map((m) => m.month));
  const thisMonth = monthOf(now.toISOString().replace(/-/g, ''));
  const days = (await calls.list(runs, { folders: true })).folders
    .map((day) => day.slice(runs.length, -1))
    .filter((day) => /^\d{8}$/.test(day));
  const months = [...new Set(days.map(monthOf))]
    .filter((month) => month < thisMonth && !done.has(month))
    .sort();
  const compacted: string[] = [];
  const filter: RecordFilter = { gateKey, gateFolder: folder, samples: false };
  for (const month of months) {
    const monthDays = days.filter((day) => monthOf(day) === month);
    const entry = await writeMonth(calls, keys, filter, month, monthDays, warnings);
    await options.beforeCommit?.(month);
    if (await commitMonth(calls, keys, folder, entry, warnings)) compacted.push(month);
  }
  return { compacted, warnings };
}

/** Reads the month's batches and writes its month objects; the manifest entry for them. */
async function writeMonth(
  calls: S3Calls,
  keys: StoreKeys,
  filter: RecordFilter,
  month: string,
  days: string[],
  warnings: string[],
): Promise<CompactedMonth> {
  const runs = keys.runs(filter.gateFolder);
  const gatePrefix = keys.gate(filter.gateFolder);
  const batches: string[] = [];
  for (const day of days) {
    batches.push(...(await calls.list(`${runs}${day}/`)).keys.filter((k) => batchStamp(k, runs)));
  }
  const read = await readBatchObjects(calls, batches, filter, warnings);
  const byBenchmark = new Map<string, ReadEntry[]>();
  const names = new RecordNames();
  for (const entry of oldestFirst(read.flat())) {
    const path = names.name(entry.path, entry.identity);
    if (path === undefined) continue;
    const slug = slugify(entry.record.benchmark);
    byBenchmark.set(slug, [...(byBenchmark.get(slug) ?? []), { ...entry, path }]);
  }
  const objects = [...byBenchmark].map(([slug, entries]) => encodeMonth(month, slug, entries));
  await mapBounded(objects, (object) =>
    calls.putConditional(gatePrefix + object.key, object.body, { ifNoneMatch: '*' }),
  );
  return {
    month,
    objects: objects.map((object) => object.key),
    batches: batches.map((key) => key.slice(gatePrefix.length)),
  };
}

/**
 * Adds the month to the manifest with If-Match on the ETag read (If-None-Match for the
 * first), re-reading and trying again when another compactor changed it meanwhile; false
 * when another compaction committed the same month first.
 */
async function commitMonth(
  calls: S3Calls,
  keys: StoreKeys,
  folder: string,
  entry: CompactedMonth,
  warnings: string[],
): Promise<boolean> {
  const key = keys.manifest(folder);
  for (let attempt = 1; attempt <= MAX_MANIFEST_TRIES; attempt += 1) {
    const { manifest, etag } = await readManifest(calls, keys, folder, warnings);
    const committed = manifest.months.find((m) => m.month === entry.month);
    // Ours when the objects are (our own try landed, its answer lost): the same bytes.
    if (committed) return committed.objects.join() === entry.objects.join();
    const next = { ...emptyManifest(), months: [...manifest.months, entry] };
    next.months.sort((a, b) => a.month.localeCompare(b.month));
    const condition = etag === undefined ? { ifNoneMatch: '*' as const } : { ifMatch: etag };
    const put = await calls.putConditional(key, `${JSON.stringify(next)}\n`, condition);
    if (put.value.ok) return true;
  }
  throw new Error(
    `${calls.url(key)}: the manifest changed under each of ${MAX_MANIFEST_TRIES} tries to add ${entry.month}; the month objects are written but not committed (reads are correct without them). Run the compaction again.`,
  );
}

function oldestFirst(list: ReadEntry[]): ReadEntry[] {
  return list.sort(
    (a, b) => a.record.createdAt.localeCompare(b.record.createdAt) || a.path.localeCompare(b.path),
  );
}

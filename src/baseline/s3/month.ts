// A compacted month of one benchmark, `<gate>/months/<YYYY-MM>/<benchmark-slug>-<hash8>.json`:
// the records of the month's batch objects, without samples, each with the identity of
// the text it was written as (so a copy of it in a batch is known as one). Immutable like
// a batch: the hash in the key makes a compaction that is done again write the same key.

import { createHash } from 'node:crypto';
import { benchmarkFolder } from '../record-paths.js';
import { serializeRecord } from '../record-text.js';
import { checkedRecord, type ReadEntry, type RecordFilter } from './batch-records.js';
import type { S3Calls } from './s3-calls.js';

export const MONTH_KIND = 'neuron-perf-gate-month';

interface MonthEntry {
  path: string;
  identity: string;
  text: string;
}

export interface EncodedMonth {
  /** Relative to the gate folder. */
  key: string;
  body: string;
}

/** One month object of a benchmark's records (read without samples). */
export function encodeMonth(
  month: string,
  benchmarkSlug: string,
  entries: ReadEntry[],
): EncodedMonth {
  const records: MonthEntry[] = entries.map((entry) => ({
    path: entry.path,
    identity: entry.identity,
    text: serializeRecord(entry.record),
  }));
  const body = `${JSON.stringify({ kind: MONTH_KIND, schemaVersion: 1, month, records })}\n`;
  const hash8 = createHash('sha256').update(body).digest('hex').slice(0, 8);
  return { key: `months/${month}/${benchmarkSlug}-${hash8}.json`, body };
}

/** The records of a month object the manifest names; refusals into `warnings`. */
export async function readMonth(
  calls: S3Calls,
  key: string,
  filter: RecordFilter,
  warnings: string[],
): Promise<ReadEntry[]> {
  const url = calls.url(key);
  const got = await calls.get(key);
  if (got === undefined) {
    throw new Error(
      `${url} is named by the gate's manifest but is missing: the compacted month cannot be read. Check the bucket's lifecycle rules (the store deletes nothing); deleting the manifest makes reads use the batch objects again.`,
    );
  }
  let records: MonthEntry[];
  try {
    const data = JSON.parse(got.text) as { kind?: unknown; records?: unknown };
    if (data.kind !== MONTH_KIND || !Array.isArray(data.records)) throw new Error('no records');
    records = data.records as MonthEntry[];
  } catch {
    warnings.push(`${url}: not a month object of this store; refused`);
    return [];
  }
  const wanted =
    filter.benchmark === undefined || filter.gateKey === undefined
      ? undefined
      : `${benchmarkFolder(filter.gateKey, filter.benchmark)}/`;
  return records.flatMap((entry) => {
    if (typeof entry?.path !== 'string' || typeof entry.text !== 'string') return [];
    if (wanted !== undefined && !entry.path.startsWith(wanted)) return [];
    const record = checkedRecord(url, entry.path, entry.text, filter, warnings);
    const identity = typeof entry.identity === 'string' ? entry.identity : '';
    return record ? [{ path: entry.path, record, identity }] : [];
  });
}

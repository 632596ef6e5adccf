// The records of batch objects as read back: untrusted input, checked against the gate the
// object sits under and the path each record is listed at; each refusal is a warning
// naming the object.

import { createHash } from 'node:crypto';
import type { StoredRecord } from '../record-backend.js';
import { benchmarkFolder, gateFolder } from '../record-paths.js';
import type { BaselineRecord } from '../record.js';
import { parseRecord } from '../record-text.js';
import { decodeBatch } from './batch.js';
import { mapBounded } from './bounded.js';
import type { S3Calls } from './s3-calls.js';

export interface RecordFilter {
  /** The gate the object sits under (its folder, for a read of every gate). */
  gateKey?: string;
  gateFolder: string;
  /** Only this benchmark's records (the others are not even parsed). */
  benchmark?: string;
  samples: boolean;
}

/** A record read, with the sha256 of its text as written (to tell a copy from another record). */
export interface ReadEntry extends StoredRecord {
  identity: string;
}

/** The identity of a record's text as serializeRecord wrote it. */
export function identityOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The records of one batch object's text that pass the filter; refusals into `warnings`. */
export function recordsOfBatch(
  url: string,
  text: string,
  filter: RecordFilter,
  warnings: string[],
): ReadEntry[] {
  let batch;
  try {
    batch = decodeBatch(text);
  } catch (error) {
    warnings.push(`${url}: ${(error as Error).message}; not an object of this store, refused`);
    return [];
  }
  if (gateFolder(batch.gateKey) !== filter.gateFolder) {
    warnings.push(`${url}: a batch of gate '${batch.gateKey}' in another gate's folder; refused`);
    return [];
  }
  const wanted =
    filter.benchmark === undefined
      ? undefined
      : `${benchmarkFolder(filter.gateKey ?? batch.gateKey, filter.benchmark)}/`;
  const records: ReadEntry[] = [];
  for (const entry of batch.entries) {
    if (wanted !== undefined && !entry.path.startsWith(wanted)) continue;
    const record = checkedRecord(url, entry.path, entry.text, filter, warnings);
    if (record) records.push({ path: entry.path, record, identity: identityOf(entry.text) });
  }
  return records;
}

export function checkedRecord(
  url: string,
  path: string,
  text: string,
  filter: RecordFilter,
  warnings: string[],
): BaselineRecord | undefined {
  const where = `${url} (${path})`;
  let record: BaselineRecord;
  try {
    record = parseRecord(text, { samples: filter.samples });
  } catch (error) {
    warnings.push(`${where}: ${(error as Error).message}; skipped`);
    return undefined;
  }
  const gateOk =
    filter.gateKey !== undefined
      ? record.gateKey === filter.gateKey
      : gateFolder(record.gateKey) === filter.gateFolder;
  if (!gateOk) {
    warnings.push(`${where}: holds gate '${record.gateKey}', not this folder's; skipped`);
    return undefined;
  }
  if (!path.startsWith(`${benchmarkFolder(record.gateKey, record.benchmark)}/`)) {
    warnings.push(`${where}: holds benchmark '${record.benchmark}', not its path's; skipped`);
    return undefined;
  }
  return record;
}

/**
 * One record per path: the same record stored twice (a re-run writing the same bytes in
 * another batch) is kept once; a different record at a taken path gets `-2`, `-3`, ...
 * as on a data branch.
 */
export class RecordNames {
  private readonly identities = new Map<string, string>();

  /** The record's name, or undefined when it is a copy of one already named. */
  name(path: string, identity: string): string | undefined {
    const stem = path.replace(/\.json$/, '');
    for (let n = 1; ; n += 1) {
      const candidate = n === 1 ? path : `${stem}-${n}.json`;
      const taken = this.identities.get(candidate);
      if (taken === undefined) {
        this.identities.set(candidate, identity);
        return candidate;
      }
      if (taken === identity) return undefined;
    }
  }
}

/**
 * The records of these batch objects, read a few at a time, per object in the keys'
 * order; warnings in the keys' order too, whichever read finished first.
 */
export async function readBatchObjects(
  calls: S3Calls,
  keys: string[],
  filter: RecordFilter,
  warnings: string[],
): Promise<ReadEntry[][]> {
  const read = await mapBounded(keys, async (key) => {
    const own: string[] = [];
    const text = (await calls.get(key))?.text;
    // Listed, then gone: nothing of it to read (no store of ours deletes a batch).
    const entries = text === undefined ? [] : recordsOfBatch(calls.url(key), text, filter, own);
    return { entries, own };
  });
  for (const { own } of read) warnings.push(...own);
  return read.map(({ entries }) => entries);
}

// Every stored record with its path AND its per-request samples, from any RecordBackend:
// readStoredRecords names the records but drops their samples, readRecords keeps the
// samples but names nothing. Each benchmark's two lists are paired here; a record copied
// or shown from this is the whole record, under its own path.

import type { RecordBackend, StoredRecord } from './record-backend.js';
import { withoutSamplesOrAnswers, type BaselineRecord } from './record.js';

export interface StoredWithSamples {
  /** Oldest first, like readStoredRecords. */
  records: StoredRecord[];
  warnings: string[];
}

/** The stored records of every gate, of one gate, or of one benchmark of it, with samples. */
export async function readStoredWithSamples(
  backend: RecordBackend,
  gateKey?: string,
  benchmark?: string,
): Promise<StoredWithSamples> {
  const listed =
    gateKey !== undefined && benchmark !== undefined
      ? await backend.readStoredRecords(gateKey, benchmark)
      : await backend.readStoredRecords(gateKey);
  const warnings = [...listed.warnings];
  const groups = new Map<string, StoredRecord[]>();
  for (const stored of listed.records) {
    const key = JSON.stringify([stored.record.gateKey, stored.record.benchmark]);
    groups.set(key, [...(groups.get(key) ?? []), stored]);
  }
  const whole = new Map<StoredRecord, BaselineRecord>();
  for (const [key, stored] of groups) {
    const [gate, benchmark] = JSON.parse(key) as [string, string];
    const read = await backend.readRecords(gate, benchmark);
    pair(stored, read.records, whole);
  }
  const records: StoredRecord[] = [];
  for (const stored of listed.records) {
    const record = whole.get(stored);
    if (record) records.push({ path: stored.path, record });
    else warnings.push(`${stored.path}: listed, but not found again with its samples; skipped`);
  }
  return { records, warnings };
}

/**
 * Matches each listed record (no samples) with the read one that equals it once its
 * samples are left out. Records that differ only in their samples are matched in order,
 * oldest with oldest: both lists sort by time and path.
 */
function pair(
  listed: readonly StoredRecord[],
  read: readonly BaselineRecord[],
  into: Map<StoredRecord, BaselineRecord>,
): void {
  const byShape = new Map<string, BaselineRecord[]>();
  // readRecords is newest first: reversed, the queues hand out the oldest first.
  for (const record of [...read].reverse()) {
    const shape = shapeOf(record);
    byShape.set(shape, [...(byShape.get(shape) ?? []), record]);
  }
  for (const stored of listed) {
    const match = byShape.get(shapeOf(stored.record))?.shift();
    if (match) into.set(stored, match);
  }
}

/** The record as text without its samples: equal for the two reads of one record. */
function shapeOf(record: BaselineRecord): string {
  return JSON.stringify(withoutSamplesOrAnswers(record));
}

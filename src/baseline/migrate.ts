// `baseline migrate`: every record of one store copied into another, samples and all,
// under the same paths, then read back and checked. Appends only: what the target holds
// already is left as it is, and a record stored byte for byte is not stored again, so a
// second migrate of the same history adds nothing.

import { withoutSamplesOrAnswers } from './record.js';
import type { RecordBackend, StoredRecord } from './record-backend.js';
import { pathOfRecord } from './record-paths.js';
import { readStoredWithSamples } from './stored-with-samples.js';

/** Records per write: a data branch commit, a batch of objects or rows. */
export const MIGRATE_BATCH = 200;

export interface GateMigration {
  gateKey: string;
  /** Records of the gate in the source. */
  source: number;
  /** Added to the target by this migrate (0 when it held them already). */
  added: number;
  /** Records of the gate in the target afterwards (more when it held others before). */
  target: number;
  /** Source paths the target lacks, or holds with another record. */
  missing: string[];
}

export interface Migration {
  gates: GateMigration[];
  /** The source's records that could not be read (skipped, so not copied). */
  warnings: string[];
}

export async function migrateRecords(
  from: RecordBackend,
  to: RecordBackend,
  options: { batch?: number } = {},
): Promise<Migration> {
  const batch = options.batch ?? MIGRATE_BATCH;
  const read = await readStoredWithSamples(from);
  const gates: GateMigration[] = [];
  const ordered = [...byGate(read.records)].sort(([a], [b]) => a.localeCompare(b));
  for (const [gateKey, records] of ordered) {
    const inOrder = [...records].sort(appendOrder);
    let added = 0;
    for (let at = 0; at < inOrder.length; at += batch) {
      const chunk = inOrder.slice(at, at + batch).map((stored) => stored.record);
      // Nothing pruned: the history moves whole, however long baseline-keep is.
      const written = await to.appendRecords(chunk, { keep: Number.MAX_SAFE_INTEGER });
      added += written.added.length;
    }
    gates.push({ gateKey, source: records.length, added, ...(await check(to, gateKey, records)) });
  }
  return { gates, warnings: read.warnings };
}

/** The target's records of the gate, and the source paths it lacks or holds otherwise. */
async function check(
  to: RecordBackend,
  gateKey: string,
  records: readonly StoredRecord[],
): Promise<{ target: number; missing: string[] }> {
  const stored = await to.readStoredRecords(gateKey);
  const shapes = new Map(stored.records.map((r) => [r.path, shapeOf(r.record)]));
  const missing = records
    .filter((r) => shapes.get(r.path) !== shapeOf(r.record))
    .map((r) => r.path);
  return { target: stored.records.length, missing };
}

function byGate(records: readonly StoredRecord[]): Map<string, StoredRecord[]> {
  const gates = new Map<string, StoredRecord[]>();
  for (const stored of records) {
    const gate = stored.record.gateKey;
    gates.set(gate, [...(gates.get(gate) ?? []), stored]);
  }
  return gates;
}

/**
 * Oldest first; records that share a name in the order of their `-2`, `-3` suffixes, so
 * that the target, naming them in the order written, gives each its source path.
 */
function appendOrder(a: StoredRecord, b: StoredRecord): number {
  return (
    a.record.createdAt.localeCompare(b.record.createdAt) ||
    pathOfRecord(a.record).localeCompare(pathOfRecord(b.record)) ||
    suffixOf(a) - suffixOf(b)
  );
}

/** 1 for `<name>.json`, n for `<name>-n.json`. */
function suffixOf(stored: StoredRecord): number {
  const wanted = pathOfRecord(stored.record);
  if (stored.path === wanted) return 1;
  const match = /-(\d+)\.json$/.exec(stored.path);
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}

/** A record without its samples, as text: what both stores' listings give. */
function shapeOf(record: StoredRecord['record']): string {
  return JSON.stringify(withoutSamplesOrAnswers(record));
}

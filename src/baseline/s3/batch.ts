// One write's records of one gate as the body of one immutable S3 object: each record's
// path (as on a data branch) and its text (as serializeRecord writes it), so a record
// keeps its name and bytes whichever store holds it.

import { createHash } from 'node:crypto';
import type { BaselineRecord } from '../record.js';
import { gateFolder, pathOfRecord } from '../record-paths.js';
import { migrateRecord, serializeRecord } from '../record-text.js';
import { stampOf } from './s3-keys.js';

export const BATCH_KIND = 'neuron-perf-gate-batch';
export const BATCH_SCHEMA_VERSION = 1;

export interface BatchEntry {
  path: string;
  text: string;
}

export interface Batch {
  gateKey: string;
  entries: BatchEntry[];
}

export interface EncodedBatch {
  gateKey: string;
  folder: string;
  /** The newest record's time: no record in the batch is newer than its key says. */
  stamp: string;
  runId: string;
  body: string;
  /** 8 hex of the body's sha256: equal bodies, equal keys. */
  hash8: string;
  paths: string[];
}

/** The records grouped by gate, one batch each, in the order the gates first appear. */
export function encodeBatches(records: BaselineRecord[]): EncodedBatch[] {
  const byGate = new Map<string, BaselineRecord[]>();
  for (const record of records) {
    const list = byGate.get(record.gateKey) ?? [];
    list.push(record);
    byGate.set(record.gateKey, list);
  }
  return [...byGate].map(([gateKey, list]) => encodeBatch(gateKey, list));
}

function encodeBatch(gateKey: string, records: BaselineRecord[]): EncodedBatch {
  const entries = records.map((record) => {
    // What is stored must read back: validate before anything is written.
    const text = serializeRecord(record);
    migrateRecord(JSON.parse(text));
    return { path: pathOfRecord(record), text };
  });
  const body = `${JSON.stringify({
    kind: BATCH_KIND,
    schemaVersion: BATCH_SCHEMA_VERSION,
    gateKey,
    records: entries,
  })}\n`;
  const newest = records.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
  return {
    gateKey,
    folder: gateFolder(gateKey),
    stamp: stampOf(newest.createdAt),
    runId: newest.runId,
    body,
    hash8: createHash('sha256').update(body).digest('hex').slice(0, 8),
    paths: entries.map((entry) => entry.path),
  };
}

/** A batch from an object's text; throws saying what is wrong (the caller names the key). */
export function decodeBatch(text: string): Batch {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`is not JSON (${(error as Error).message})`, { cause: error });
  }
  const batch = data as { kind?: unknown; schemaVersion?: unknown; gateKey?: unknown };
  if (typeof data !== 'object' || data === null || batch.kind !== BATCH_KIND) {
    throw new Error(`is not a neuron-perf-gate batch (no "kind": "${BATCH_KIND}")`);
  }
  if (batch.schemaVersion !== BATCH_SCHEMA_VERSION) {
    throw new Error(
      `has batch schemaVersion ${JSON.stringify(batch.schemaVersion)}; this neuron-perf-gate reads ${BATCH_SCHEMA_VERSION}. Update the action.`,
    );
  }
  const records = (data as { records?: unknown }).records;
  if (typeof batch.gateKey !== 'string' || !Array.isArray(records) || !records.every(isEntry)) {
    throw new Error('is a batch without a gateKey or a list of {path, text} records');
  }
  return { gateKey: batch.gateKey, entries: records };
}

function isEntry(value: unknown): value is BatchEntry {
  const entry = value as BatchEntry;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof entry.path === 'string' &&
    typeof entry.text === 'string'
  );
}

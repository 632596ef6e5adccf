// A record as a row of perf_gate_records and back. The row is read back as untrusted
// input, as a file on the data branch is: parsed, validated, and checked against the
// gate and benchmark its path names.

import { createHash } from 'node:crypto';
import type { BaselineRecord } from '../record.js';
import { benchmarkFolder, pathOfRecord } from '../record-paths.js';
import { migrateRecord, parseRecord, serializeRecord } from '../record-text.js';

export interface RecordRow {
  path: string;
  gateKey: string;
  benchmark: string;
  createdAt: string;
  commit: string;
  runId: string;
  sha256: string;
  body: string;
  /** JSON of the record without per-request samples. */
  summary: string;
}

/** The row a record is stored as; throws, before anything is written, when it would not read back. */
export function rowOfRecord(record: BaselineRecord): RecordRow {
  const body = serializeRecord(record);
  migrateRecord(JSON.parse(body));
  return {
    path: pathOfRecord(record),
    gateKey: record.gateKey,
    benchmark: record.benchmark,
    createdAt: record.createdAt,
    commit: record.commit,
    runId: record.runId,
    sha256: createHash('sha256').update(body).digest('hex'),
    body,
    summary: JSON.stringify(parseRecord(body, { samples: false })),
  };
}

/** A row as read: its body (text) or its summary (jsonb, parsed by the driver). */
export interface StoredRow {
  path: string;
  gate_key: string;
  benchmark: string;
  body?: string;
  summary?: unknown;
}

/**
 * The record a row holds, or undefined with a warning naming the row's path when it does
 * not parse or holds another gate or benchmark than its columns and path say.
 */
export function recordOfRow(row: StoredRow, warnings: string[]): BaselineRecord | undefined {
  const where = `perf_gate_records:${row.path}`;
  let record: BaselineRecord;
  try {
    record =
      row.body !== undefined ? parseRecord(row.body) : migrateRecord(row.summary ?? undefined);
  } catch (error) {
    warnings.push(`${where}: ${(error as Error).message}; skipped`);
    return undefined;
  }
  const folder = row.path.slice(0, row.path.lastIndexOf('/'));
  if (
    record.gateKey !== row.gate_key ||
    record.benchmark !== row.benchmark ||
    benchmarkFolder(record.gateKey, record.benchmark) !== folder
  ) {
    warnings.push(
      `${where}: holds gate '${record.gateKey}', benchmark '${record.benchmark}', not the gate '${row.gate_key}' and benchmark '${row.benchmark}' its row and path say; skipped`,
    );
    return undefined;
  }
  return record;
}

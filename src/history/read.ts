// The history of a record store: every stored record of a gate (or of all gates), read
// through any RecordBackend (the data branch, S3, PostgreSQL), turned into series.

import type { ReadStoredRecordsResult } from '../baseline/record-backend.js';
import { buildSeries, type BuildSeriesOptions, type SeriesSet } from './series.js';

/** What reads every stored record with its path (every RecordBackend does). */
export interface StoredRecordSource {
  readStoredRecords(gateKey?: string): Promise<ReadStoredRecordsResult>;
}

export interface History extends SeriesSet {
  /** Files that could not be read, one line each. */
  warnings: string[];
  /** The data branch commit read; undefined when the branch does not exist yet. */
  commit?: string;
  /** Records read. */
  records: number;
}

/** Reads the records of `gateKey` (every gate when undefined) and builds their series. */
export async function readHistory(
  source: StoredRecordSource,
  gateKey: string | undefined,
  options: BuildSeriesOptions = {},
): Promise<History> {
  const read = await source.readStoredRecords(gateKey);
  return {
    ...buildSeries(read.records, options),
    warnings: read.warnings,
    records: read.records.length,
    ...(read.commit ? { commit: read.commit } : {}),
  };
}

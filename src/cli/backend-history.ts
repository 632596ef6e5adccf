// `baseline list | show | accept` and `dashboard` over any RecordBackend (--store): the
// listing from readStoredRecords (paths, no samples), a shown or accepted record whole,
// samples and all (stored-with-samples.ts), a new record appended without pruning.

import {
  RecordNotFoundError,
  type ListRecordsFilter,
  type ListRecordsResult,
} from '../baseline/folder-store.js';
import type { RecordBackend, StoredRecord } from '../baseline/record-backend.js';
import { pathOfRecord } from '../baseline/record-paths.js';
import { readStoredWithSamples } from '../baseline/stored-with-samples.js';
import type { BaselineRecord } from '../baseline/record.js';

/** What `baseline list | show | accept` and the dashboard command read records through. */
export interface BaselineHistory {
  /** For messages: "the folder /x" or "branch perf-gate-data of /y/origin.git". */
  readonly description: string;
  /** Undefined when there is no data yet (the data branch does not exist). */
  listRecords(filter: ListRecordsFilter): Promise<ListRecordsResult | undefined>;
  /** Throws RecordNotFoundError when nothing is stored at `path`. */
  readRecord(path: string): Promise<BaselineRecord>;
  /** Stores a new record; returns its path. */
  appendRecord(record: BaselineRecord): Promise<string>;
  /** Removes the temporary folders. */
  close(): Promise<void>;
}

export function backendHistory(backend: RecordBackend): BaselineHistory {
  return {
    description: backend.description,
    async listRecords(filter) {
      // One series read by index where the store has one (a fleet's year: ms, not minutes).
      const read =
        filter.gateKey !== undefined && filter.benchmark !== undefined
          ? await backend.readStoredRecords(filter.gateKey, filter.benchmark)
          : await backend.readStoredRecords(filter.gateKey);
      return { records: listed(read.records, filter), warnings: read.warnings };
    },
    async readRecord(path) {
      const found = await findStored(backend, path);
      if (!found) throw new RecordNotFoundError(path, backend.description);
      const { gateKey, benchmark } = found.record;
      const whole = await readStoredWithSamples(backend, gateKey, benchmark);
      const record = whole.records.find((r) => r.path === path)?.record;
      if (!record) throw new RecordNotFoundError(path, backend.description);
      return record;
    },
    async appendRecord(record) {
      // A hand-made acceptance never prunes history; the gate's own writes keep it in bounds.
      const written = await backend.appendRecords([record], { keep: Number.MAX_SAFE_INTEGER });
      return written.added[0] ?? pathOfRecord(record);
    },
    close: async () => {
      await backend.close?.();
    },
  };
}

/**
 * The record stored at `path`: looked for in the gate its first folder names (a gate key
 * is its own folder name unless slugifying changed it), then in every gate.
 */
async function findStored(backend: RecordBackend, path: string): Promise<StoredRecord | undefined> {
  const at = (records: readonly StoredRecord[]) => records.find((r) => r.path === path);
  const gateFolder = path.split('/')[0] ?? '';
  return (
    at((await backend.readStoredRecords(gateFolder)).records) ??
    at((await backend.readStoredRecords()).records)
  );
}

/** As the folder store lists: by gate and benchmark, newest first, `limit` of each. */
function listed(records: readonly StoredRecord[], filter: ListRecordsFilter): StoredRecord[] {
  const wanted = records.filter(
    (r) => filter.benchmark === undefined || r.record.benchmark === filter.benchmark,
  );
  const sorted = [...wanted].sort(
    (a, b) =>
      a.record.gateKey.localeCompare(b.record.gateKey) ||
      a.record.benchmark.localeCompare(b.record.benchmark) ||
      b.record.createdAt.localeCompare(a.record.createdAt) ||
      b.path.localeCompare(a.path),
  );
  const limit = filter.limit ?? Number.POSITIVE_INFINITY;
  const taken = new Map<string, number>();
  return sorted.filter((r) => {
    const group = `${r.record.gateKey}\n${r.record.benchmark}`;
    const count = (taken.get(group) ?? 0) + 1;
    taken.set(group, count);
    return count <= limit;
  });
}

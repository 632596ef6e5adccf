// A plain folder of record files as a RecordBackend: where `baseline migrate` can copy a
// history to look at it or keep it, and what a test can compare stores against. One
// process at a time: unlike the real stores, it does not guard against racing writers.

import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FolderRecordStore } from './folder-store.js';
import type {
  AppendOptions,
  AppendResult,
  ReadRecordsResult,
  ReadStoredRecordsResult,
  RecordBackend,
} from './record-backend.js';
import { withoutSamplesOrAnswers, type BaselineRecord } from './record.js';

export class FolderBackend implements RecordBackend {
  private readonly store: FolderRecordStore;

  constructor(root: string) {
    this.store = new FolderRecordStore(root);
  }

  get description(): string {
    return `the folder ${this.store.root}`;
  }

  async readRecords(
    gateKey: string,
    benchmark?: string,
    options: { limit?: number } = {},
  ): Promise<ReadRecordsResult> {
    const listed = await this.store.listRecords({
      gateKey,
      ...(benchmark !== undefined ? { benchmark } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
    });
    const records = listed.records.map((stored) => stored.record);
    records.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { records, warnings: listed.warnings };
  }

  async readStoredRecords(gateKey?: string, benchmark?: string): Promise<ReadStoredRecordsResult> {
    const listed = await this.store.listRecords(
      gateKey === undefined ? {} : { gateKey, ...(benchmark !== undefined ? { benchmark } : {}) },
    );
    const records = listed.records.map(({ path, record }) => ({
      path,
      record: withoutSamplesOrAnswers(record),
    }));
    records.sort(
      (a, b) =>
        a.record.createdAt.localeCompare(b.record.createdAt) || a.path.localeCompare(b.path),
    );
    return { records, warnings: listed.warnings };
  }

  async appendRecords(
    records: BaselineRecord[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const keep = options.keep ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(keep) || keep < 1) {
      throw new RangeError(`appendRecords: keep must be a whole number ≥ 1, got ${keep}`);
    }
    const before = new Set((await this.store.listRecords()).records.map((r) => r.path));
    const added: string[] = [];
    for (const record of records) {
      const path = await this.store.writeRecord(record);
      if (!before.has(path) && !added.includes(path)) added.push(path);
    }
    const folders = new Set(added.map((path) => path.slice(0, path.lastIndexOf('/'))));
    const pruned: string[] = [];
    for (const folder of folders) pruned.push(...(await this.prune(folder, keep)));
    return { added: added.filter((path) => !pruned.includes(path)), pruned, attempts: 1 };
  }

  /** Removes all but the newest `keep` files of one benchmark folder (names sort by time). */
  private async prune(folder: string, keep: number): Promise<string[]> {
    const names = (await readdir(join(this.store.root, folder)))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .reverse();
    const old = names.slice(keep).map((name) => `${folder}/${name}`);
    for (const path of old) await rm(join(this.store.root, path));
    return old;
  }
}

// The one place a record store is opened from a description of it: the action's
// baseline-store inputs, the CLI's --store URL and `baseline migrate`'s --from/--to all
// end here, so a new store is wired in one switch.

import type { RecordBackend } from './record-backend.js';
import { FolderBackend } from './folder-backend.js';
import { GitBranchStore, type GitBranchStoreOptions } from './git/git-branch-store.js';
import { PostgresRecordStore } from './postgres/postgres-record-store.js';
import { S3RecordStore } from './s3/s3-record-store.js';

/** Where an S3 store keeps its objects in the bucket unless told otherwise. */
export const DEFAULT_S3_PREFIX = 'perf-gate';

export type StoreSpec =
  | ({ kind: 'git-branch' } & GitBranchStoreOptions)
  | { kind: 'folder'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      prefix?: string;
      /** Unset: AWS_REGION, or wherever the SDK finds one. */
      region?: string;
      /** An S3-compatible service (and the tests' loopback server). */
      endpoint?: string;
      forcePathStyle?: boolean;
      /** One request's idle limit (default 30 s). */
      requestTimeoutMs?: number;
      /** How long a call retries transient failures (default 120 s). */
      deadlineMs?: number;
    }
  | {
      kind: 'postgres';
      connectionString: string;
      /** How long a call retries dropped connections (default 120 s). */
      deadlineMs?: number;
    };

export type StoreKind = StoreSpec['kind'];

/** Opens the store; close?.() it when done. */
export async function openRecordBackend(spec: StoreSpec): Promise<RecordBackend> {
  switch (spec.kind) {
    case 'git-branch':
      return new GitBranchStore(spec);
    case 'folder':
      return new FolderBackend(spec.dir);
    case 's3':
      return new S3RecordStore(spec);
    case 'postgres':
      return new PostgresRecordStore(spec);
  }
}

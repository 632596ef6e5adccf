// Baseline records in an S3 bucket, for a fleet of runners writing at once. Each write is
// one immutable object per gate under a content-hashed key, created with If-None-Match:
// writers never touch each other's objects, and a retried write meets its own object. The
// layout is in s3-keys.ts; docs/stores.md says what a bucket needs.

import { S3Client } from '@aws-sdk/client-s3';
import type {
  AppendOptions,
  AppendResult,
  ReadRecordsResult,
  ReadStoredRecordsResult,
  RecordBackend,
} from '../record-backend.js';
import type { BaselineRecord } from '../record.js';
import { DEFAULT_NETWORK_TIMEOUT_MS } from '../../net/deadline.js';
import { encodeBatches, type EncodedBatch } from './batch.js';
import { compactGate, type CompactOptions, type CompactResult } from './compaction.js';
import { readHistory } from './read-history.js';
import { readNewest } from './read-newest.js';
import { S3Calls, S3GiveUpError } from './s3-calls.js';
import { StoreKeys, normalizePrefix } from './s3-keys.js';

/** How long transient failures are retried, as on the data branch (DEFAULT_PUSH_DEADLINE_MS). */
export const DEFAULT_S3_DEADLINE_MS = 120_000;

/** Create-only writes refused by an object that then was not there, before giving up. */
const MAX_VANISHED_TRIES = 3;

export interface S3RecordStoreOptions {
  bucket: string;
  /** Folder of the store in the bucket (default: the bucket's root). */
  prefix?: string;
  /** Default: the SDK's (AWS_REGION, the profile). */
  region?: string;
  /** Another S3 service than AWS's, or a test server. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** A client of the caller's (its own retry settings apply, on top of the store's). */
  client?: S3Client;
  /**
   * A request whose connection is idle this long (no first byte, a stalled body) is given
   * up and tried again (default 30 s, as for every network call of the gate).
   */
  requestTimeoutMs?: number;
  /** Transient failures are retried until this long after a call began (default 120 s). */
  deadlineMs?: number;
  /** For tests: the source of the retry jitter (Math.random) and the pause itself. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class S3RecordStore implements RecordBackend {
  readonly description: string;
  private readonly keys: StoreKeys;
  private readonly calls: S3Calls;
  private readonly client: S3Client;
  private readonly ownsClient: boolean;

  constructor(options: S3RecordStoreOptions) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(options.bucket)) {
      throw new Error(
        `'${options.bucket}' is not an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-'`,
      );
    }
    const prefix = normalizePrefix(options.prefix);
    this.description = `s3://${options.bucket}/${prefix}`;
    this.keys = new StoreKeys(prefix);
    this.ownsClient = options.client === undefined;
    // Credentials: the SDK's default chain (instance role, OIDC web identity, AWS_* variables).
    // maxAttempts 1: the store retries, so each try is counted and the deadline is ours.
    this.client =
      options.client ??
      new S3Client({
        maxAttempts: 1,
        requestHandler: {
          socketTimeout: options.requestTimeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS,
          connectionTimeout: options.requestTimeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS,
        },
        ...(options.region !== undefined ? { region: options.region } : {}),
        ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
        ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
      });
    this.calls = new S3Calls({
      client: this.client,
      bucket: options.bucket,
      deadlineMs: options.deadlineMs ?? DEFAULT_S3_DEADLINE_MS,
      ...(options.random ? { random: options.random } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  }

  async readRecords(
    gateKey: string,
    benchmark?: string,
    options: { limit?: number } = {},
  ): Promise<ReadRecordsResult> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (!(limit >= 0)) throw new RangeError(`readRecords: limit must be ≥ 0, got ${limit}`);
    return this.named(() => readNewest(this.calls, this.keys, gateKey, benchmark, limit));
  }

  /** As the interface says; with `benchmark`, only that benchmark's records of the gate. */
  readStoredRecords(gateKey?: string, benchmark?: string): Promise<ReadStoredRecordsResult> {
    return this.named(() => readHistory(this.calls, this.keys, gateKey, benchmark));
  }

  /**
   * One batch object per gate. `keep` is not applied: objects are never deleted by the
   * store (a bucket lifecycle rule can expire old ones), so `pruned` is always empty.
   */
  async appendRecords(
    records: BaselineRecord[],
    _options: AppendOptions = {},
  ): Promise<AppendResult> {
    const batches = encodeBatches(records);
    const started = performance.now();
    const result: AppendResult = { added: [], pruned: [], attempts: 0 };
    for (const [index, batch] of batches.entries()) {
      try {
        await this.writeBatch(batch, started, result);
      } catch (error) {
        throw this.appendFailure(error, records.length, batches.slice(0, index));
      }
    }
    return result;
  }

  /** Merges finished months of a gate into month objects; see compaction.ts. */
  compact(gateKey: string, options: CompactOptions = {}): Promise<CompactResult> {
    return this.named(() => compactGate(this.calls, this.keys, gateKey, options));
  }

  close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
    return Promise.resolve();
  }

  private async writeBatch(
    batch: EncodedBatch,
    started: number,
    result: AppendResult,
  ): Promise<void> {
    const key = this.keys.batch(batch.folder, batch.stamp, batch.runId, batch.hash8);
    let uncertain = false;
    for (let attempt = 1; ; attempt += 1) {
      const put = await this.calls.putConditional(key, batch.body, { ifNoneMatch: '*' }, started);
      result.attempts += put.attempts;
      uncertain ||= put.uncertain;
      if (put.value.ok) {
        result.added.push(...batch.paths);
        return;
      }
      // The key is taken: by this write's own earlier try, or by an earlier run of the same
      // records (the key holds a hash of the bytes). Anything else is not ours to overwrite.
      const stored = await this.calls.get(key);
      if (stored?.text === batch.body) {
        // An earlier try of this call that failed without an answer landed: these are ours.
        if (uncertain) result.added.push(...batch.paths);
        return;
      }
      // A 409 lost to a write that is gone again: S3 says to try the upload again.
      if (stored === undefined && attempt < MAX_VANISHED_TRIES) continue;
      throw new Error(
        `${this.calls.url(key)} already holds ${stored === undefined ? 'nothing readable' : 'other bytes'} under a key named by the hash of this write's bytes: something other than neuron-perf-gate writes under ${this.description}. Nothing was overwritten; check what else writes to the bucket and prefix.`,
      );
    }
  }

  private appendFailure(error: unknown, count: number, stored: EncodedBatch[]): Error {
    const message = (error as Error).message;
    const kept =
      stored.length === 0
        ? 'Nothing of this write was stored (an S3 write is whole or absent)'
        : `The records of gate(s) ${stored.map((b) => `'${b.gateKey}'`).join(', ')} were stored; the rest were not`;
    const advice = error instanceof S3GiveUpError ? '; re-run the job to store them' : '';
    return new Error(
      `could not store ${count} record(s) in ${this.description}: ${message}. ${kept}${advice}.`,
      { cause: error },
    );
  }

  /** Runs a read, naming the store in whatever it throws. */
  private async named<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      const message = (error as Error).message;
      if (message.includes('s3://')) throw error;
      throw new Error(`${this.description}: ${message}`, { cause: error });
    }
  }
}

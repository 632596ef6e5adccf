// The S3 requests the store makes, each retried on a transient failure (500, 503
// SlowDown, a dropped connection) with jittered backoff until the store's deadline. The
// client we build has the SDK's own retries off (maxAttempts 1), so every try is counted
// here and the deadline is ours; a client passed in keeps its own retry setting.

import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { pauseBeforeRetry, type RetryPacing } from '../git/push-retry.js';
import {
  adviceFor,
  describeError,
  isNotFound,
  isPreconditionFailure,
  isTransient,
} from './s3-errors.js';

export interface S3CallsOptions extends RetryPacing {
  client: S3Client;
  bucket: string;
  deadlineMs: number;
}

/** A call's outcome and how many tries it took. */
export interface Tried<T> {
  value: T;
  attempts: number;
  /** A try failed with no telling whether it was carried out (a write may have landed). */
  uncertain: boolean;
}

export class S3GiveUpError extends Error {
  override readonly name = 'S3GiveUpError';
}

export type ConditionalPut = { ok: true; etag: string } | { ok: false };

export class S3Calls {
  constructor(private readonly options: S3CallsOptions) {}

  /** `s3://bucket/key`, for messages. */
  url(key: string): string {
    return `s3://${this.options.bucket}/${key}`;
  }

  /**
   * PutObject that only creates (`IfNoneMatch: '*'`) or only replaces the version read
   * (`ifMatch`); ok false when the precondition did not hold (412, or 409 when another
   * write landed during ours).
   */
  async putConditional(
    key: string,
    body: string,
    condition: { ifMatch: string } | { ifNoneMatch: '*' },
    started = performance.now(),
  ): Promise<Tried<ConditionalPut>> {
    return this.retried(`write ${this.url(key)}`, started, async () => {
      try {
        const put = await this.options.client.send(
          new PutObjectCommand({
            Bucket: this.options.bucket,
            Key: key,
            Body: body,
            ContentType: 'application/json',
            ...('ifMatch' in condition ? { IfMatch: condition.ifMatch } : { IfNoneMatch: '*' }),
          }),
        );
        return { ok: true, etag: put.ETag ?? '' };
      } catch (error) {
        if (isPreconditionFailure(error)) return { ok: false };
        throw error;
      }
    });
  }

  /** The object's text and ETag, or undefined when there is none; read whole or retried. */
  async get(key: string): Promise<{ text: string; etag: string } | undefined> {
    const tried = await this.retried(`read ${this.url(key)}`, performance.now(), async () => {
      try {
        const got = await this.options.client.send(
          new GetObjectCommand({ Bucket: this.options.bucket, Key: key }),
        );
        // Inside the retry: a body cut mid-way is tried again, never half-read.
        const text = (await got.Body?.transformToString('utf8')) ?? '';
        return { text, etag: got.ETag ?? '' };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
    return tried.value;
  }

  /** Deletes the object if it still has this ETag; false when it changed or is gone. */
  async deleteIfMatch(key: string, etag: string): Promise<boolean> {
    const tried = await this.retried(`delete ${this.url(key)}`, performance.now(), async () => {
      try {
        await this.options.client.send(
          new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key, IfMatch: etag }),
        );
        return true;
      } catch (error) {
        if (isPreconditionFailure(error) || isNotFound(error)) return false;
        throw error;
      }
    });
    return tried.value;
  }

  /**
   * Keys under `prefix` in key order; with `folders`, only those directly under it and the
   * folders (common prefixes, ending in '/') beside them.
   */
  async list(
    prefix: string,
    options: { folders?: boolean } = {},
  ): Promise<{ keys: string[]; folders: string[] }> {
    const keys: string[] = [];
    const folders: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.retried(`list ${this.url(prefix)}`, performance.now(), () =>
        this.options.client.send(
          new ListObjectsV2Command({
            Bucket: this.options.bucket,
            Prefix: prefix,
            ...(options.folders ? { Delimiter: '/' } : {}),
            ...(token !== undefined ? { ContinuationToken: token } : {}),
          }),
        ),
      );
      const listing = page.value;
      folders.push(...(listing.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix] : [])));
      keys.push(...(listing.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : [])));
      token = listing.IsTruncated ? listing.NextContinuationToken : undefined;
    } while (token !== undefined);
    return { keys, folders };
  }

  /** `call` until it succeeds, fails for good, or the deadline counted from `started` passes. */
  private async retried<T>(
    what: string,
    started: number,
    call: () => Promise<T>,
  ): Promise<Tried<T>> {
    let uncertain = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return { value: await call(), attempts: attempt, uncertain };
      } catch (error) {
        const waited = performance.now() - started;
        if (!isTransient(error)) {
          throw new Error(`could not ${what} (${describeError(error)}): ${adviceFor(error)}`, {
            cause: error,
          });
        }
        uncertain = true;
        if (waited >= this.options.deadlineMs) {
          throw new S3GiveUpError(
            `could not ${what}: after ${attempt} attempt(s) in ${Math.round(waited / 1000)} s S3 still failed (${describeError(error)}); ${adviceFor(error)}`,
            { cause: error },
          );
        }
        await pauseBeforeRetry(attempt, this.options);
      }
    }
  }
}

// A bucket's objects, and the preconditions of a write checked at the moment it is applied.
//
// The rules, from the S3 user guide, "How to prevent object overwrites with conditional
// writes" (https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html)
// and the PutObject reference (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html):
// - `If-None-Match: *`: the write fails with 412 PreconditionFailed when the key exists.
// - `If-Match: <etag>`: it fails with 412 when the object's ETag differs; when there is no
//   object, S3 answers 404 NoSuchKey (our reading of the user guide's "Conditional write
//   behavior"; `ifMatchOnMissingKey` switches this server to 412 to test a store both ways).
// - A conditional write during which another write to the same key completed fails with
//   409 ConditionalRequestConflict ("If a conflicting operation occurs during the upload S3
//   returns a 409"). Each key keeps a generation, bumped by every put and delete; a
//   conditional write compares the generation it saw when it arrived with the one at commit.
// - Conditional deletes (`If-Match` on DeleteObject, user guide "How to perform conditional
//   deletes"): 412 when the ETag differs, 404 NoSuchKey when there is no object.
import { compareKeys } from './listing.js';
import type { S3Failure } from './xml.js';

export interface StoredObject {
  body: Buffer;
  /** Quoted MD5 hex of the body, as S3 gives for a single-part upload. */
  etag: string;
  lastModified: Date;
  contentType: string;
  /** `x-amz-meta-*` headers, names lower-cased without the prefix. */
  metadata: Record<string, string>;
  checksumCrc32?: string;
}

export interface WriteConditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

export type MissingKeyAnswer = 'NoSuchKey' | 'PreconditionFailed';

const preconditionFailed = (key: string, condition: string): S3Failure => ({
  status: 412,
  code: 'PreconditionFailed',
  message: `At least one of the pre-conditions you specified did not hold (${condition}).`,
  key,
});

export const noSuchKey = (key: string): S3Failure => ({
  status: 404,
  code: 'NoSuchKey',
  message: 'The specified key does not exist.',
  key,
});

/** Whether an If-Match / If-None-Match value (`*`, or a list of ETags) names this ETag. */
export function etagListMatches(headerValue: string, etag: string): boolean {
  const bare = (tag: string) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
  return headerValue.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

export function checkWriteConditions(
  key: string,
  current: StoredObject | undefined,
  conditions: WriteConditions,
  onMissing: MissingKeyAnswer,
): S3Failure | undefined {
  const { ifMatch, ifNoneMatch } = conditions;
  if (ifNoneMatch !== undefined && (ifNoneMatch.trim() !== '*' || ifMatch !== undefined)) {
    // What this server answers; S3's exact answer to these headers is not checked here.
    return {
      status: 501,
      code: 'NotImplemented',
      message: 'If-None-Match takes only *, and not together with If-Match.',
      key,
    };
  }
  if (ifNoneMatch !== undefined && current !== undefined) {
    return preconditionFailed(key, 'If-None-Match');
  }
  if (ifMatch !== undefined && current === undefined) {
    return onMissing === 'NoSuchKey' ? noSuchKey(key) : preconditionFailed(key, 'If-Match');
  }
  if (ifMatch !== undefined && current !== undefined && !etagListMatches(ifMatch, current.etag)) {
    return preconditionFailed(key, 'If-Match');
  }
  return undefined;
}

export class BucketState {
  readonly objects = new Map<string, StoredObject>();
  private readonly generations = new Map<string, number>();
  private sorted: string[] | undefined;

  constructor(readonly name: string) {}

  generation(key: string): number {
    return this.generations.get(key) ?? 0;
  }

  /** The keys in S3's listing order (kept until a key is added or removed). */
  sortedKeys(): readonly string[] {
    this.sorted ??= [...this.objects.keys()].sort(compareKeys);
    return this.sorted;
  }

  /**
   * Applies a put whose body has fully arrived. `seenGeneration` is the key's generation
   * when the request arrived: a conditional put that another write overtook gets 409.
   */
  put(
    key: string,
    object: StoredObject,
    conditions: WriteConditions,
    seenGeneration: number,
    onMissing: MissingKeyAnswer,
  ): S3Failure | undefined {
    const conditional = conditions.ifMatch !== undefined || conditions.ifNoneMatch !== undefined;
    if (conditional && this.generation(key) !== seenGeneration) {
      return {
        status: 409,
        code: 'ConditionalRequestConflict',
        message:
          'Another write to this key completed while this conditional write was in progress.',
        key,
      };
    }
    const failure = checkWriteConditions(key, this.objects.get(key), conditions, onMissing);
    if (failure) return failure;
    if (!this.objects.has(key)) this.sorted = undefined;
    this.objects.set(key, object);
    this.generations.set(key, this.generation(key) + 1);
    return undefined;
  }

  delete(key: string, ifMatch: string | undefined): S3Failure | undefined {
    const current = this.objects.get(key);
    if (ifMatch !== undefined) {
      if (current === undefined) return noSuchKey(key);
      if (!etagListMatches(ifMatch, current.etag)) return preconditionFailed(key, 'If-Match');
    }
    if (current === undefined) return undefined;
    this.objects.delete(key);
    this.sorted = undefined;
    this.generations.set(key, this.generation(key) + 1);
    return undefined;
  }
}

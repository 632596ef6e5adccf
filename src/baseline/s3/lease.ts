// The compaction lease, `<gate>/lease.json`: one compactor of a gate at a time. Taken by
// creating it (If-None-Match: *) or by replacing an expired one (If-Match on its ETag);
// released by deleting it (If-Match on ours). It saves work, it does not guard data: the
// manifest's If-Match is what keeps two compactions from losing each other's months.

import { randomBytes } from 'node:crypto';
import type { S3Calls } from './s3-calls.js';

export interface LeaseBody {
  owner: string;
  /** ISO time after which another compactor may take the lease. */
  expiresAt: string;
}

export type LeaseAttempt = { held: true; etag: string } | { held: false; by: string };

export function newOwner(): string {
  return `compactor-${randomBytes(6).toString('hex')}`;
}

export async function takeLease(
  calls: S3Calls,
  key: string,
  owner: string,
  now: Date,
  leaseMs: number,
): Promise<LeaseAttempt> {
  const body = JSON.stringify({
    owner,
    expiresAt: new Date(now.getTime() + leaseMs).toISOString(),
  } satisfies LeaseBody);
  const current = await calls.get(key);
  if (current !== undefined) {
    const holder = parseLease(current.text);
    if (holder !== undefined && Date.parse(holder.expiresAt) > now.getTime()) {
      return { held: false, by: `${holder.owner} until ${holder.expiresAt}` };
    }
  }
  const condition =
    current === undefined ? { ifNoneMatch: '*' as const } : { ifMatch: current.etag };
  const put = await calls.putConditional(key, body, condition);
  if (put.value.ok) return { held: true, etag: put.value.etag };
  const after = await calls.get(key);
  const winner = parseLease(after?.text ?? '');
  // Our own earlier try landed and its answer was lost: the lease is ours.
  if (after !== undefined && winner?.owner === owner) return { held: true, etag: after.etag };
  return {
    held: false,
    by: winner ? `${winner.owner} until ${winner.expiresAt}` : 'another compactor',
  };
}

export async function releaseLease(calls: S3Calls, key: string, etag: string): Promise<void> {
  try {
    // False when the lease expired and was taken over: then it is not ours to delete.
    await calls.deleteIfMatch(key, etag);
  } catch {
    // Not released (no s3:DeleteObject, S3 unreachable): it expires on its own, and an
    // error here would hide the compaction's own outcome.
  }
}

/** The lease's holder; undefined for a body that is not a lease (taken over as expired). */
function parseLease(text: string): LeaseBody | undefined {
  try {
    const data = JSON.parse(text) as Partial<LeaseBody>;
    if (typeof data.owner === 'string' && typeof data.expiresAt === 'string') {
      return { owner: data.owner, expiresAt: data.expiresAt };
    }
  } catch {
    // Not JSON: treated as expired.
  }
  return undefined;
}

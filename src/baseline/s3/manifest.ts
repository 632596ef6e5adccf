// A gate's manifest, `<gate>/manifest.json`: which months a compaction merged, into which
// month objects, and which batch objects those cover. The one object compactions share:
// replaced only with If-Match on the ETag read (retried on 412), so the manifest is the
// commit point of a compaction. A reader trusts it as far as it parses: a manifest it
// cannot read means reading every batch, slower but complete.

import type { S3Calls } from './s3-calls.js';
import type { StoreKeys } from './s3-keys.js';

export const MANIFEST_KIND = 'neuron-perf-gate-manifest';

export interface CompactedMonth {
  /** YYYY-MM. */
  month: string;
  /** The month objects, keys relative to the gate folder (`months/…`). */
  objects: string[];
  /** The batch objects they hold, keys relative to the gate folder (`runs/…`). */
  batches: string[];
}

export interface Manifest {
  kind: typeof MANIFEST_KIND;
  schemaVersion: 1;
  months: CompactedMonth[];
}

export interface ReadManifest {
  manifest: Manifest;
  /** undefined: no manifest yet (create it with If-None-Match). */
  etag?: string;
}

export function emptyManifest(): Manifest {
  return { kind: MANIFEST_KIND, schemaVersion: 1, months: [] };
}

/** The gate's manifest with its ETag; an empty one when there is none or it is unreadable. */
export async function readManifest(
  calls: S3Calls,
  keys: StoreKeys,
  folder: string,
  warnings: string[],
): Promise<ReadManifest> {
  const key = keys.manifest(folder);
  const got = await calls.get(key);
  if (got === undefined) return { manifest: emptyManifest() };
  try {
    return { manifest: parseManifest(got.text), etag: got.etag };
  } catch (error) {
    warnings.push(
      `${calls.url(key)}: ${(error as Error).message}; every batch object of the gate is read instead`,
    );
    return { manifest: emptyManifest(), etag: got.etag };
  }
}

function parseManifest(text: string): Manifest {
  const data = JSON.parse(text) as Partial<Manifest> | null;
  if (data?.kind !== MANIFEST_KIND || data.schemaVersion !== 1 || !Array.isArray(data.months)) {
    throw new Error(`is not a neuron-perf-gate manifest (kind ${MANIFEST_KIND}, schemaVersion 1)`);
  }
  for (const month of data.months) {
    const ok =
      /^\d{4}-\d{2}$/.test(month.month) &&
      isKeyList(month.objects, 'months/') &&
      isKeyList(month.batches, 'runs/');
    if (!ok) throw new Error(`has a month entry that is not {month, objects, batches}`);
  }
  return data as Manifest;
}

function isKeyList(value: unknown, folder: string): value is string[] {
  return (
    Array.isArray(value) &&
    value.every((key) => typeof key === 'string' && key.startsWith(folder) && !key.includes('..'))
  );
}

/** The batch keys (full) that compacted months cover. */
export function coveredBatches(manifest: Manifest, gatePrefix: string): Set<string> {
  return new Set(manifest.months.flatMap((m) => m.batches.map((key) => gatePrefix + key)));
}

/** The month object keys (full) the manifest names. */
export function monthObjects(manifest: Manifest, gatePrefix: string): string[] {
  return manifest.months.flatMap((m) => m.objects.map((key) => gatePrefix + key));
}

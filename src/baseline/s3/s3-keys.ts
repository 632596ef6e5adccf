// Where the S3 store keeps what, under its prefix:
//
//   <gate>/runs/<YYYYMMDD>/<stamp>-<run id>-<hash8>.json   one write's records of one gate
//   <gate>/months/<YYYY-MM>/<benchmark-slug>.json          a compacted month (no samples)
//   <gate>/manifest.json                                   which months are compacted
//   <gate>/lease.json                                      who compacts, until when
//
// <gate> is gateFolder(gate key) and <stamp> YYYYMMDDTHHMMSSZ, as in a data branch path,
// so keys of one day sort by time and a listing of a gate's days sorts by date.

import { slugify } from '../../runner/slug.js';
import { utcIso } from '../record-paths.js';

/** `prefix/` with one trailing slash, or '' for the bucket's root. */
export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** `YYYYMMDDTHHMMSSZ` of a time. */
export function stampOf(createdAt: string | Date): string {
  return utcIso(createdAt)
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

export class StoreKeys {
  constructor(readonly prefix: string) {}

  /** `prefix/<gate>/`. */
  gate(folder: string): string {
    return `${this.prefix}${folder}/`;
  }

  runs(folder: string): string {
    return `${this.gate(folder)}runs/`;
  }

  batch(folder: string, stamp: string, runId: string, hash8: string): string {
    return `${this.runs(folder)}${stamp.slice(0, 8)}/${stamp}-${slugify(runId)}-${hash8}.json`;
  }

  month(folder: string, month: string, benchmarkSlug: string): string {
    return `${this.gate(folder)}months/${month}/${benchmarkSlug}.json`;
  }

  manifest(folder: string): string {
    return `${this.gate(folder)}manifest.json`;
  }

  lease(folder: string): string {
    return `${this.gate(folder)}lease.json`;
  }
}

/** `<stamp>-<run>-<hash8>.json` directly in a day folder: what a batch key ends with. */
const BATCH_NAME = /^(\d{8})\/(\d{8}T\d{6}Z)-[^/]+-[0-9a-f]{8}\.json$/;

/** The stamp of a batch key under `runsPrefix`, or undefined when it is not one. */
export function batchStamp(key: string, runsPrefix: string): string | undefined {
  if (!key.startsWith(runsPrefix)) return undefined;
  const match = BATCH_NAME.exec(key.slice(runsPrefix.length));
  if (!match || !match[2]!.startsWith(match[1]!)) return undefined;
  return match[2];
}

/** `YYYY-MM` of a stamp or a day folder (`YYYYMMDD…`). */
export function monthOf(stamp: string): string {
  return `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}`;
}

// Where a record is stored: `<gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json`.

import { slugify } from '../runner/slug.js';
import type { BaselineRecord } from './record.js';

/** `<gate-key>`: the top folder of a gate's records. */
export function gateFolder(gateKey: string): string {
  return slugify(gateKey);
}

/** `<gate-key>/<benchmark-slug>`: the folder of one benchmark's records. */
export function benchmarkFolder(gateKey: string, benchmark: string): string {
  return `${gateFolder(gateKey)}/${slugify(benchmark)}`;
}

/**
 * `<gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json`. Names sort by
 * time within a folder, so the newest records are the last names.
 */
export function recordPath(
  gateKey: string,
  benchmark: string,
  createdAt: Date | string,
  sha: string,
  runId: string | number,
): string {
  const stamp = utcIso(createdAt)
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  const sha7 = /^[0-9a-f]{7,}$/i.test(sha) ? sha.slice(0, 7).toLowerCase() : 'nocommit';
  return `${benchmarkFolder(gateKey, benchmark)}/${stamp}-${sha7}-${slugify(String(runId))}.json`;
}

/** The path a record is stored at. */
export function pathOfRecord(record: BaselineRecord): string {
  return recordPath(
    record.gateKey,
    record.benchmark,
    record.createdAt,
    record.commit,
    record.runId,
  );
}

export function utcIso(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: ${String(value)}`);
  return date.toISOString();
}

// Which stored records count as accepted: an acceptance record is accepted itself, and
// accepts the earlier records its `acceptance.records` names.
//
// A local stand-in for `acceptedPaths` of src/baseline/select.ts (written separately);
// this one also says which record accepted which, for `baseline list` and `show`.

import type { StoredRecord } from '../baseline/folder-store.js';

/** For each accepted record path: the paths of the acceptance records that name it. */
export function acceptingRecords(records: StoredRecord[]): Map<string, string[]> {
  const accepting = new Map<string, string[]>();
  for (const { path, record } of records) {
    for (const named of record.acceptance?.records ?? []) {
      const key = normalizePath(named);
      if (key === path) continue;
      const list = accepting.get(key) ?? [];
      if (!list.includes(path)) list.push(path);
      accepting.set(key, list);
    }
  }
  return accepting;
}

/**
 * The accepted column of `baseline list`: the record's own acceptance reason (manual,
 * accept-after, accept-current), `accepted` when a later record accepts it, or `-`.
 */
export function acceptedMark(stored: StoredRecord, acceptedBy: readonly string[] = []): string {
  const marks: string[] = [];
  if (stored.record.acceptance) marks.push(stored.record.acceptance.reason);
  if (acceptedBy.length > 0) marks.push('accepted');
  return marks.length > 0 ? marks.join(', ') : '-';
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}

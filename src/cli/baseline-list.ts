// The output of `baseline list`: one line per record, grouped by gate and benchmark,
// newest first, as text for people or JSON for scripts.

import type { StoredRecord } from '../baseline/folder-store.js';
import type { Acceptance } from '../baseline/record.js';
import { acceptedMark } from './baseline-accepted.js';
import { alignColumns } from './baseline-table.js';

export interface ListedRecord {
  path: string;
  gateKey: string;
  benchmark: string;
  createdAt: string;
  branch: string;
  event: string;
  commit: string;
  runId: string;
  verdict: string;
  acceptance?: Acceptance;
  /** Paths of the later records that accept this one. */
  acceptedBy: string[];
}

export interface RecordListJson {
  source: string;
  records: ListedRecord[];
  warnings: string[];
}

const HEADER = ['created', 'branch', 'event', 'commit', 'verdict', 'accepted', 'path'];

/** Records already grouped and sorted (FolderRecordStore.listRecords) as aligned text. */
export function renderRecordList(
  records: readonly StoredRecord[],
  accepting: ReadonlyMap<string, string[]>,
): string {
  const rows = records.map((stored) => [
    shortTime(stored.record.createdAt),
    stored.record.branch || '-',
    stored.record.event,
    stored.record.commit.slice(0, 7) || '-',
    stored.record.verdict,
    acceptedMark(stored, accepting.get(stored.path)),
    stored.path,
  ]);
  // Aligned over all groups at once, so the columns of every group line up.
  const [header, ...lines] = alignColumns([HEADER, ...rows]);
  const out: string[] = [];
  let group: string | undefined;
  records.forEach((stored, index) => {
    const name = `${stored.record.gateKey} / ${stored.record.benchmark}`;
    if (name !== group) {
      if (group !== undefined) out.push('');
      out.push(`${name}`, `  ${header}`);
      group = name;
    }
    out.push(`  ${lines[index]}`);
  });
  return `${out.join('\n')}\n`;
}

export function recordListJson(
  source: string,
  records: readonly StoredRecord[],
  accepting: ReadonlyMap<string, string[]>,
  warnings: readonly string[],
): RecordListJson {
  return {
    source,
    records: records.map(({ path, record }) => ({
      path,
      gateKey: record.gateKey,
      benchmark: record.benchmark,
      createdAt: record.createdAt,
      branch: record.branch,
      event: record.event,
      commit: record.commit,
      runId: record.runId,
      verdict: record.verdict,
      ...(record.acceptance ? { acceptance: record.acceptance } : {}),
      acceptedBy: accepting.get(path) ?? [],
    })),
    warnings: [...warnings],
  };
}

/** `2026-01-31 12:00:00Z`: to the second, which is what the file names hold too. */
function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

// One appendRecords as one transaction: the rows added where their paths are free, a row
// whose bytes are stored already left out (a retried write), a path held by other bytes
// given the next free `-2`, `-3`… name (as on the data branch), and, with `keep`, each
// touched benchmark pruned to its newest `keep` records. Run again from the start when the
// connection drops: what an earlier try committed is found stored, and not added twice.

import type { RecordRow } from './record-rows.js';
import type { Session } from './session.js';

const COLUMNS = 'path, gate_key, benchmark, created_at, commit_sha, run_id, sha256, body, summary';

/** A name for a record beyond this many taken ones is a bug, not a crowd. */
const MAX_NUMBERED_PATHS = 1_000;

export interface Appended {
  added: string[];
  pruned: string[];
}

/** Inside a transaction the caller opened: adds `rows` (in path order) and prunes. */
export async function appendRows(
  session: Session,
  rows: readonly RecordRow[],
  keep: number | undefined,
): Promise<Appended> {
  // One order for every writer: two transactions inserting the same paths wait for one
  // another instead of deadlocking.
  const sorted = [...rows].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // By bytes, not path: two rows of one batch may share a path.
  const inserted = new Set(await insertAll(session, sorted));
  const added = sorted.filter((row) => inserted.has(row.sha256)).map((row) => row.path);
  for (const row of sorted.filter((r) => !inserted.has(r.sha256))) {
    const path = await placeElsewhere(session, row);
    if (path !== undefined) added.push(path);
  }
  const pruned = keep === undefined ? [] : await prune(session, sorted, keep);
  const prunedSet = new Set(pruned);
  const addedSet = new Set(added);
  return {
    added: added.filter((path) => !prunedSet.has(path)),
    pruned: pruned.filter((path) => !addedSet.has(path)),
  };
}

/** Every row whose path and bytes are both new, in one statement; the sha256s inserted. */
async function insertAll(session: Session, rows: readonly RecordRow[]): Promise<string[]> {
  const column = (pick: (row: RecordRow) => string) => rows.map(pick);
  const result = await session.query<{ sha256: string }>(
    `INSERT INTO perf_gate_records (${COLUMNS})
     SELECT path, gate_key, benchmark, created_at, commit_sha, run_id, sha256, body, summary::jsonb
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[],
                   $7::text[], $8::text[], $9::text[])
         AS r(path, gate_key, benchmark, created_at, commit_sha, run_id, sha256, body, summary)
      ORDER BY path
     ON CONFLICT DO NOTHING
     RETURNING sha256`,
    [
      column((r) => r.path),
      column((r) => r.gateKey),
      column((r) => r.benchmark),
      column((r) => r.createdAt),
      column((r) => r.commit),
      column((r) => r.runId),
      column((r) => r.sha256),
      column((r) => r.body),
      column((r) => r.summary),
    ],
  );
  return result.rows.map((row) => row.sha256);
}

/**
 * A row the batch did not insert: stored already (undefined), or under the first free
 * numbered path. Bytes are checked before each name is tried, since a writer racing with
 * this one may store the same record meanwhile.
 */
async function placeElsewhere(session: Session, row: RecordRow): Promise<string | undefined> {
  const stem = row.path.replace(/\.json$/, '');
  for (let n = 2; n <= MAX_NUMBERED_PATHS; n += 1) {
    const stored = await session.query('SELECT 1 FROM perf_gate_records WHERE sha256 = $1', [
      row.sha256,
    ]);
    if (stored.rowCount) return undefined;
    const path = `${stem}-${n}.json`;
    const inserted = await session.query(
      `INSERT INTO perf_gate_records (${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
       ON CONFLICT DO NOTHING`,
      [
        path,
        row.gateKey,
        row.benchmark,
        row.createdAt,
        row.commit,
        row.runId,
        row.sha256,
        row.body,
        row.summary,
      ],
    );
    if (inserted.rowCount) return path;
  }
  throw new Error(`found no free name for ${row.path} among ${MAX_NUMBERED_PATHS} numbered ones`);
}

/**
 * Each touched benchmark down to its newest `keep` records (createdAt, then path, newest
 * first, the order every read uses); only what lies past `keep` is visited, by the index.
 */
async function prune(
  session: Session,
  rows: readonly RecordRow[],
  keep: number,
): Promise<string[]> {
  const result = await session.query<{ path: string }>(
    `WITH series AS (
       SELECT DISTINCT gate_key, benchmark FROM unnest($1::text[], $2::text[]) AS s(gate_key, benchmark)
     )
     DELETE FROM perf_gate_records r
      USING series s
      CROSS JOIN LATERAL (
        SELECT o.path FROM perf_gate_records o
         WHERE o.gate_key = s.gate_key AND o.benchmark = s.benchmark
         ORDER BY o.created_at DESC, o.path DESC
        OFFSET $3
      ) old
      WHERE r.path = old.path
     RETURNING r.path`,
    [rows.map((r) => r.gateKey), rows.map((r) => r.benchmark), keep],
  );
  return result.rows.map((row) => row.path).sort();
}

// The queries behind readRecords and readStoredRecords, each served by the index on
// (gate_key, benchmark, created_at DESC, path DESC): the order the data branch reads in.

import type { StoredRow } from './record-rows.js';
import type { Session } from './session.js';

const NEWEST_FIRST = 'ORDER BY created_at DESC, path DESC';

/** A gate's records (all benchmarks, or one), newest first; with a limit, per benchmark. */
export async function selectRecords(
  session: Session,
  gateKey: string,
  benchmark: string | undefined,
  limit: number | undefined,
): Promise<StoredRow[]> {
  const limited = limit !== undefined && Number.isFinite(limit);
  if (benchmark !== undefined) {
    const rows = await session.query<StoredRow>(
      `SELECT path, gate_key, benchmark, body FROM perf_gate_records
        WHERE gate_key = $1 AND benchmark = $2 ${NEWEST_FIRST}
        ${limited ? 'LIMIT $3' : ''}`,
      limited ? [gateKey, benchmark, limit] : [gateKey, benchmark],
    );
    return rows.rows;
  }
  if (!limited) {
    const rows = await session.query<StoredRow>(
      `SELECT path, gate_key, benchmark, body FROM perf_gate_records
        WHERE gate_key = $1 ${NEWEST_FIRST}`,
      [gateKey],
    );
    return rows.rows;
  }
  // The gate's benchmarks by skipping along the index (one probe each, not a scan of every
  // record), then the newest `limit` of each.
  const rows = await session.query<StoredRow>(
    `WITH RECURSIVE benchmarks(name) AS (
       (SELECT benchmark FROM perf_gate_records WHERE gate_key = $1 ORDER BY benchmark LIMIT 1)
       UNION ALL
       SELECT (SELECT benchmark FROM perf_gate_records
                WHERE gate_key = $1 AND benchmark > b.name ORDER BY benchmark LIMIT 1)
         FROM benchmarks b WHERE b.name IS NOT NULL
     )
     SELECT r.path, r.gate_key, r.benchmark, r.body
       FROM benchmarks b
       CROSS JOIN LATERAL (
         SELECT path, gate_key, benchmark, body, created_at FROM perf_gate_records
          WHERE gate_key = $1 AND benchmark = b.name ${NEWEST_FIRST} LIMIT $2
       ) r
      WHERE b.name IS NOT NULL
      ORDER BY r.created_at DESC, r.path DESC`,
    [gateKey, limit],
  );
  return rows.rows;
}

/** Every record of one gate, or of all, without samples: oldest first. */
export async function selectSummaries(
  session: Session,
  gateKey: string | undefined,
): Promise<StoredRow[]> {
  const rows = await session.query<StoredRow>(
    `SELECT path, gate_key, benchmark, summary FROM perf_gate_records
      ${gateKey !== undefined ? 'WHERE gate_key = $1' : ''}
      ORDER BY created_at, path`,
    gateKey !== undefined ? [gateKey] : [],
  );
  return rows.rows;
}

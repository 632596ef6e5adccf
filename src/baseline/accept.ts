// Accepting a measurement as the new normal. Records are append-only and never
// rewritten, so an acceptance is a new record: a copy of the accepted measurement that
// says who accepted it, when, why, and which earlier records it accepts.

import { type Acceptance, type AcceptanceReason, type BaselineRecord } from './record.js';
import { parseRecord, serializeRecord } from './record-text.js';

/** Appended to the run id of the copy, so its file name tells it from the original. */
export const ACCEPTED_RUN_ID_SUFFIX = '-accepted';

export interface AcceptanceOptions {
  reason: AcceptanceReason;
  /** Who accepted: a GitHub actor or a local user name. */
  by?: string;
  note?: string;
  /** When; now unless given. Also the new record's `createdAt`. */
  at?: Date;
  /** Paths of the earlier records accepted (usually the one copied). */
  records: string[];
}

/**
 * A new record holding the same measurements, environment, commit, branch and event as
 * `record`, created at `at`, with run id `<runId>-accepted` and the acceptance attached.
 * Any acceptance the original carried is replaced by this one. Validated like every
 * record we write, so a bad date or reason fails here rather than on the next read.
 */
export function acceptanceRecord(
  record: BaselineRecord,
  options: AcceptanceOptions,
): BaselineRecord {
  const at = options.at ?? new Date();
  if (Number.isNaN(at.getTime())) throw new RangeError('acceptanceRecord: `at` is not a date');
  const when = at.toISOString();
  const acceptance: Acceptance = {
    reason: options.reason,
    at: when,
    ...(options.by ? { by: options.by } : {}),
    ...(options.records.length > 0 ? { records: [...options.records] } : {}),
    ...(options.note ? { note: options.note } : {}),
  };
  const copy: BaselineRecord = {
    ...structuredClone(record),
    createdAt: when,
    runId: `${record.runId}${ACCEPTED_RUN_ID_SUFFIX}`,
    acceptance,
  };
  return parseRecord(serializeRecord(copy));
}

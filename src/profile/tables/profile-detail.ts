// What the profile tables add to a profile's summary, over all the profiler calls (units)
// that made tables: the operators' device times (summed), the collectives, the roofline
// (MFU against the most the arithmetic intensity allows) and the reasons not to judge the
// run (profiler warnings, throttling).

import type { OpTime, ProfileSummary } from '../../model.js';
import { boundedOps } from '../opdiff/bounded-ops.js';
import { collectiveGroups } from '../opdiff/collectives.js';
import { addTo, opTimes } from '../opdiff/op-times.js';
import { physicalCoresOfMetadata } from '../logical-core.js';
import { contaminationOf } from './contamination.js';
import type { ProfileTables } from './profile-tables.js';

/** One unit's tables and the name its messages use. */
export interface UnitTables {
  where: string;
  tables: ProfileTables;
}

/** The most of a profile's operator times report.json holds (largest first, the rest summed). */
export const REPORT_OP_BYTES = 512 * 1024;

export type ProfileDetail = Pick<
  ProfileSummary,
  'ops' | 'collectives' | 'roofline' | 'contamination'
>;

export function profileDetail(units: readonly UnitTables[]): ProfileDetail {
  if (units.length === 0) return {};
  const ops = new Map<string, OpTime>();
  for (const { tables } of units) {
    for (const time of opTimes(tables.frameworkOps).values()) addTo(ops, time.op, time);
  }
  const collectives = collectiveGroups(units.flatMap(({ tables }) => tables.collectives));
  const roofline = rooflineOf(units.map(({ tables }) => tables));
  const contamination = units.flatMap(({ where, tables }) =>
    contaminationOf(tables).map((reason) => `${reason} (${where})`),
  );
  return {
    ...(ops.size > 0 ? { ops: boundedOps([...ops.values()], REPORT_OP_BYTES) } : {}),
    ...(collectives.length > 0 ? { collectives } : {}),
    ...(roofline ? { roofline } : {}),
    ...(contamination.length > 0 ? { contamination } : {}),
  };
}

/**
 * MFU and the most MFU achievable at the graphs' arithmetic intensity, weighted by each
 * graph's time (Summary's `*_percent` are fractions), per logical core (logical-core.ts);
 * undefined where no graph has both.
 */
function rooflineOf(units: readonly ProfileTables[]): ProfileSummary['roofline'] {
  let time = 0;
  let mfu = 0;
  let most = 0;
  const rows = units.flatMap((tables) => {
    const physical = physicalCoresOfMetadata(tables.metadata) ?? 1;
    return tables.summary.map((row) => ({ row, physical }));
  });
  for (const { row, physical } of rows) {
    const [t, m, x] = [
      row.total_time,
      row.mfu_estimated_percent,
      row.mfu_max_achievable_estimated_percent,
    ];
    if (!isAvailable(t) || !isAvailable(m) || !isAvailable(x)) continue;
    time += t;
    mfu += (t * m) / physical;
    most += (t * x) / physical;
  }
  return time > 0 ? { mfu: (mfu / time) * 100, maxAchievable: (most / time) * 100 } : undefined;
}

function isAvailable(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

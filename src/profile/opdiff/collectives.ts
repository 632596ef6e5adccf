// The collectives of a profile (CcOp rows, at tensor parallelism > 1) grouped the way a
// change shows: by operation, algorithm and replica group, with their count, total time
// and bus bandwidth (time-weighted over the group's operations).

import type { CollectiveGroup } from '../../model.js';
import type { Row } from '../tables/parquet-rows.js';

export type { CollectiveGroup };

export function collectiveGroups(rows: readonly Row[]): CollectiveGroup[] {
  const groups = new Map<string, CollectiveGroup & { weightedBus: number; busNs: number }>();
  for (const row of rows) {
    const operation = text(row.operation);
    const algorithm = text(row.algorithm);
    const replicaGroup = text(row.replica_group);
    const key = JSON.stringify([operation, algorithm, replicaGroup]);
    const group = groups.get(key) ?? {
      operation,
      algorithm,
      replicaGroup,
      count: 0,
      totalMs: 0,
      weightedBus: 0,
      busNs: 0,
    };
    const ns = durationNs(row);
    group.count += 1;
    group.totalMs += ns / 1e6;
    const bus = row.bus_bandwidth;
    if (typeof bus === 'number' && Number.isFinite(bus) && bus >= 0 && ns > 0) {
      group.weightedBus += bus * ns;
      group.busNs += ns;
    }
    groups.set(key, group);
  }
  return [...groups.values()]
    .map(({ weightedBus, busNs, ...group }) => ({
      ...group,
      ...(busNs > 0 ? { busGBps: weightedBus / busNs / 1e9 } : {}),
    }))
    .sort((a, b) => b.totalMs - a.totalMs);
}

function durationNs(row: Row): number {
  const given = row.duration_ns;
  if (typeof given === 'number' && Number.isFinite(given) && given >= 0) return given;
  const [start, end] = [row.start_ts, row.end_ts];
  return typeof start === 'number' && typeof end === 'number' ? Math.max(0, end - start) : 0;
}

function text(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : '?';
}

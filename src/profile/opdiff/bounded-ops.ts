// Operator times within a size: a record keeps its profile's largest ops (what the next
// run's diff compares with) and sums the rest into one entry, so that a model of many
// layers neither crowds out the record's samples nor grows every stored night without end.
// Two profiles are then diffed on one footing: the ops one side summed away are summed on
// the other side too.

import type { OpTime } from '../../model.js';
import { addTo } from './op-times.js';

/** The entry the ops left out are summed into. */
export const OTHER_OPS = '(the other ops)';

/** The largest ops (by device time) whose JSON fits `budgetBytes`, the rest in OTHER_OPS. */
export function boundedOps(ops: readonly OpTime[], budgetBytes: number): OpTime[] {
  const sorted = [...ops].sort((a, b) => b.deviceNs - a.deviceNs || a.op.localeCompare(b.op));
  const kept: OpTime[] = [];
  let bytes = 0;
  let at = 0;
  for (; at < sorted.length; at += 1) {
    const size = Buffer.byteLength(JSON.stringify(sorted[at])) + 1;
    if (bytes + size > budgetBytes) break;
    bytes += size;
    kept.push(sorted[at]!);
  }
  if (at === sorted.length) return kept;
  // Room for the remainder's entry: the smallest kept ops join it when it does not fit.
  const rest = new Map<string, OpTime>();
  for (const op of sorted.slice(at)) addTo(rest, OTHER_OPS, op);
  const other = rest.get(OTHER_OPS)!;
  while (kept.length > 0 && bytes + Buffer.byteLength(JSON.stringify(other)) > budgetBytes) {
    const dropped = kept.pop()!;
    bytes -= Buffer.byteLength(JSON.stringify(dropped)) + 1;
    addTo(rest, OTHER_OPS, dropped);
  }
  return [...kept, rest.get(OTHER_OPS)!];
}

/**
 * The two sides' ops as maps, where a side that summed ops away into OTHER_OPS has the
 * other side's ops it lacks summed into the other side's OTHER_OPS as well.
 */
export function alignedOps(
  base: readonly OpTime[],
  head: readonly OpTime[],
): [Map<string, OpTime>, Map<string, OpTime>] {
  const [b, h] = [toMap(base), toMap(head)];
  if (b.has(OTHER_OPS)) foldMissing(h, b);
  if (h.has(OTHER_OPS)) foldMissing(b, h);
  return [b, h];
}

/** Sums the ops of `side` that `reference` does not have into `side`'s OTHER_OPS. */
function foldMissing(side: Map<string, OpTime>, reference: Map<string, OpTime>): void {
  for (const [name, time] of [...side]) {
    if (name === OTHER_OPS || reference.has(name)) continue;
    side.delete(name);
    addTo(side, OTHER_OPS, time);
  }
}

function toMap(ops: readonly OpTime[]): Map<string, OpTime> {
  const map = new Map<string, OpTime>();
  // addTo sums into an entry of its own: the given ops are never changed.
  for (const op of ops) addTo(map, op.op, op);
  return map;
}

// Where one sweep crosses its SLO: the highest load at which every objective holds,
// interpolated linearly between the last load that holds and the first that does not.
// The first load that fails ends the search: a queue's latency only grows with load, so a
// later load that holds again is noise, not capacity. Pure math.

/** One objective at one load: `value` must stay at most (or at least) `limit`. */
export interface Check {
  value: number;
  limit: number;
  holds: 'at-most' | 'at-least';
}

/** One variant of the sweep: its load and its objectives' figures. */
export interface LoadPoint {
  load: number;
  checks: Check[];
}

export type SweepCapacity =
  /** Crossed between two loads: the interpolated load. */
  | { kind: 'crossed'; value: number }
  /** Held at every load: at least the highest. */
  | { kind: 'at-least'; value: number }
  /** Failed at the lowest load already: below it, by how much the sweep cannot say. */
  | { kind: 'below-lowest'; lowest: number };

export function holds(check: Check): boolean {
  return check.holds === 'at-most' ? check.value <= check.limit : check.value >= check.limit;
}

/** The load at which one check's figure reaches its limit, on the line between two loads. */
function crossingLoad(load: [number, number], before: Check, after: Check): number {
  const span = after.value - before.value;
  // A figure that reaches its limit without moving (a step) crosses at the later load.
  const share = span === 0 ? 1 : (before.limit - before.value) / span;
  return load[0] + Math.min(1, Math.max(0, share)) * (load[1] - load[0]);
}

/** The capacity of one sweep; `points` in any order, at distinct loads. */
export function capacityOfSweep(points: readonly LoadPoint[]): SweepCapacity {
  const sorted = [...points].sort((a, b) => a.load - b.load);
  const failing = sorted.findIndex((point) => !point.checks.every(holds));
  if (failing === -1) return { kind: 'at-least', value: sorted[sorted.length - 1]!.load };
  if (failing === 0) return { kind: 'below-lowest', lowest: sorted[0]!.load };
  const before = sorted[failing - 1]!;
  const after = sorted[failing]!;
  const crossings = after.checks.flatMap((check, index) =>
    holds(check) ? [] : [crossingLoad([before.load, after.load], before.checks[index]!, check)],
  );
  return { kind: 'crossed', value: Math.min(...crossings) };
}

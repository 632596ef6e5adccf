// Where a change of device time went: the operators of a base and a head profile joined by
// framework name and ranked by their change. Two profiles differ by a factor every op
// shares (clock, temperature, a slower host) and by each op's own jitter; both are read
// from the ops themselves: the shared factor as the median head/base ratio, the jitter as
// the robust spread (1.4826 × MAD) of the log ratios. An op is named when its change beyond
// the shared factor passes `z` of that spread (4: about a 5% chance of one false name among
// 400 ops), 1% of the whole step, and 2% of its own time (bench:opdiff measures these). The shared factor is
// a line of its own, the rest one "other ops" remainder: the shares add up to the change.

import type { EngineName, OpChange, OpDiff, OpTime } from '../../model.js';

export type { OpChange, OpDiff };

export interface OpDiffOptions {
  /** How many jitter sds an op's excess must pass (default 4). */
  z?: number;
  /** …and this fraction of its own larger time (default 0.02). */
  relativeNoise?: number;
  /**
   * …and this fraction of the larger total device time (default 0.01: an op must explain 1%
   * of the step; a single profile's stalls, 10–40% on one op, stay below it).
   */
  totalNoise?: number;
}

const NS_PER_MS = 1e6;

export function diffOps(
  base: ReadonlyMap<string, OpTime>,
  head: ReadonlyMap<string, OpTime>,
  options: OpDiffOptions = {},
): OpDiff {
  const baseMs = totalMs(base);
  const headMs = totalMs(head);
  const total = headMs - baseMs;
  const share = (ms: number) => (total === 0 ? 0 : ms / total);
  const { factor, jitter } = sharedFactor(base, head);
  const floorMs = (options.totalNoise ?? 0.01) * Math.max(baseMs, headMs);
  const z = options.z ?? 4;
  const relative = options.relativeNoise ?? 0.02;
  const named: OpChange[] = [];
  const other = { ops: 0, changeMs: 0, share: 0 };
  for (const op of new Set([...base.keys(), ...head.keys()])) {
    const change = changeOf(op, base.get(op), head.get(op), factor, share);
    const expected = change.baseMs * factor;
    const noise = Math.max(
      floorMs,
      z * jitter * expected,
      relative * Math.max(change.baseMs, change.headMs),
    );
    if (Math.abs(change.excessMs) > noise) named.push(change);
    else {
      other.ops += 1;
      other.changeMs += change.excessMs;
    }
  }
  other.share = share(other.changeMs);
  named.sort((a, b) => Math.abs(b.excessMs) - Math.abs(a.excessMs) || a.op.localeCompare(b.op));
  const sharedMs = (factor - 1) * baseMs;
  return {
    baseMs,
    headMs,
    shared: { factor, changeMs: sharedMs, share: share(sharedMs) },
    jitter,
    named,
    other,
  };
}

/** The median head/base ratio of the ops both have, and the robust sd of the log ratios. */
export function sharedFactor(
  base: ReadonlyMap<string, OpTime>,
  head: ReadonlyMap<string, OpTime>,
): { factor: number; jitter: number } {
  const logs: number[] = [];
  for (const [op, time] of base) {
    const other = head.get(op);
    if (time.deviceNs > 0 && other && other.deviceNs > 0) {
      logs.push(Math.log(other.deviceNs / time.deviceNs));
    }
  }
  if (logs.length === 0) return { factor: 1, jitter: 0 };
  const center = median(logs);
  const jitter = logs.length < 3 ? 0 : 1.4826 * median(logs.map((l) => Math.abs(l - center)));
  return { factor: Math.exp(center), jitter };
}

function changeOf(
  op: string,
  base: OpTime | undefined,
  head: OpTime | undefined,
  factor: number,
  share: (ms: number) => number,
): OpChange {
  const baseMs = (base?.deviceNs ?? 0) / NS_PER_MS;
  const headMs = (head?.deviceNs ?? 0) / NS_PER_MS;
  const changeMs = headMs - baseMs;
  const excessMs = headMs - baseMs * factor;
  const engine = dominantEngine(head ?? base!);
  return {
    op,
    baseMs,
    headMs,
    changeMs,
    ...(baseMs > 0 ? { changePercent: (changeMs / baseMs) * 100 } : {}),
    excessMs,
    share: share(excessMs),
    ...(engine ? { engine } : {}),
    hbmBytesChange: (head?.hbmBytes ?? 0) - (base?.hbmBytes ?? 0),
    ...(base === undefined ? { only: 'head' as const } : {}),
    ...(head === undefined ? { only: 'base' as const } : {}),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function totalMs(ops: ReadonlyMap<string, OpTime>): number {
  let ns = 0;
  for (const op of ops.values()) ns += op.deviceNs;
  return ns / NS_PER_MS;
}

function dominantEngine(time: OpTime): EngineName | undefined {
  let best: [EngineName, number] | undefined;
  for (const [engine, n] of Object.entries(time.instructions) as [EngineName, number][]) {
    if (!best || n > best[1]) best = [engine, n];
  }
  return best?.[0];
}

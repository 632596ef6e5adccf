// Where a change of device time went: the operators of a base and a head profile joined by
// framework name and ranked by their change. An op is named only when its change stands
// out of a single profile's jitter (a share of its own time, and of the whole, both
// configurable until a bench calibrates them); the rest is one "other ops" remainder, so
// the shares always add up to the whole change.

import type { EngineName } from '../../model.js';
import type { OpTime } from './op-times.js';

export interface OpChange {
  op: string;
  baseMs: number;
  headMs: number;
  changeMs: number;
  /** Percent of the base time; undefined for an op the base did not have. */
  changePercent?: number;
  /** This op's change over the total change (signed: an op that got faster counts against). */
  share: number;
  /** The engine with the most of the op's instructions in the head (base when gone). */
  engine?: EngineName;
  hbmBytesChange: number;
  /** Only in one of the profiles. */
  only?: 'base' | 'head';
}

export interface OpDiff {
  baseMs: number;
  headMs: number;
  /** Ops whose change is beyond the noise, largest change first. */
  named: OpChange[];
  /** Everything else together: its change and share. */
  other: { ops: number; changeMs: number; share: number };
}

export interface OpDiffOptions {
  /** An op's change must exceed this fraction of its own larger time (default 0.05). */
  relativeNoise?: number;
  /** …and this fraction of the larger total device time (default 0.005). */
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
  const floorMs = (options.totalNoise ?? 0.005) * Math.max(baseMs, headMs);
  const relative = options.relativeNoise ?? 0.05;
  const named: OpChange[] = [];
  const other = { ops: 0, changeMs: 0, share: 0 };
  for (const op of new Set([...base.keys(), ...head.keys()])) {
    const change = changeOf(op, base.get(op), head.get(op), total);
    const noise = Math.max(floorMs, relative * Math.max(change.baseMs, change.headMs));
    if (Math.abs(change.changeMs) > noise) named.push(change);
    else {
      other.ops += 1;
      other.changeMs += change.changeMs;
    }
  }
  other.share = total === 0 ? 0 : other.changeMs / total;
  named.sort((a, b) => Math.abs(b.changeMs) - Math.abs(a.changeMs) || a.op.localeCompare(b.op));
  return { baseMs, headMs, named, other };
}

function changeOf(
  op: string,
  base: OpTime | undefined,
  head: OpTime | undefined,
  total: number,
): OpChange {
  const baseMs = (base?.deviceNs ?? 0) / NS_PER_MS;
  const headMs = (head?.deviceNs ?? 0) / NS_PER_MS;
  const changeMs = headMs - baseMs;
  const engine = dominantEngine(head ?? base!);
  return {
    op,
    baseMs,
    headMs,
    changeMs,
    ...(baseMs > 0 ? { changePercent: (changeMs / baseMs) * 100 } : {}),
    share: total === 0 ? 0 : changeMs / total,
    ...(engine ? { engine } : {}),
    hbmBytesChange: (head?.hbmBytes ?? 0) - (base?.hbmBytes ?? 0),
    ...(base === undefined ? { only: 'head' as const } : {}),
    ...(head === undefined ? { only: 'base' as const } : {}),
  };
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

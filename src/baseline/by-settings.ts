// Benchmarks named by their settings (`prompts=20,input_len=1000,kvcache=cpu`, see
// formats/run-settings.ts) whose name has no exact match on the other side: a baseline
// written before every setting was named (`input_len=1000`), a file with one tag more or
// less, or an A/B of one sweep on two KV-cache backends. Each is paired with the one
// benchmark whose settings fit, and the pairing is said, never silent.

import { settingsOfName } from '../formats/run-settings.js';

export interface SettingsPairing {
  /** The baseline benchmark's name. */
  baseline: string;
  /**
   * `renamed`: the same settings, one side naming more of them (compared as one
   * benchmark); `near`: the most settings equal, some different (another workload).
   */
  kind: 'renamed' | 'near';
  /** What the report says about the pairing. */
  note: string;
  /** `near` only: `3 of 4 settings equal: kvcache cpu → disk`. */
  difference?: string;
}

type Settings = Map<string, string>;
interface Named {
  name: string;
  prefix: string;
  settings: Settings;
}

/**
 * Current benchmark name → its baseline, for the current names with no baseline of the
 * same name. A pairing is made only when it is unique both ways: one current benchmark,
 * one baseline benchmark.
 */
export function pairBySettings(
  current: readonly string[],
  baseline: readonly string[],
): Map<string, SettingsPairing> {
  const exact = new Set(current.filter((name) => baseline.includes(name)));
  const now = parsed(current.filter((name) => !exact.has(name)));
  const before = parsed(baseline.filter((name) => !exact.has(name)));
  const pairs = new Map<string, SettingsPairing>();
  for (const [a, b] of mutualBest(now, before, renamedScore)) {
    pairs.set(a.name, { baseline: b.name, kind: 'renamed', note: renamedNote(a, b) });
  }
  const left = (side: Named[], taken: Set<string>) => side.filter((n) => !taken.has(n.name));
  const takenBaselines = new Set([...pairs.values()].map((pair) => pair.baseline));
  for (const [a, b] of mutualBest(
    left(now, new Set(pairs.keys())),
    left(before, takenBaselines),
    nearScore,
  )) {
    const difference = settingsChange(a, b);
    pairs.set(a.name, {
      baseline: b.name,
      kind: 'near',
      note: nearNote(b, difference),
      difference,
    });
  }
  return pairs;
}

function parsed(names: readonly string[]): Named[] {
  return names.flatMap((name) => {
    const read = settingsOfName(name);
    return read ? [{ name, ...read }] : [];
  });
}

/**
 * The pairs (a, b) where b is a's only best-scoring partner and a is b's; a score of
 * undefined is no partner at all.
 */
function mutualBest(
  side: Named[],
  other: Named[],
  score: (a: Named, b: Named) => number | undefined,
): [Named, Named][] {
  const best = (one: Named, candidates: Named[], flip: boolean) => {
    const scored = candidates.flatMap((c) => {
      const s = flip ? score(c, one) : score(one, c);
      return s === undefined ? [] : [{ c, s }];
    });
    const top = Math.max(...scored.map(({ s }) => s));
    const winners = scored.filter(({ s }) => s === top);
    return winners.length === 1 ? winners[0]!.c : undefined;
  };
  return side.flatMap((a) => {
    const b = best(a, other, false);
    return b && best(b, side, true) === a ? [[a, b] as [Named, Named]] : [];
  });
}

/** One side's settings all on the other with the same values: how many they share. */
function renamedScore(a: Named, b: Named): number | undefined {
  if (a.prefix !== b.prefix) return undefined;
  const [small, large] = a.settings.size <= b.settings.size ? [a, b] : [b, a];
  for (const [key, value] of small.settings) {
    if (large.settings.get(key) !== value) return undefined;
  }
  return small.settings.size;
}

/** The same settings named, some with other values: how many are equal (at least one). */
function nearScore(a: Named, b: Named): number | undefined {
  if (a.prefix !== b.prefix || !sameKeys(a.settings, b.settings)) return undefined;
  const equal = [...a.settings].filter(([key, value]) => b.settings.get(key) === value).length;
  return equal > 0 ? equal : undefined;
}

function sameKeys(a: Settings, b: Settings): boolean {
  return a.size === b.size && [...a.keys()].every((key) => b.has(key));
}

function renamedNote(now: Named, before: Named): string {
  const extra = (side: Named, other: Named) =>
    [...side.settings].filter(([key]) => !other.settings.has(key)).map(([k, v]) => `${k}=${v}`);
  const added = extra(now, before);
  const dropped = extra(before, now);
  const what = [
    ...(added.length > 0 ? [`this run also names ${added.join(', ')}`] : []),
    ...(dropped.length > 0 ? [`the baseline also names ${dropped.join(', ')}`] : []),
  ].join('; ');
  const same = what
    ? `the settings both name are equal; ${what}`
    : 'the same settings, spelled the way names were written before';
  return `compared with baseline ${JSON.stringify(before.name)}: ${same}`;
}

function nearNote(before: Named, difference: string): string {
  return `compared with baseline ${JSON.stringify(before.name)}, the nearest: ${difference}`;
}

/** `3 of 4 settings equal: kvcache cpu → disk`. */
function settingsChange(now: Named, before: Named): string {
  const changed = [...now.settings].filter(([key, value]) => before.settings.get(key) !== value);
  const equal = now.settings.size - changed.length;
  const change = changed.map(([key, value]) => `${key} ${before.settings.get(key)} → ${value}`);
  return `${equal} of ${now.settings.size} settings equal: ${change.join(', ')}`;
}

// The units result files give their figures in, as far as the gate knows them: times,
// sizes, percentages, counts, and ratios of these (ops/s, MB/s, ns/op, tokens per
// second). Two files may give one metric in different units (a custom benchmark that moved
// from ms to s); known units of one kind convert, others do not. Sizes keep their case:
// `Mb` (bits) is not `MB` (bytes).

export interface UnitScale {
  /** What the unit measures: `time`, `bytes`, `percent`, `count:ops`, `bytes/time`, ... */
  kind: string;
  /** Size of the unit in the kind's base unit (seconds, bytes, 1 %, one count). */
  size: number;
}

const TIMES: Record<string, number> = {};
for (const [size, names] of [
  [1e-9, ['ns', 'nsec', 'nanosecond', 'nanoseconds']],
  [1e-6, ['us', 'µs', 'μs', 'usec', 'microsecond', 'microseconds']],
  [1e-3, ['ms', 'msec', 'msecs', 'millisecond', 'milliseconds']],
  [1, ['s', 'sec', 'secs', 'second', 'seconds']],
  [60, ['min', 'mins', 'minute', 'minutes']],
  [3600, ['h', 'hr', 'hrs', 'hour', 'hours']],
] as const) {
  for (const name of names) TIMES[name] = size;
}

const BYTES: Record<string, number> = {};
for (const [size, names] of [
  [1, ['B', 'byte', 'bytes', 'Byte', 'Bytes']],
  [1e3, ['KB', 'kB', 'kilobytes', 'Kilobytes']],
  [1e6, ['MB', 'megabytes', 'Megabytes']],
  [1e9, ['GB', 'gigabytes', 'Gigabytes']],
  [1e12, ['TB', 'terabytes', 'Terabytes']],
  [2 ** 10, ['KiB', 'kibibytes', 'Kibibytes']],
  [2 ** 20, ['MiB', 'mebibytes', 'Mebibytes']],
  [2 ** 30, ['GiB', 'gibibytes', 'Gibibytes']],
  [2 ** 40, ['TiB', 'tebibytes', 'Tebibytes']],
] as const) {
  for (const name of names) BYTES[name] = size;
}

const PERCENT = new Set(['%', 'percent', 'Percent', 'pct']);

/** Words for one thing counted, each with the name its synonyms share. */
const COUNTS: Record<string, string> = {
  op: 'ops',
  ops: 'ops',
  operation: 'ops',
  operations: 'ops',
  req: 'requests',
  reqs: 'requests',
  request: 'requests',
  requests: 'requests',
  tok: 'tokens',
  token: 'tokens',
  tokens: 'tokens',
  query: 'queries',
  queries: 'queries',
};

/** A unit that is not a ratio; a count word the gate does not know counts as itself. */
function simpleScale(unit: string): UnitScale | undefined {
  if (Object.hasOwn(TIMES, unit.toLowerCase())) {
    return { kind: 'time', size: TIMES[unit.toLowerCase()]! };
  }
  if (Object.hasOwn(BYTES, unit)) return { kind: 'bytes', size: BYTES[unit]! };
  if (PERCENT.has(unit)) return { kind: 'percent', size: 1 };
  const count = COUNTS[unit.toLowerCase()];
  if (count !== undefined) return { kind: `count:${count}`, size: 1 };
  return undefined;
}

/** The kind and size of `unit`; undefined for a unit the gate does not know (`tokens`, `x`). */
export function unitScale(unit: string): UnitScale | undefined {
  const trimmed = unit.trim();
  const ratio = /^(.+?)\s*(?:\/|\s+per\s+)\s*(.+)$/.exec(trimmed);
  if (!ratio) return simpleScale(trimmed);
  const top = simpleScale(ratio[1]!) ?? { kind: `count:${ratio[1]!}`, size: 1 };
  const bottom = simpleScale(ratio[2]!);
  if (!bottom) return undefined;
  return { kind: `${top.kind}/${bottom.kind}`, size: top.size / bottom.size };
}

/** Whether `unit` is a time (`ms`, `s`, `ns`, ...). */
export function isTimeUnit(unit: string): boolean {
  return unitScale(unit)?.kind === 'time';
}

/**
 * The factor that turns a figure in `from` into one in `to` (0.047 s → 47 ms: 1000); 1
 * for the same unit; undefined when they are not of one known kind.
 */
export function unitFactor(from: string, to: string): number | undefined {
  if (from === to) return 1;
  const a = unitScale(from);
  const b = unitScale(to);
  if (!a || !b || a.kind !== b.kind) return undefined;
  return a.size / b.size;
}

// The units result files give their figures in, as far as the gate knows them: times,
// sizes and rates per time. Two files may give one metric in different units (a custom
// benchmark that moved from ms to s); known units of one kind convert, others do not.

export interface UnitScale {
  /** What the unit measures: `time`, `bytes`, or `<what> per time` (`ops per time`). */
  kind: string;
  /** Size of the unit in the kind's base unit (seconds, bytes, <what> per second). */
  size: number;
}

const TIMES: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hour: 3600,
  hours: 3600,
};

const BYTES: Record<string, number> = {
  B: 1,
  byte: 1,
  bytes: 1,
  KB: 1e3,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  kilobytes: 1e3,
  megabytes: 1e6,
  gigabytes: 1e9,
  terabytes: 1e12,
  Kilobytes: 1e3,
  Megabytes: 1e6,
  Gigabytes: 1e9,
  Terabytes: 1e12,
};

/** The kind and size of `unit`; undefined for a unit the gate does not know (`tokens`, `%`). */
export function unitScale(unit: string): UnitScale | undefined {
  const trimmed = unit.trim();
  const time = TIMES[trimmed.toLowerCase()];
  if (time !== undefined && Object.hasOwn(TIMES, trimmed.toLowerCase())) {
    return { kind: 'time', size: time };
  }
  if (Object.hasOwn(BYTES, trimmed)) return { kind: 'bytes', size: BYTES[trimmed]! };
  // `ops/s`, `req/sec`, `tokens / min`: a count per a known time.
  const rate = /^(.+?)\s*\/\s*([^/]+)$/.exec(trimmed);
  if (rate) {
    const per = rate[2]!.toLowerCase();
    if (Object.hasOwn(TIMES, per)) {
      return { kind: `${rate[1]!.toLowerCase()} per time`, size: 1 / TIMES[per]! };
    }
  }
  return undefined;
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

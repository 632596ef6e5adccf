// Durations as the server block writes them: `90s`, `30m`, `1h`, `1m30s` (docker compose's
// healthcheck and stop_grace_period spell them so), or a bare number of seconds.

const UNITS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1 };
const NUMBER = String.raw`(?:\d+(?:\.\d*)?|\.\d+)`;
const DURATION_TEXT = new RegExp(`^(?:${NUMBER}[hms])+$`);
const PART = new RegExp(`(${NUMBER})([hms])`, 'g');
const NUMBER_TEXT = new RegExp(`^${NUMBER}$`);

/** Seconds, or undefined when `value` is not a duration. */
export function readDurationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase().replace(/\s+/g, '');
  if (NUMBER_TEXT.test(text)) return Number(text);
  if (!DURATION_TEXT.test(text)) return undefined;
  let seconds = 0;
  const seen = new Set<string>();
  for (const [, amount, unit] of text.matchAll(PART)) {
    // `1m1m` or `30s1m`: a typo, not a duration.
    if (seen.has(unit!) || [...seen].some((before) => UNITS[before]! < UNITS[unit!]!)) {
      return undefined;
    }
    seen.add(unit!);
    seconds += Number(amount) * UNITS[unit!]!;
  }
  return seconds;
}

/** `1800` → "30 min", `90` → "90 s", `5400` → "1.5 h". */
export function formatDurationSetting(seconds: number): string {
  if (seconds >= 3600 && seconds % 360 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 6 === 0) return `${seconds / 60} min`;
  return `${Number(seconds.toFixed(3))} s`;
}

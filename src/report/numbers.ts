// How figures are written in tables: enough digits to see a 1% change, no more.

// One formatter per number of digits: toLocaleString builds a new one on every call, which
// made rendering a 300-variant sweep take seconds.
const BY_DIGITS = [0, 1, 2, 3].map(
  (digits) =>
    new Intl.NumberFormat('en-US', {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }),
);

export function formatValue(value: number | null, unit?: string): string {
  if (value === null || !Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  const digits = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
  const text = BY_DIGITS[digits]!.format(value);
  return unit === '%' ? `${text}%` : text;
}

/** Units of things counted (observe/compile-metrics.ts), shown without decimals when whole. */
const COUNT_UNITS = new Set(['graphs']);

/** A figure of a table whose header names the unit: a whole count as "4", not "4.000". */
export function formatFigure(value: number | null, unit: string): string {
  if (value !== null && COUNT_UNITS.has(unit) && Number.isInteger(value)) return String(value);
  return formatValue(value);
}

/** A relative change as a signed percent: +8.1%, −6.0%. */
export function formatChange(change: number | null): string {
  if (change === null || !Number.isFinite(change)) return '—';
  const percent = change * 100;
  const rounded = Math.abs(percent) < 0.05 ? 0 : percent;
  const sign = rounded > 0 ? '+' : rounded < 0 ? '−' : '±';
  return `${sign}${Math.abs(rounded).toFixed(1)}%`;
}

export function formatThreshold(threshold: number | null): string {
  if (threshold === null) return '—';
  return `${Number((threshold * 100).toPrecision(3))}%`;
}

export function formatInterval(ci: [number, number] | null): string {
  if (!ci) return '—';
  return `${formatChange(ci[0])} to ${formatChange(ci[1])}`;
}

/**
 * 2.5 MB. A report.json from an artifact is untrusted: whatever is not a finite number
 * (a string of markdown) is shown as "—", never as it is.
 */
export function formatBytes(bytes: number): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Device time: 213.8 ms, 41.2 µs, 1.25 s. */
export function formatSeconds(seconds: number): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '—';
  if (seconds >= 1) return `${formatValue(seconds)} s`;
  if (seconds >= 1e-3) return `${formatValue(seconds * 1e3)} ms`;
  return `${formatValue(seconds * 1e6)} µs`;
}

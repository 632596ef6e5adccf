// Percents that state a confidence or a chance. Rounded like any figure they can read as
// certainty: a test at 99.998% is not a "100% test", and a chance of 0.004% is not 0%.

/** The most decimals shown before giving up and writing "> 99.9999%". */
const MAX_DIGITS = 4;

/**
 * `fraction` (0–1) as a percent with `digits` decimals at least, and more while rounding
 * would make a fraction short of 1 read 100% (or one above 0 read 0%). Trailing zeros
 * go: 0.95 reads 95%, 0.99998 reads 99.998%.
 */
export function confidencePercent(fraction: number, digits = 0): string {
  const value = fraction * 100;
  if (!Number.isFinite(value)) return '—';
  if (fraction >= 1 || fraction <= 0) return `${Number(value.toFixed(digits))}%`;
  for (let d = digits; d <= MAX_DIGITS; d += 1) {
    const shown = Number(value.toFixed(d));
    if (shown < 100 && shown > 0) return `${shown}%`;
  }
  return value > 50
    ? `> ${(100 - 10 ** -MAX_DIGITS).toFixed(MAX_DIGITS)}%`
    : `< ${10 ** -MAX_DIGITS}%`;
}

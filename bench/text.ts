// Small printing helpers shared by the benches.
import { wilson } from '../src/stats/proportion.js';

export { wilson };

/** A plain-text table: columns padded to their widest cell, numbers right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function percent(fraction: number, digits = 1): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

/** "1.2% (95% CI 0.5–2.6%, 6/500)" */
export function rateWithInterval(successes: number, trials: number): string {
  const [low, high] = wilson(successes, trials);
  return `${percent(successes / trials)} (95% CI ${percent(low)}–${percent(high)}, ${successes}/${trials})`;
}

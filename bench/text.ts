// Small printing helpers shared by the benches.

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

/** Wilson score interval of a binomial proportion (95%). */
export function wilson(successes: number, trials: number, z = 1.959964): [number, number] {
  if (trials === 0) return [0, 1];
  const p = successes / trials;
  const denominator = 1 + (z * z) / trials;
  const center = (p + (z * z) / (2 * trials)) / denominator;
  const half =
    (z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials))) / denominator;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/** "1.2% (95% CI 0.5–2.6%, 6/500)" */
export function rateWithInterval(successes: number, trials: number): string {
  const [low, high] = wilson(successes, trials);
  return `${percent(successes / trials)} (95% CI ${percent(low)}–${percent(high)}, ${successes}/${trials})`;
}

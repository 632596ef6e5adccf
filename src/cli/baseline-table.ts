// Plain-text columns for terminal output: each column as wide as its widest cell.

/**
 * The rows with cells padded to line up, two spaces between columns and no trailing
 * spaces. Columns listed in `rightAligned` (numbers) are padded on the left.
 */
export function alignColumns(
  rows: readonly (readonly string[])[],
  rightAligned: readonly number[] = [],
): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, column) =>
        rightAligned.includes(column)
          ? cell.padStart(widths[column]!)
          : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

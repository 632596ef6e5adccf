// The 95% Wilson interval of a kill rate, shared by the two mutation scripts
// (npm run mutate, npm run bench:runner-mutants).

/** The Wilson score interval [low, high] of `hits` in `n`; [0, 1] when nothing ran. */
export function wilson(hits, n) {
  if (n === 0) return [0, 1];
  const z = 1.959964;
  const p = hits / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

export const percent = (x) => `${(100 * x).toFixed(1)}%`;

// The interval of a rate measured as successes out of trials (the benches' detection and
// false-alarm rates).

/** Wilson score interval of a binomial proportion (95% by default). */
export function wilson(successes: number, trials: number, z = 1.959964): [number, number] {
  if (trials === 0) return [0, 1];
  const p = successes / trials;
  const denominator = 1 + (z * z) / trials;
  const center = (p + (z * z) / (2 * trials)) / denominator;
  const half =
    (z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials))) / denominator;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

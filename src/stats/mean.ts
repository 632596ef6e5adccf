// The arithmetic mean, one home for every stage and bench: summed in order, so every
// caller gets the same last bit. NaN for no values; no check for non-finite ones (the
// checked mean of a metric's values is percentile.ts's mean).

export function meanOf(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i]!;
  return sum / values.length;
}

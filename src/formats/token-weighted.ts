// Statistics of values that each stand for several of themselves: guidellm counts a
// request's inter-token latency once per gap between its tokens (and its time per output
// token once per token). Computed as numpy would on the values repeated `weight` times,
// without building that array: a weight is a token count and can be large.

/** values[i] counted weights[i] times; weights are whole numbers ≥ 0. */
export interface Weighted {
  values: number[];
  weights: number[];
}

export function emptyWeighted(): Weighted {
  return { values: [], weights: [] };
}

export function addWeighted(into: Weighted, value: number, weight = 1): void {
  if (weight <= 0) return;
  into.values.push(value);
  into.weights.push(weight);
}

/** How many values the repeated array would hold. */
export function totalWeight({ weights }: Weighted): number {
  let total = 0;
  for (const weight of weights) total += weight;
  return total;
}

/** np.mean(np.repeat(values, weights)), up to rounding; NaN when there is none. */
export function weightedMean(data: Weighted): number {
  let sum = 0;
  data.values.forEach((value, index) => (sum += value * data.weights[index]!));
  return sum / totalWeight(data);
}

/**
 * np.percentile(np.repeat(values, weights), ps) with numpy's default 'linear' method:
 * the same rank (n − 1)·p/100 and the same interpolation, on the repeated array's
 * elements found by walking the cumulative weights. Needs a total weight > 0.
 */
export function weightedPercentiles(data: Weighted, ps: readonly number[]): number[] {
  const order = data.values.map((_, index) => index);
  order.sort((a, b) => data.values[a]! - data.values[b]!);
  const total = totalWeight(data);
  // The k-th element (from 0) of the sorted repeated array.
  const at = (k: number): number => {
    let seen = 0;
    for (const index of order) {
      seen += data.weights[index]!;
      if (k < seen) return data.values[index]!;
    }
    return data.values[order[order.length - 1]!]!;
  };
  return ps.map((p) => {
    const rank = (total - 1) * (p / 100);
    const below = Math.floor(rank);
    const above = Math.min(below + 1, total - 1);
    return lerp(at(below), at(above), rank - below);
  });
}

/** numpy's _lerp: from the nearer end, so that t = 1 gives exactly `b`. */
function lerp(a: number, b: number, t: number): number {
  const difference = b - a;
  return t >= 0.5 ? b - difference * (1 - t) : a + difference * t;
}

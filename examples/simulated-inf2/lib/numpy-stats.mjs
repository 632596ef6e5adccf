// The statistics of offline_benchmark.py, reproduced bit for bit so that a parser fed by
// the simulator sees exactly what the real script would have written for the same times.

/** Python's built-in `sum()` before 3.12: plain left-to-right addition. */
export function pythonSum(values) {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** numpy's pairwise summation of float64 (`np.add.reduce`, 8 accumulators, blocks of 128). */
export function pairwiseSum(values, start = 0, count = values.length) {
  if (count < 8) {
    let total = 0;
    for (let i = start; i < start + count; i += 1) total += values[i];
    return total;
  }
  if (count <= 128) {
    const r = values.slice(start, start + 8);
    let i = 8;
    for (; i < count - (count % 8); i += 8) {
      for (let j = 0; j < 8; j += 1) r[j] += values[start + i + j];
    }
    let total = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < count; i += 1) total += values[start + i];
    return total;
  }
  let half = Math.floor(count / 2);
  half -= half % 8;
  return pairwiseSum(values, start, half) + pairwiseSum(values, start + half, count - half);
}

/** `np.mean` of a 1-D float64 array. */
export function numpyMean(values) {
  return pairwiseSum(values) / values.length;
}

/**
 * `np.percentile(values, q)` with numpy's default 'linear' method, including numpy's
 * two-sided lerp (it interpolates from the upper neighbour when the fraction is >= 0.5).
 */
export function numpyPercentile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const virtualIndex = (n - 1) * (q / 100);
  if (virtualIndex >= n - 1) return sorted[n - 1];
  if (virtualIndex < 0) return sorted[0];
  const below = Math.floor(virtualIndex);
  const t = virtualIndex - below;
  const a = sorted[below];
  const b = sorted[below + 1];
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

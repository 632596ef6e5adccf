// How many independent tests a family of correlated tests is worth, so that the gate can
// keep its false-alarm rate per gate run without paying for every metric as if the
// metrics were unrelated (throughput, P50 and P95 of the same runs move together).

/**
 * Li and Ji's effective number of tests (Heredity 95, 2005): Σ f(|λᵢ|) over the
 * eigenvalues of the tests' correlation matrix, f(x) = [x ≥ 1] + (x − ⌊x⌋). Unrelated
 * tests count fully (M), perfectly correlated ones as one.
 */
export function effectiveTests(correlation: readonly (readonly number[])[]): number {
  if (correlation.length === 0) return 0;
  return symmetricEigenvalues(correlation).reduce((sum, value) => {
    // Rounded, so that an eigenvalue of 2 computed as 1.9999999999 counts as 2, not 1.99…
    const x = Math.round(Math.abs(value) * 1e9) / 1e9;
    return sum + (x >= 1 ? 1 : 0) + (x - Math.floor(x));
  }, 0);
}

/** The level of each of `tests` independent tests that keeps the chance of any false alarm at `alpha` (Šidák). */
export function sidakLevel(alpha: number, tests: number): number {
  if (tests <= 1) return alpha;
  return -Math.expm1(Math.log1p(-alpha) / tests);
}

/**
 * Pearson correlation of two equally long series, shrunk towards zero by one standard
 * error on Fisher's z scale (negative and undetermined correlations count as none): an
 * overstated correlation would understate the number of tests and let false alarms through.
 * `freedom` is the number of independent values behind the series (fewer than their
 * length when group means were removed).
 */
export function cautiousCorrelation(
  a: readonly number[],
  b: readonly number[],
  freedom: number,
): number {
  if (a.length !== b.length || freedom <= 3) return 0;
  const n = a.length;
  const meanA = a.reduce((s, v) => s + v, 0) / n;
  const meanB = b.reduce((s, v) => s + v, 0) / n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i += 1) {
    const da = a[i]! - meanA;
    const db = b[i]! - meanB;
    ab += da * db;
    aa += da * da;
    bb += db * db;
  }
  if (aa === 0 || bb === 0) return 0;
  const r = Math.min(0.999999, ab / Math.sqrt(aa * bb));
  if (r <= 0) return 0;
  return Math.max(0, Math.tanh(Math.atanh(r) - 1 / Math.sqrt(freedom - 3)));
}

/** Eigenvalues of a small symmetric matrix (cyclic Jacobi rotations). */
export function symmetricEigenvalues(matrix: readonly (readonly number[])[]): number[] {
  const n = matrix.length;
  const a = matrix.map((row) => [...row]);
  for (let sweep = 0; sweep < 100; sweep += 1) {
    let off = 0;
    for (let p = 0; p < n; p += 1) for (let q = p + 1; q < n; q += 1) off += a[p]![q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p += 1) {
      for (let q = p + 1; q < n; q += 1) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k += 1) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k += 1) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
      }
    }
  }
  return a.map((row, i) => row[i]!);
}

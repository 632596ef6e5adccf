import { DEFAULT_DETECT_OPTIONS, type ChangePoint } from './changepoints.js';

/**
 * A change point's p-value as text. A segmentation split's p-value is resampled:
 * 1 / (permutations + 1) is the least it can be, and every large step sits there, so it
 * reads "p ≤ 0.005", not as a measured 0.005. The other detectors' normal p-values read
 * "p < 0.001" when tiny.
 */
export function pValueText(cp: Pick<ChangePoint, 'detector' | 'pValue'>): string {
  const { permutations } = DEFAULT_DETECT_OPTIONS;
  const least = 1 / (permutations + 1);
  if (cp.detector === 'segmentation' && Math.abs(cp.pValue - least) < 1e-12) {
    return `p ≤ ${least.toFixed(3)} (none of ${permutations} permutations as large)`;
  }
  return cp.pValue < 0.001 ? 'p < 0.001' : `p ${cp.pValue.toFixed(3)}`;
}

import type { Comparison, Direction } from '../model.js';

/** A metric's row with no figure on either side: shown as `missing`, with why. */
export function notMeasuredRow(
  id: string,
  shape: { unit: string; direction: Direction },
  threshold: number | null,
  confidence: number,
  reason: string,
): Comparison {
  return {
    id,
    unit: shape.unit,
    direction: shape.direction,
    baseline: null,
    current: null,
    change: null,
    ci: null,
    method: 'none',
    confidence,
    threshold,
    verdict: 'missing',
    reason,
  };
}

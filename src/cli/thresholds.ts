import { METRIC_ID, METRIC_ID_ALLOWED, parseThreshold } from '../config/thresholds.js';
import { usageError } from '../errors.js';

/**
 * `--threshold throughput=3%` (or `default=8%`, `itl_p99=off`) flags; metrics without one
 * get the built-in threshold (thresholdOf).
 */
export function thresholdsFromFlags(flags: string[]): Record<string, number> {
  const thresholds: Record<string, number> = {};
  for (const flag of flags) {
    const equals = flag.indexOf('=');
    const metric = equals === -1 ? '' : flag.slice(0, equals).trim();
    const value = equals === -1 ? '' : flag.slice(equals + 1).trim();
    if (equals === -1) {
      throw usageError(`--threshold '${flag}': expected METRIC=VALUE, such as throughput=5%`);
    }
    if (!METRIC_ID.test(metric)) {
      throw usageError(
        `--threshold '${flag}': metric '${metric}' is not valid; ${METRIC_ID_ALLOWED}`,
      );
    }
    const parsed = parseThreshold(value);
    if (!parsed.ok) throw usageError(`--threshold '${flag}': found '${value}'; ${parsed.message}`);
    thresholds[metric] = parsed.fraction;
  }
  return thresholds;
}

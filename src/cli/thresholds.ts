import {
  METRIC_ID,
  METRIC_ID_ALLOWED,
  parseThreshold,
  splitThresholdLines,
} from '../config/thresholds.js';
import { usageError } from '../errors.js';
import type { FlagSpec, ParsedArgs } from './args.js';

/** `run` and `compare` take both spellings: `--threshold throughput=5%` and `--thresholds 'throughput: 5%'`. */
export const THRESHOLD_FLAGS: Record<'threshold' | 'thresholds', FlagSpec> = {
  threshold: { takes: 'many' },
  thresholds: { takes: 'many' },
};

/**
 * The thresholds given by `--threshold` and `--thresholds`, as the `thresholds` input
 * writes them (`metric: value` lines), or undefined when none was given. Each value may
 * hold several entries separated by commas or newlines, each `metric=value` or
 * `metric: value`; an unquoted `throughput: 5%` (two words) is one entry.
 */
export function thresholdText(args: ParsedArgs): string | undefined {
  const words = [...(args.flags.get('threshold') ?? []), ...(args.flags.get('thresholds') ?? [])];
  if (words.length === 0) return undefined;
  const lines: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    let word = words[i]!;
    // `--thresholds throughput: 5%` arrives as two words.
    if (/:\s*$/.test(word) && i + 1 < words.length) word += ` ${words[++i]!}`;
    for (const entry of word.split(/[,\n]/)) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      lines.push(trimmed.includes(':') ? trimmed : trimmed.replace('=', ': '));
    }
  }
  return lines.join('\n');
}

/**
 * `compare`'s thresholds as given (`default=8%` and `itl_p99=off` too); metrics without
 * one get the built-in threshold (thresholdOf).
 */
export function thresholdsFromFlags(text: string | undefined): Record<string, number> {
  const thresholds: Record<string, number> = {};
  const { entries, malformed } = splitThresholdLines(text ?? '');
  const [bad] = malformed;
  if (bad !== undefined) {
    throw usageError(
      `--threshold '${bad.text}': expected METRIC=VALUE or 'METRIC: VALUE', such as throughput=5%`,
    );
  }
  for (const { metric, value } of entries) {
    const flag = `${metric}=${value}`;
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

// Threshold syntax: `throughput: 5%`. Always written with %, because a bare 0.05 or 5
// could mean either; stored as a fraction (5% → 0.05).

import { LIMITS } from './defaults.js';
import { readPercent } from './percent.js';
import type { PercentResult } from './percent.js';

/** Metric ids are lower_snake, like the ids the parsers emit. */
export const METRIC_ID = /^[a-z][a-z0-9_]*$/;

export const METRIC_ID_ALLOWED =
  'allowed: a metric id in lower_snake_case such as throughput or latency_p95';

export const PERCENT_ALLOWED = `allowed: a percentage above 0% and at most ${LIMITS.thresholdPercent.max}%, such as 5% or 2.5%`;

const BARE_NUMBER =
  'a bare number is ambiguous (0.05 or 5?): write it with %, e.g. 5%; ' + PERCENT_ALLOWED;

/** `"5%"` → 0.05. Anything else gets the reason it is not a threshold. */
export function parsePercent(value: unknown): PercentResult {
  const read = readPercent(value);
  if (read.kind === 'bare-number') return { ok: false, message: BARE_NUMBER };
  if (read.kind === 'other') return { ok: false, message: PERCENT_ALLOWED };
  const { percent } = read;
  if (!(percent > 0) || percent > LIMITS.thresholdPercent.max) {
    return { ok: false, message: PERCENT_ALLOWED };
  }
  return { ok: true, fraction: percent / 100 };
}

export interface ThresholdLine {
  /** 1-based line of the input. */
  line: number;
  metric: string;
  value: string;
}

export interface ThresholdLinesResult {
  entries: ThresholdLine[];
  /** Entries that are not `metric: value`, with their 1-based line. */
  malformed: { line: number; text: string }[];
}

/**
 * Splits the `thresholds` input: one `metric: value` per line or comma separated; blank
 * lines and `#` comments are ignored. Values are checked later, by the schema.
 */
export function splitThresholdLines(text: string): ThresholdLinesResult {
  const result: ThresholdLinesResult = { entries: [], malformed: [] };
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.replace(/#.*$/, '');
    for (const part of line.split(',')) {
      const entry = part.trim();
      if (entry === '') continue;
      const colon = entry.indexOf(':');
      if (colon < 0) {
        result.malformed.push({ line: index + 1, text: entry });
        continue;
      }
      result.entries.push({
        line: index + 1,
        metric: entry.slice(0, colon).trim(),
        value: entry.slice(colon + 1).trim(),
      });
    }
  });
  return result;
}

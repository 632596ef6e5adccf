// Threshold syntax: `throughput: 5%`. Always written with %, because a bare 0.05 or 5
// could mean either; stored as a fraction (5% → 0.05).

import { LIMITS } from './defaults.js';
import { THRESHOLD_OFF } from './default-thresholds.js';
import { readPercent } from './percent.js';
import type { PercentResult } from './percent.js';

/**
 * Metric ids are lower_snake, like the ids the parsers emit: a lowercase or caseless letter
 * first, then such letters, digits and `_`. Letters of any script, so that a custom metric
 * named 延迟_p99 or latência keeps its name as its id.
 */
export const METRIC_ID = /^[\p{Ll}\p{Lo}\p{Lm}][\p{Ll}\p{Lo}\p{Lm}\p{M}\p{N}_]*$/u;

export const METRIC_ID_ALLOWED =
  'allowed: a metric id in lower_snake_case such as throughput or latency_p95';

export const PERCENT_ALLOWED = `allowed: a percentage above 0% and at most ${LIMITS.thresholdPercent.max}%, such as 5% or 2.5%`;

export const THRESHOLD_ALLOWED = `${PERCENT_ALLOWED}; or off (also none, 0%) to show the metric without gating it`;

/** Words that switch a metric's threshold off. YAML 1.1 readers turn a bare off into false. */
const OFF_WORDS = new Set(['off', 'none']);

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

/**
 * A threshold setting: `5%` → 0.05; `off`, `none` or `0%` → THRESHOLD_OFF (shown, not
 * gated). Anything else gets the reason it is not a threshold.
 */
export function parseThreshold(value: unknown): PercentResult {
  if (value === false) return { ok: true, fraction: THRESHOLD_OFF };
  if (typeof value === 'string' && OFF_WORDS.has(value.trim().toLowerCase())) {
    return { ok: true, fraction: THRESHOLD_OFF };
  }
  const read = readPercent(value);
  if (read.kind === 'percent' && read.percent === 0) return { ok: true, fraction: THRESHOLD_OFF };
  if (read.kind === 'bare-number') {
    return { ok: false, message: BARE_NUMBER.replace(PERCENT_ALLOWED, THRESHOLD_ALLOWED) };
  }
  const parsed = parsePercent(value);
  return parsed.ok ? parsed : { ok: false, message: THRESHOLD_ALLOWED };
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

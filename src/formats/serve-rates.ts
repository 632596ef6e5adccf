// The rates of a serving result in vLLM's keys: requests, output tokens and all tokens per
// second, and goodput. A file without request_throughput says less than `vllm bench serve`
// writes (vllm-ascend's serving files; SGLang's bench_serving 0.2.11 to 0.4.1.post7): its
// request rate is completed ÷ duration when it has both, as vLLM and SGLang compute it, and
// every rate it lacks is noted as not measured, so the report shows it missing, never drops it.

import type { ParsedMetric } from '../model.js';
import {
  measuredOrNoted,
  noteNotMeasured,
  requireNonNegative,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
import { rateDefinition, rateMetric, type MetricDefinition } from './metrics.js';

interface Rate extends MetricDefinition {
  /** vLLM's key for it. */
  key: string;
  /** What the figure counts, for error messages. */
  what: string;
}

const REQUEST_RATE: Rate = {
  ...rateDefinition('throughput', 'requests/s'),
  key: 'request_throughput',
  what: 'requests per second',
};

const TOKEN_RATES: readonly Rate[] = [
  {
    ...rateDefinition('tokens_per_second', 'tokens/s'),
    key: 'output_throughput',
    what: 'tokens per second',
  },
  {
    ...rateDefinition('total_tokens_per_second', 'tokens/s'),
    key: 'total_token_throughput',
    what: 'tokens per second',
  },
];

/** Older vLLM wrote this key with a trailing colon. */
const GOODPUT_KEYS = ['request_goodput', 'request_goodput:'] as const;

/** The name a vLLM key has in the file, for notes (SGLang's total_throughput). */
export type FileKeyName = (vllmKey: string) => string;

/**
 * The rates `root` gives, in metric order, with a note in `notes` for each one a file
 * without request_throughput lacks. A file with request_throughput is read as it always
 * was: a token rate its tool version did not write (SGLang's total_throughput before
 * November 2025) is left out there, not noted.
 */
export function serveRates(
  root: JsonObject,
  file: string,
  notes: NotMeasured,
  keyName: FileKeyName = (key) => key,
): ParsedMetric[] {
  const stated = root.request_throughput !== undefined;
  const metrics: ParsedMetric[] = [];
  const requests = stated
    ? readRate(REQUEST_RATE, root, file, notes)
    : derivedRequestRate(root, file);
  if (requests !== undefined)
    metrics.push(rateMetric(REQUEST_RATE.id, requests, REQUEST_RATE.unit));
  else if (!stated) noteNotMeasured(notes, REQUEST_RATE, requestRateNote(root, keyName));
  for (const rate of TOKEN_RATES) {
    const value = readRate(rate, root, file, notes);
    if (value !== undefined) metrics.push(rateMetric(rate.id, value, rate.unit));
    else if (!stated && root[rate.key] === undefined) {
      noteNotMeasured(notes, rate, `${keyName(rate.key)} is not in the file`);
    }
  }
  const goodput = goodputOf(root, file);
  if (goodput !== undefined) metrics.push(rateMetric('goodput', goodput, 'requests/s'));
  return metrics;
}

/** The rate at `rate.key`; undefined when missing, or NaN in the file (then noted). */
function readRate(
  rate: Rate,
  root: JsonObject,
  file: string,
  notes: NotMeasured,
): number | undefined {
  return measuredOrNoted(root[rate.key], file, rate.key, rate.what, rate, notes);
}

/** completed ÷ duration (requests per second), when both are there and duration is not 0. */
function derivedRequestRate(root: JsonObject, file: string): number | undefined {
  if (root.completed === undefined || root.duration === undefined) return undefined;
  const completed = requireNonNegative(root.completed, file, 'completed', 'successful requests');
  const duration = requireNonNegative(root.duration, file, 'duration', 'seconds');
  return duration > 0 ? completed / duration : undefined;
}

/** Why a file without request_throughput has no request rate. */
function requestRateNote(root: JsonObject, keyName: FileKeyName): string {
  const missing = ['completed', 'duration'].filter((key) => root[key] === undefined);
  const why =
    missing.length > 0
      ? `nor ${missing.join(' and ')} to compute it from (completed ÷ duration)`
      : 'and duration is 0, so completed ÷ duration has no value';
  return `${keyName(REQUEST_RATE.key)} is not in the file, ${why}`;
}

/** request_goodput when --goodput was given; null (not asked for) and missing are absent. */
function goodputOf(root: JsonObject, file: string): number | undefined {
  for (const key of GOODPUT_KEYS) {
    const value = root[key];
    if (value !== undefined && value !== null) {
      return requireNonNegative(value, file, key, 'requests per second');
    }
  }
  return undefined;
}

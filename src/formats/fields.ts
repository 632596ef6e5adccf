// Reading typed fields out of parsed JSON, with errors that say which file, which field
// (as a JSON path like `benchmarks[0].stats.ops`), what was found and what is expected.

import { inputError, type GateError } from '../errors.js';
import type { NotMeasuredNote } from '../model.js';
import { msDefinition, type MetricDefinition } from './metrics.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `parent.key`, or just `key` at the top level. */
export function fieldPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** A short description of a JSON value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  // Our JSON reader turns the NaN/Infinity tokens Neuron tools print into null.
  if (value === null) return 'null (NaN and Infinity in the file are read as null)';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length} item(s)`;
  return 'an object';
}

export function fieldError(
  file: string,
  path: string,
  found: unknown,
  expected: string,
): GateError {
  return inputError(
    file,
    `${path || 'the top level'} is ${describeValue(found)}; expected ${expected}`,
  );
}

export function requireObject(
  value: unknown,
  file: string,
  path: string,
  expected = 'an object',
): JsonObject {
  if (!isObject(value)) throw fieldError(file, path, value, expected);
  return value;
}

const NON_NEGATIVE = 'a finite number ≥ 0';

/** Metric id → why it is not measured (such as a NaN in the file), with its unit. */
export type NotMeasured = Record<string, NotMeasuredNote>;

/** Notes `metric` as not measured, for `reason`, with the unit and direction it has. */
export function noteNotMeasured(
  notes: NotMeasured,
  metric: MetricDefinition,
  reason: string,
): void {
  notes[metric.id] = { reason, unit: metric.unit, direction: metric.direction };
}

/**
 * A metric's figure that may be NaN or Infinity in the file (read as null, as Python's
 * json.dump writes a mean of nothing): undefined, with a note on `metric` in `notes`.
 * Missing is undefined without a note; anything else must be a finite number ≥ 0.
 */
export function measuredOrNoted(
  value: unknown,
  file: string,
  path: string,
  what: string,
  metric: MetricDefinition,
  notes: NotMeasured,
): number | undefined {
  return notedIfNull(value, path, metric, notes, () =>
    optionalNonNegative(value, file, path, what),
  );
}

/** Undefined with a note on `metric` when `value` is null (NaN in the file), else `read()`. */
function notedIfNull(
  value: unknown,
  path: string,
  metric: MetricDefinition,
  notes: NotMeasured,
  read: () => number | undefined,
): number | undefined {
  if (value !== null) return read();
  noteNotMeasured(notes, metric, nanNote(path));
  return undefined;
}

/** The note of a metric whose figure at `path` is NaN, Infinity or null. */
export function nanNote(path: string): string {
  return `${path} is NaN, Infinity or null in the file`;
}

/** Like measuredOrNoted for a number of seconds, given in ms: a time, lower is better. */
export function secondsAsMsOrNoted(
  value: unknown,
  file: string,
  path: string,
  id: string,
  notes: NotMeasured,
): number | undefined {
  return notedIfNull(value, path, msDefinition(id), notes, () =>
    optionalSecondsAsMs(value, file, path),
  );
}

/**
 * The note for an array of per-request figures that holds a NaN, Infinity or null (a
 * request the tool could not time): its values cannot be used, the metrics computed from
 * them are taken from elsewhere or not measured. Undefined when there is none.
 */
export function nanInArray(value: unknown, path: string): string | undefined {
  if (!Array.isArray(value)) return undefined;
  const index = value.indexOf(null);
  return index === -1 ? undefined : nanNote(`${path}[${index}]`);
}

/** A finite number ≥ 0; negative and non-finite values are measurement errors. */
export function requireNonNegative(value: unknown, file: string, path: string, what = ''): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw fieldError(file, path, value, what ? `${NON_NEGATIVE} (${what})` : NON_NEGATIVE);
  }
  return value;
}

/** Like requireNonNegative, but a missing field gives undefined. */
export function optionalNonNegative(
  value: unknown,
  file: string,
  path: string,
  what = '',
): number | undefined {
  return value === undefined ? undefined : requireNonNegative(value, file, path, what);
}

/** A non-empty array of finite numbers ≥ 0, such as per-request latencies. */
export function requireSampleArray(
  value: unknown,
  file: string,
  path: string,
  what: string,
): number[] {
  const expected = `a non-empty array of finite numbers ≥ 0 (${what})`;
  if (!Array.isArray(value) || value.length === 0) throw fieldError(file, path, value, expected);
  // A plain loop: these arrays can hold hundreds of thousands of values.
  for (let index = 0; index < value.length; index += 1) {
    const item: unknown = value[index];
    if (typeof item !== 'number' || !Number.isFinite(item) || item < 0) {
      throw fieldError(file, `${path}[${index}]`, item, `${NON_NEGATIVE} (${what})`);
    }
  }
  return value as number[];
}

export function secondsToMs(seconds: readonly number[]): number[] {
  return seconds.map((value) => value * 1000);
}

/** A number of seconds (finite, ≥ 0) as ms; an error when the ms would not be finite. */
export function requireSecondsAsMs(
  value: unknown,
  file: string,
  path: string,
  what = 'seconds',
): number {
  const ms = requireNonNegative(value, file, path, what) * 1000;
  if (!Number.isFinite(ms)) throw fieldError(file, path, value, `a plausible number of ${what}`);
  return ms;
}

/** Like requireSecondsAsMs, but a missing field gives undefined. */
export function optionalSecondsAsMs(
  value: unknown,
  file: string,
  path: string,
  what = 'seconds',
): number | undefined {
  return value === undefined ? undefined : requireSecondsAsMs(value, file, path, what);
}

/** requireSampleArray of seconds, converted to ms; an error when a value overflows. */
export function requireSecondsSamplesAsMs(
  value: unknown,
  file: string,
  path: string,
  what: string,
): number[] {
  const seconds = requireSampleArray(value, file, path, what);
  const ms = secondsToMs(seconds);
  const overflow = ms.findIndex((item) => !Number.isFinite(item));
  if (overflow !== -1) {
    throw fieldError(
      file,
      `${path}[${overflow}]`,
      seconds[overflow],
      `a plausible number of ${what}`,
    );
  }
  return ms;
}

/** An array (possibly empty) of finite numbers ≥ 0. */
export function requireNumberArray(
  value: unknown,
  file: string,
  path: string,
  what: string,
): number[] {
  if (!Array.isArray(value)) {
    throw fieldError(file, path, value, `an array of finite numbers ≥ 0 (${what})`);
  }
  return value.length === 0 ? [] : requireSampleArray(value, file, path, what);
}

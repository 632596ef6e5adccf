// github-action-benchmark's custom JSON: `[{name, value, unit, range?, extra?}]`, one
// metric per entry, all of one benchmark. The file does not say whether bigger or smaller
// is better, so there are two formats and 'auto' never picks one.
//
// Metric ids: the entry's name in lower_snake — camelCase and acronyms split at their
// capitals, lowercased, every run of characters other than letters (of any script) and
// digits becomes one `_`, leading and trailing `_` dropped, and `m_` put in front when the
// result starts with a digit ("Tokens/s" → tokens_s, "P95 Latency (ms)" → p95_latency_ms,
// "firstTokenMs" → first_token_ms, "2x speed" → m_2x_speed, "延迟 P99" → 延迟_p99,
// "Задержка" → задержка). The id depends on the name alone, so it matches the baseline
// run after run; the name as written is kept for the report. Two names with the same id
// are an error.

import { inputError } from '../errors.js';
import type { Direction, ParsedBenchmark, ParsedMetric } from '../model.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  requireNonNegative,
  type NotMeasured,
  requireObject,
  requireSampleArray,
} from './fields.js';
import type { ResultFormat } from './types.js';

const SHAPE = 'an array of {name, value, unit} objects (github-action-benchmark custom format)';

function customFormat(id: string, direction: Direction): ResultFormat {
  return {
    id,
    description: `github-action-benchmark custom JSON [{name, value, unit}], ${direction.replace(/-/g, ' ')}`,
    detect: (data) =>
      Array.isArray(data) &&
      data.length > 0 &&
      data.every(
        (entry) => isObject(entry) && 'name' in entry && 'value' in entry && 'unit' in entry,
      )
        ? 'a top-level array of {name, value, unit} objects'
        : undefined,
    parse: (data, file) => parseCustom(data, file, direction),
    autoDetect: false,
  };
}

export const customBiggerIsBetterFormat = customFormat(
  'custom-bigger-is-better',
  'higher-is-better',
);
export const customSmallerIsBetterFormat = customFormat(
  'custom-smaller-is-better',
  'lower-is-better',
);

/** The metric id of a github-action-benchmark entry name; '' when it has no letter or digit. */
export function customMetricId(name: string): string {
  const snake = name
    // One spelling of "é" (composed), whichever the file used.
    .normalize('NFC')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    // Letters without a lowercase form (𝐀) are separators too: an id has no capitals.
    .replace(/[^\p{Ll}\p{Lo}\p{Lm}\p{M}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  // An id starts with a letter; a mark or digit first gets a prefix.
  return snake !== '' && !/^[\p{Ll}\p{Lo}\p{Lm}]/u.test(snake) ? `m_${snake}` : snake;
}

function parseCustom(data: unknown, file: string, direction: Direction): ParsedBenchmark[] {
  if (!Array.isArray(data)) throw fieldError(file, '', data, SHAPE);
  if (data.length === 0)
    throw inputError(file, `the top level is an empty array; expected ${SHAPE}`);
  const entries: unknown[] = data;
  const firstById = new Map<string, { index: number; name: string }>();
  const details: Record<string, unknown> = {};
  const notes: NotMeasured = {};
  const read = entries.map((entry, index): ParsedMetric | undefined => {
    const path = `[${index}]`;
    const object = requireObject(entry, file, path, 'an object with name, value and unit');
    const name = object.name;
    if (typeof name !== 'string' || name.trim() === '') {
      throw fieldError(file, `${path}.name`, name, 'a non-empty string (the metric name)');
    }
    const id = customMetricId(name);
    if (id === '') {
      throw fieldError(
        file,
        `${path}.name`,
        name,
        'a name with at least one letter or digit to make a metric id',
      );
    }
    const earlier = firstById.get(id);
    if (earlier) {
      throw inputError(
        file,
        `${path}.name ${JSON.stringify(name)} and [${earlier.index}].name ${JSON.stringify(earlier.name)} ` +
          `both become the metric id ${id}; rename one of them`,
      );
    }
    firstById.set(id, { index, name });
    const unit = object.unit;
    if (typeof unit !== 'string')
      throw fieldError(file, `${path}.unit`, unit, 'a string such as "ms" or "ops/s"');
    const value = measuredOrNoted(
      object.value,
      file,
      `${path}.value`,
      unit,
      { id, unit, direction },
      notes,
    );
    if (value === undefined) {
      if (notes[id] === undefined) requireNonNegative(object.value, file, `${path}.value`);
      return undefined;
    }
    const metric: ParsedMetric = { id, unit, direction, value };
    if (object.samples !== undefined) {
      metric.samples = requireSampleArray(
        object.samples,
        file,
        `${path}.samples`,
        `values in ${unit || 'the metric unit'}`,
      );
    }
    const extra: Record<string, unknown> = {};
    if (id !== name) extra.name = name;
    for (const key of ['range', 'extra']) {
      if (object[key] !== undefined && object[key] !== null) extra[key] = object[key];
    }
    if (Object.keys(extra).length > 0) details[id] = extra;
    return metric;
  });
  const metrics = read.filter((metric) => metric !== undefined);
  const benchmark: ParsedBenchmark = { metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  if (Object.keys(details).length > 0) benchmark.info = { metrics: details };
  return [benchmark];
}

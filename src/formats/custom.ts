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
  nanNote,
  noteNotMeasured,
  type JsonObject,
  type NotMeasured,
  requireObject,
  requireSampleArray,
} from './fields.js';
import { statedSpread } from './stated-spread.js';
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
    negativeValues: true,
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
  const objects = entries.map((entry, index) =>
    requireObject(entry, file, `[${index}]`, 'an object with name, value and unit'),
  );
  const repeated = repeatedNameIds(objects, file);
  const read = objects.map((object, index): ParsedMetric | undefined => {
    const path = `[${index}]`;
    const name = object.name as string;
    const same = repeated.get(customMetricId(name));
    const id = same ? qualifiedId(objects, index, same, file) : customMetricId(name);
    const earlier = firstById.get(id);
    if (earlier) {
      throw inputError(
        file,
        `${path} and [${earlier.index}] (${JSON.stringify(earlier.name)}) both become the metric ` +
          `id ${id}, even with their extra; give one another name or another extra`,
      );
    }
    firstById.set(id, { index, name });
    const unit = object.unit;
    if (typeof unit !== 'string')
      throw fieldError(file, `${path}.unit`, unit, 'a string such as "ms" or "ops/s"');
    const value = finiteOrNoted(
      object.value,
      file,
      `${path}.value`,
      { id, unit, direction },
      notes,
    );
    if (value === undefined) return undefined;
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
    if (repeated.has(customMetricId(name)))
      extra.id = 'the name with its extra: the file repeats the name';
    for (const key of ['range', 'extra']) {
      if (object[key] !== undefined && object[key] !== null) extra[key] = object[key];
    }
    // Relative to the value in its own unit, before any conversion between the sides.
    const spread = statedSpread(object.range, value, unit);
    if (spread !== undefined) extra.spread = spread;
    // The id this entry has in a file that repeats (or does not repeat) its name: a run
    // with one test of several still meets its baseline (compare/custom-ids.ts).
    if (typeof object.extra === 'string' && customMetricId(object.extra) !== '') {
      extra.alias = same ? customMetricId(name) : customMetricId(`${name} ${object.extra}`);
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

/**
 * The ids of names the file gives more than once (otel-arrow's `dropped_logs_total`, once
 * per test, told apart by `extra`: "CI 100kLRPS/OTAP-ATTR-OTLP - Dropped Log Count").
 * Every entry of such a name takes its extra into its id, whatever the order of the entries.
 */
function repeatedNameIds(objects: JsonObject[], file: string): Map<string, number[]> {
  const seen = new Map<string, number[]>();
  objects.forEach((object, index) => {
    const name = object.name;
    if (typeof name !== 'string' || name.trim() === '') {
      throw fieldError(file, `[${index}].name`, name, 'a non-empty string (the metric name)');
    }
    const id = customMetricId(name);
    if (id === '') {
      throw fieldError(
        file,
        `[${index}].name`,
        name,
        'a name with at least one letter or digit to make a metric id',
      );
    }
    seen.set(id, [...(seen.get(id) ?? []), index]);
  });
  return new Map([...seen].filter(([, indices]) => indices.length > 1));
}

/** The id of a repeated name: the name and its entry's extra (a string that tells it apart). */
function qualifiedId(objects: JsonObject[], index: number, same: number[], file: string): string {
  const { name, extra } = objects[index]!;
  if (typeof extra !== 'string' || customMetricId(extra) === '') {
    const other = same.find((i) => i !== index)!;
    throw inputError(
      file,
      `[${index}].name ${JSON.stringify(name)} and [${other}].name ${JSON.stringify(objects[other]!.name)} ` +
        `both become the metric id ${customMetricId(name as string)}, and [${index}] has no extra ` +
        'text to tell them apart; rename one, or give each an extra',
    );
  }
  return customMetricId(`${name as string} ${extra}`);
}

/**
 * The entry's value: any finite number (github-action-benchmark takes negative ones, such
 * as a delta; the gate shows them, and judges no relative change of one), or a note
 * when it is null.
 */
function finiteOrNoted(
  value: unknown,
  file: string,
  path: string,
  metric: { id: string; unit: string; direction: Direction },
  notes: NotMeasured,
): number | undefined {
  if (value === null) {
    noteNotMeasured(notes, metric, nanNote(path));
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw fieldError(file, path, value, 'a finite number');
  }
  return value;
}

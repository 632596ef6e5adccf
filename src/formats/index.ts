// The registry of result formats: one module per format, found by id or by the shape of
// the file. To add a format, write its module and list it in FORMATS.

import { GateError, inputError, usageError } from '../errors.js';
import type { ParsedBenchmark } from '../model.js';
import { describeValue, isObject } from './fields.js';
import { parseJsonText, readTextFile } from './json.js';
import { offlineBenchmarkFormat } from './offline-benchmark.js';
import { pytestBenchmarkFormat } from './pytest-benchmark.js';
import type { ResultFormat } from './types.js';

export type { ResultFormat } from './types.js';

/** The format value that asks for detection from the file's shape. */
export const AUTO_FORMAT = 'auto';

export const FORMATS: readonly ResultFormat[] = [offlineBenchmarkFormat, pytestBenchmarkFormat];

export interface ParsedResultFile {
  /** The id of the format that parsed the file (the detected one for 'auto'). */
  format: string;
  benchmarks: ParsedBenchmark[];
}

export function formatIds(): string[] {
  return FORMATS.map((format) => format.id);
}

export function findFormat(id: string): ResultFormat | undefined {
  return FORMATS.find((format) => format.id === id);
}

/** The one format whose shape `data` has; an input error when none or several match. */
export function detectFormat(data: unknown, file: string): ResultFormat {
  const matches = FORMATS.filter((format) => format.detect(data));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw unknownShapeError(data, file);
  throw inputError(
    file,
    `matches more than one result format (${matches.map((format) => format.id).join(', ')}); ` +
      'set the format explicitly to the one the benchmark writes.',
  );
}

/** Parses the content of a result file; `format` is a format id or 'auto'. */
export function parseResultText(text: string, file: string, format: string): ParsedResultFile {
  const chosen = resolveFormat(format);
  const data = parseJsonText(text, file);
  if (chosen === undefined) {
    const detected = detectFormat(data, file);
    return { format: detected.id, benchmarks: detected.parse(data, file) };
  }
  try {
    return { format: chosen.id, benchmarks: chosen.parse(data, file) };
  } catch (error) {
    throw withFormatHint(error, chosen, data, file);
  }
}

/** Reads and parses a result file; `format` is a format id or 'auto'. */
export async function parseResultFile(path: string, format: string): Promise<ParsedResultFile> {
  // Check the format first, so a typo is reported even when the file is missing too.
  resolveFormat(format);
  return parseResultText(await readTextFile(path), path, format);
}

/** The format for `id`, undefined for 'auto'; a usage error listing valid ids otherwise. */
function resolveFormat(id: string): ResultFormat | undefined {
  if (id === AUTO_FORMAT) return undefined;
  const format = findFormat(id);
  if (format === undefined) throw unknownFormatId(id);
  return format;
}

/** When the configured format is wrong but the file has another one's shape, say so. */
function withFormatHint(
  error: unknown,
  chosen: ResultFormat,
  data: unknown,
  file: string,
): unknown {
  if (!(error instanceof GateError) || error.kind !== 'input') return error;
  const others = FORMATS.filter((format) => format !== chosen && format.detect(data));
  if (others.length !== 1) return error;
  const other = others[0]!.id;
  return new GateError(
    'input',
    `${error.message}. The file looks like ${other} output, not ${chosen.id}: set the format to ${other} (or auto).`,
    file,
  );
}

function unknownFormatId(id: string): GateError {
  return usageError(
    `unknown result format ${JSON.stringify(id)}; expected one of: ${[AUTO_FORMAT, ...formatIds()].join(', ')}`,
  );
}

function unknownShapeError(data: unknown, file: string): GateError {
  const known = FORMATS.map((format) => `${format.id} — ${format.description}`).join('; ');
  return inputError(
    file,
    `does not look like any known result format: ${shapeOf(data)}. Known formats: ${known}. ` +
      'Set the format explicitly if the file is one of these, or make the benchmark write one of them.',
  );
}

function shapeOf(data: unknown): string {
  if (Array.isArray(data)) return `the top level is an array of ${data.length} item(s)`;
  if (!isObject(data)) return `the top level is ${describeValue(data)}`;
  const keys = Object.keys(data);
  if (keys.length === 0) return 'the top level is an empty object';
  const shown = keys.slice(0, 20).join(', ');
  const more = keys.length > 20 ? ` and ${keys.length - 20} more` : '';
  return `top-level keys found: ${shown}${more}`;
}

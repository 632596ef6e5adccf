// The registry of result formats: one module per format, found by id or by the shape of
// the file. To add a format, write its module and list it in FORMATS.

import { GateError, inputError, usageError } from '../errors.js';
import type { ParsedBenchmark, SampleRun, WarmupRule } from '../model.js';
import { lookalikeError } from './defining-keys.js';
import { describeValue, isObject } from './fields.js';
import { customBiggerIsBetterFormat, customSmallerIsBetterFormat } from './custom.js';
import { guidellmFormat } from './guidellm.js';
import { parseJsonDocuments, type JsonDocuments } from './json-lines.js';
import { readJsonDocumentsInChunks } from './json-stream.js';
import { MISSING_RESULT_FILE, readTextFile } from './json.js';
import { nxdiBenchmarkReportFormat } from './nxdi-benchmark-report.js';
import { offlineBenchmarkFormat } from './offline-benchmark.js';
import { optimumNeuronBenchmarkFormat } from './optimum-neuron-benchmark.js';
import { pytestBenchmarkFormat } from './pytest-benchmark.js';
import { nameRunsBySettings, withoutEmptyRuns } from './run-settings.js';
import type { ResultFormat } from './types.js';
import { vllmBenchLatencyFormat } from './vllm-bench-latency.js';
import { sweepSummaryRuns, vllmBenchServeFormat } from './vllm-bench-serve.js';
import { sglangBenchServingFormat } from './sglang-bench-serving.js';
import { vllmBenchThroughputFormat } from './vllm-bench-throughput.js';

export type { ResultFormat } from './types.js';

/** The format value that asks for detection from the file's shape. */
export const AUTO_FORMAT = 'auto';

export const FORMATS: readonly ResultFormat[] = [
  offlineBenchmarkFormat,
  pytestBenchmarkFormat,
  vllmBenchServeFormat,
  sglangBenchServingFormat,
  vllmBenchThroughputFormat,
  vllmBenchLatencyFormat,
  nxdiBenchmarkReportFormat,
  guidellmFormat,
  optimumNeuronBenchmarkFormat,
  customBiggerIsBetterFormat,
  customSmallerIsBetterFormat,
];

export interface ParsedResultFile {
  /** The id of the format that parsed the file (the detected one for 'auto'). */
  format: string;
  /** The benchmarks of the file's first run: all of them, unless the file holds several runs. */
  benchmarks: ParsedBenchmark[];
  /**
   * One entry per run the file holds, in file order: one for most formats, one per line
   * for JSON Lines files (`vllm bench serve --append-result`). runs[0] is `benchmarks`.
   */
  runs: ParsedBenchmark[][];
}

export function formatIds(): string[] {
  return FORMATS.map((format) => format.id);
}

export function findFormat(id: string): ResultFormat | undefined {
  return FORMATS.find((format) => format.id === id);
}

/** Whether `id` is a format of a benchmark against an inference server (ResultFormat.serving). */
export function isServingFormat(id: string): boolean {
  return findFormat(id)?.serving === true;
}

/**
 * The one format whose shape `data` has; an input error naming the candidates and the
 * keys that decided when several match, or the shape found when none does.
 */
export function detectFormat(data: unknown, file: string): ResultFormat {
  const matches = FORMATS.flatMap((format) => {
    const reason = format.detect(data);
    return reason === undefined ? [] : [{ format, reason }];
  });
  const only = matches[0];
  if (matches.length === 1 && only && only.format.autoDetect !== false) return only.format;
  if (matches.length === 0) throw unknownShapeError(data, file);
  const candidates = matches.map(({ format, reason }) => `${format.id} (${reason})`).join(', ');
  if (matches.every(({ format }) => format.autoDetect === false)) {
    throw inputError(
      file,
      `has the shape of ${candidates}, and the file does not say which: ` +
        `set the format to one of ${matches.map(({ format }) => format.id).join(' or ')} instead of auto.`,
    );
  }
  throw inputError(
    file,
    `matches more than one result format: ${candidates}; ` +
      'set the format explicitly to the one the benchmark writes.',
  );
}

/** Parses the content of a result file; `format` is a format id or 'auto'. */
export function parseResultText(text: string, file: string, format: string): ParsedResultFile {
  return parseResultDocuments(parseJsonDocuments(text, file), file, format);
}

/**
 * The JSON documents of a result file, read in chunks without holding its text, the
 * values of keys no parser reads (unusedKeys) left out; a file that is not plainly valid
 * is read as text, which says where it is broken.
 */
export async function readResultDocuments(
  path: string,
  format: string,
  missing?: string,
): Promise<JsonDocuments> {
  const chosen = resolveFormat(format);
  const skipped = new Set((chosen ? [chosen] : FORMATS).flatMap((f) => f.unusedKeys ?? []));
  return (
    readJsonDocumentsInChunks(path, skipped) ??
    parseJsonDocuments(await readTextFile(path, missing), path)
  );
}

/** Parses the documents of a result file; `format` is a format id or 'auto'. */
export function parseResultDocuments(
  { documents: read, lines }: JsonDocuments,
  file: string,
  format: string,
  options: { nameBySettings?: boolean; warmup?: WarmupRule } = {},
): ParsedResultFile {
  const chosen = resolveFormat(format);
  // A vllm bench sweep combination's summary.json: its runs, as --append-result lines are.
  const sweep = chosen === undefined || chosen === vllmBenchServeFormat;
  const sweepRuns = sweep && read.length === 1 ? sweepSummaryRuns(read[0]) : undefined;
  const documents: readonly unknown[] = sweepRuns ?? read;
  const first = documents[0];
  const used = sweepRuns ? vllmBenchServeFormat : (chosen ?? detectFormat(first, file));
  if (lines !== undefined && !used.jsonLines) throw notJsonLinesError(used, lines.length, file);
  const runs = documents.map((data, index) => {
    const line = lines?.[index];
    try {
      if (line !== undefined && chosen === undefined && used.detect(data) === undefined) {
        throw inputError(
          file,
          `does not have the shape of ${used.id} output that line ${lines![0]} has; ` +
            'expected every line to be a result of the same benchmark tool',
        );
      }
      if (options.warmup) return parsedWithoutWarmup(used, data, file, options.warmup);
      return checkedBenchmarks(used.parse(data, file), file, used.negativeValues === true);
    } catch (error) {
      const hinted = chosen ? withFormatHint(error, chosen, data, file) : error;
      throw line === undefined ? hinted : onLine(hinted, line, file);
    }
  });
  const named =
    (lines !== undefined || sweepRuns) && used.runSettings && options.nameBySettings !== false
      ? withoutEmptyRuns(nameRunsBySettings(runs, used.runSettings))
      : runs;
  return { format: used.id, benchmarks: named[0] ?? [], runs: named };
}

/** Reads and parses the result file a benchmark run wrote; `format` is a format id or 'auto'. */
export async function parseResultFile(
  path: string,
  format: string,
  warmup?: WarmupRule,
): Promise<ParsedResultFile> {
  // Check the format first, so a typo is reported even when the file is missing too.
  resolveFormat(format);
  return parseResultDocuments(
    await readResultDocuments(path, format, MISSING_RESULT_FILE),
    path,
    format,
    warmup ? { warmup } : {},
  );
}

/** A run parsed without its warm-up requests (`warmup:`), each benchmark told what was cut. */
function parsedWithoutWarmup(
  used: ResultFormat,
  data: unknown,
  file: string,
  rule: WarmupRule,
): ParsedBenchmark[] {
  if (!used.excludeWarmup) {
    throw inputError(
      file,
      `warmup: cuts requests of a serving result that lists them (vllm-bench-serve with --save-detailed); ${used.id} output does not. Remove warmup: from the benchmark entry.`,
    );
  }
  const cut = used.excludeWarmup(data, rule, file);
  const parsed = checkedBenchmarks(used.parse(cut.data, file), file, used.negativeValues === true);
  return parsed.map((benchmark) => ({ ...benchmark, warmup: cut.run }));
}

/** The format for `id`, undefined for 'auto'; a usage error listing valid ids otherwise. */
export function resolveFormat(id: string): ResultFormat | undefined {
  if (id === AUTO_FORMAT) return undefined;
  const format = findFormat(id);
  if (format === undefined) throw unknownFormatId(id);
  return format;
}

/**
 * A last check that a parser returned usable figures: finite values and samples, and no
 * negative time. Parsers validate their fields; this catches what arithmetic on valid
 * fields can still do (a huge number of seconds overflowing as ms).
 */
function checkedBenchmarks(
  benchmarks: ParsedBenchmark[],
  file: string,
  negativeValues: boolean,
): ParsedBenchmark[] {
  // A metric that is NaN is not measured; a file with nothing measured at all is refused.
  if (benchmarks.length > 0 && benchmarks.every((benchmark) => benchmark.metrics.length === 0)) {
    const why = benchmarks.flatMap((benchmark) =>
      Object.values(benchmark.notMeasured ?? {}).map((note) => note.reason),
    );
    throw inputError(
      file,
      `has no usable metric${why.length > 0 ? `: ${why.join('; ')}` : ''}. ` +
        'Check the benchmark output for why it measured nothing.',
    );
  }
  for (const benchmark of benchmarks) {
    for (const metric of benchmark.metrics) {
      const where = `${benchmark.name === undefined ? '' : `benchmark ${JSON.stringify(benchmark.name)}, `}metric ${metric.id}`;
      const negativeTime = (value: number) => metric.unit === 'ms' && value < 0 && !negativeValues;
      const bad = [metric.value, ...outOfRange(metric.samples ?? [], metric.unit)].find(
        (value) => !Number.isFinite(value) || negativeTime(value),
      );
      if (bad !== undefined) {
        throw inputError(
          file,
          `${where} comes out as ${bad}; expected a finite number${metric.unit === 'ms' ? ' ≥ 0' : ''}. ` +
            'The figures it is computed from are out of range.',
        );
      }
    }
  }
  return benchmarks;
}

/** The first sample that is not finite (or negative for a time), in a plain loop. */
function outOfRange(samples: SampleRun, unit: string): number[] {
  for (let index = 0; index < samples.length; index += 1) {
    const value = samples[index]!;
    if (!Number.isFinite(value) || (unit === 'ms' && value < 0)) return [value];
  }
  return [];
}

function notJsonLinesError(format: ResultFormat, count: number, file: string): GateError {
  const multi = FORMATS.filter((candidate) => candidate.jsonLines).map((candidate) => candidate.id);
  return inputError(
    file,
    `holds ${count} JSON documents, one per line (JSON Lines), but ${format.id} writes one JSON ` +
      `document per file. Only ${multi.join(', ')} can append runs to one file; ` +
      'write one result file per run instead.',
  );
}

/** Says which line of a JSON Lines file an input error is about. */
function onLine(error: unknown, line: number, file: string): unknown {
  if (!(error instanceof GateError) || error.kind !== 'input') return error;
  const prefix = `${file}: `;
  const message = error.message.startsWith(prefix)
    ? error.message.slice(prefix.length)
    : error.message;
  return inputError(file, `line ${line}: ${message}`);
}

/** When the configured format is wrong but the file has another one's shape, say so. */
function withFormatHint(
  error: unknown,
  chosen: ResultFormat,
  data: unknown,
  file: string,
): unknown {
  if (!(error instanceof GateError) || error.kind !== 'input') return error;
  const others = FORMATS.filter(
    (format) =>
      format !== chosen && format.autoDetect !== false && format.detect(data) !== undefined,
  );
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
  const neighbour = neighbourOf(data);
  if (neighbour) {
    return inputError(
      file,
      `is ${neighbour}, which neuron-perf-gate does not read. Write the figures to gate as ` +
        'github-action-benchmark custom JSON ([{"name": ..., "unit": ..., "value": ...}], ' +
        'format: custom-smaller-is-better or custom-bigger-is-better), or run vllm bench serve ' +
        'or guidellm, whose files it reads.',
    );
  }
  // Some of a format's defining keys but not all: name those it lacks.
  const lookalike = lookalikeError(FORMATS, data, file);
  if (lookalike) return lookalike;
  const known = FORMATS.map((format) => `${format.id} — ${format.description}`).join('; ');
  return inputError(
    file,
    `does not look like any known result format: ${shapeOf(data)}. Known formats: ${known}. ` +
      'Set the format explicitly if the file is one of these, or make the benchmark write one of them.',
  );
}

/**
 * Result files of tools often run beside vLLM that the gate does not read, named so the
 * error says what the file is: NVIDIA genai-perf and its successor AIPerf
 * (profile_export_genai_perf.json: each metric an object of unit, avg, p50…p99) and
 * LLMPerf's summary (results_<metric>_quantiles_p50, results_<metric>_mean) and
 * inference-perf's lifecycle report (load_summary, successes, failures).
 */
function neighbourOf(data: unknown): string | undefined {
  if (!isObject(data)) return undefined;
  const stat = (key: string) => {
    const value = data[key];
    return isObject(value) && 'unit' in value && ('avg' in value || 'p99' in value);
  };
  if (stat('request_latency') || stat('time_to_first_token') || stat('request_throughput')) {
    return 'a genai-perf or AIPerf profile export (metrics as {unit, avg, p50 … p99})';
  }
  if (Object.keys(data).some((key) => /^results_.+_(quantiles_p\d+|mean)$/.test(key))) {
    return 'an LLMPerf summary (results_<metric>_quantiles_p<P>, results_<metric>_mean)';
  }
  if (isObject(data.successes) && isObject(data.load_summary)) {
    return 'an inference-perf lifecycle report (load_summary, successes, failures)';
  }
  return undefined;
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

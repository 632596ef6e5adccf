// NxD Inference `inference_demo ... --benchmark` (benchmark_report.json): one section per
// model part (e2e_model, context_encoding_model, token_generation_model, and optionally
// speculation_model, medusa_speculation_model, vision_encoder_model), any of them null.
// Each section holds latency_ms_p50 p90 p95 p99 p100 avg and a nominal token throughput.

import { inputError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
import {
  latencyMeanMetric,
  latencyPercentileMetric,
  msDefinition,
  rateDefinition,
  throughputMetric,
} from './metrics.js';
import type { ResultFormat } from './types.js';

/** The sections NxDI writes; any other object with latency_ms_* keys is read too. */
const KNOWN_SECTIONS = [
  'e2e_model',
  'context_encoding_model',
  'token_generation_model',
  'speculation_model',
  'medusa_speculation_model',
  'vision_encoder_model',
];

const PERCENTILE_KEY = /^latency_ms_p(\d{1,3})$/;

export const nxdiBenchmarkReportFormat: ResultFormat = {
  id: 'nxdi-benchmark-report',
  description:
    'NxD Inference benchmark_report.json (e2e_model, context_encoding_model, ... with latency_ms_p50..p100)',
  detect: (data) => {
    if (!isObject(data)) return undefined;
    const section = Object.keys(data).find((key) => isSection(data[key]));
    if (section !== undefined) return `a top-level ${section} object with latency_ms_* keys`;
    // Every section null: still this format, so the parser can say what it found.
    const known = KNOWN_SECTIONS.filter((key) => key in data);
    return known.length > 0 && known.every((key) => data[key] === null)
      ? `top-level ${known.join(', ')} (all null)`
      : undefined;
  },
  parse: parseNxdiBenchmarkReport,
};

function isSection(value: unknown): value is JsonObject {
  return isObject(value) && Object.keys(value).some((key) => key.startsWith('latency_ms_'));
}

function parseNxdiBenchmarkReport(data: unknown, file: string): ParsedBenchmark[] {
  if (!isObject(data)) {
    throw fieldError(file, '', data, 'an object with one section per model part (e2e_model, ...)');
  }
  const benchmarks: ParsedBenchmark[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (isSection(value)) {
      benchmarks.push({ name: key, ...sectionMetrics(value, file, key) });
    } else if (KNOWN_SECTIONS.includes(key) && value !== null) {
      throw fieldError(file, key, value, 'an object of latency_ms_* figures, or null');
    }
  }
  if (benchmarks.length === 0) {
    const nulls = KNOWN_SECTIONS.filter((key) => key in data && data[key] === null);
    const found =
      nulls.length > 0
        ? `looks like an NxD Inference benchmark_report.json, but every section in it is ` +
          `null (${nulls.join(', ')} all null), so it has no benchmark section with figures`
        : 'has no benchmark section: expected at least one of ' +
          `${KNOWN_SECTIONS.join(', ')} as an object with latency_ms_* keys`;
    throw inputError(
      file,
      `${found}. Check that inference_demo ran with --benchmark and finished, and use the ` +
        'benchmark_report.json of a run that measured at least one model part.',
    );
  }
  return benchmarks;
}

function sectionMetrics(
  section: JsonObject,
  file: string,
  path: string,
): Pick<ParsedBenchmark, 'metrics' | 'notMeasured'> {
  const metrics: ParsedMetric[] = [];
  const notes: NotMeasured = {};
  const throughput = measuredOrNoted(
    section.throughput,
    file,
    `${path}.throughput`,
    'tokens per second',
    rateDefinition('throughput', 'tokens/s'),
    notes,
  );
  if (throughput !== undefined) metrics.push(throughputMetric(throughput, 'tokens/s'));
  const percentiles = Object.keys(section)
    .map((key) => ({ key, p: Number(PERCENTILE_KEY.exec(key)?.[1] ?? Number.NaN) }))
    .filter(({ p }) => p >= 0 && p <= 100)
    .sort((a, b) => a.p - b.p);
  for (const { key, p } of percentiles) {
    const id = `latency_p${p}`;
    const value = measuredOrNoted(
      section[key],
      file,
      `${path}.${key}`,
      'ms',
      msDefinition(id),
      notes,
    );
    if (value !== undefined) metrics.push(latencyPercentileMetric(p, value));
  }
  const mean = measuredOrNoted(
    section.latency_ms_avg,
    file,
    `${path}.latency_ms_avg`,
    'ms',
    msDefinition('latency_mean'),
    notes,
  );
  if (mean !== undefined) metrics.push(latencyMeanMetric(mean));
  if (metrics.length === 0 && Object.keys(notes).length === 0) {
    throw fieldError(
      file,
      `${path}.latency_ms_p50`,
      undefined,
      'latency figures in ms (latency_ms_p50, ..., latency_ms_avg) or throughput',
    );
  }
  return Object.keys(notes).length > 0 ? { metrics, notMeasured: notes } : { metrics };
}

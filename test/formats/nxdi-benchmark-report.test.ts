import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import {
  caughtGateError,
  expectInputError,
  fixtureJson,
  fixturePath,
  metricIds,
  metricOf,
  msNote,
  rejectedGateError,
} from './support.js';

const FORMAT = 'nxdi-benchmark-report';

describe('nxdi-benchmark-report', () => {
  it('makes one benchmark per section, named by its key', async () => {
    const result = await parseResultFile(
      fixturePath('nxdi-benchmark-report/reference.json'),
      FORMAT,
    );
    expect(result.benchmarks.map((b) => b.name)).toEqual([
      'e2e_model',
      'context_encoding_model',
      'token_generation_model',
    ]);
    const tokenGen = result.benchmarks[2];
    expect(metricIds(tokenGen)).toEqual([
      'throughput',
      'latency_p50',
      'latency_p90',
      'latency_p95',
      'latency_p99',
      'latency_p100',
      'latency_mean',
    ]);
    expect(metricOf(tokenGen, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'tokens/s',
      direction: 'higher-is-better',
      value: 147.22298324644066,
    });
    expect(metricOf(tokenGen, 'latency_p90')).toEqual({
      id: 'latency_p90',
      unit: 'ms',
      direction: 'lower-is-better',
      value: 27.295589447021484,
      percentile: 90,
    });
    expect(metricOf(tokenGen, 'latency_mean').value).toBe(27.19622969277793);
  });

  it('skips null sections and reads any other section with latency_ms_* keys', async () => {
    const result = await parseResultFile(
      fixturePath('nxdi-benchmark-report/null-sections.json'),
      'auto',
    );
    expect(result.format).toBe(FORMAT);
    expect(result.benchmarks.map((b) => b.name)).toEqual([
      'context_encoding_model',
      'token_generation_model',
      'fused_speculation_model',
    ]);
    const fused = result.benchmarks[2];
    // Only the figures the section has: no throughput, no P90/P95.
    expect(metricIds(fused)).toEqual(['latency_p50', 'latency_p99', 'latency_mean']);
  });

  it.each([FORMAT, 'auto'])(
    'rejects a report whose sections are all null, saying what it found (%s)',
    async (format) => {
      const path = fixturePath('nxdi-benchmark-report/all-null.json');
      const error = await rejectedGateError(parseResultFile(path, format));
      expectInputError(
        error,
        path,
        'looks like an NxD Inference benchmark_report.json, but every section in it is null',
        'all null',
        '--benchmark',
      );
    },
  );

  it('reads a NaN figure as not measured, keeping the rest of the section', () => {
    const data = JSON.parse(readFileSync(fixturePath(`${FORMAT}/reference.json`), 'utf8'));
    const text = JSON.stringify(data).replace(
      /"latency_ms_p99":\s*[0-9.]+/,
      '"latency_ms_p99": NaN',
    );
    const [e2e] = parseResultText(text, 'report.json', 'auto').benchmarks;
    expect(e2e?.metrics.map((m) => m.id)).not.toContain('latency_p99');
    expect(e2e?.metrics.map((m) => m.id)).toContain('latency_p50');
    expect(e2e?.notMeasured).toEqual({
      latency_p99: msNote('e2e_model.latency_ms_p99 is NaN, Infinity or null in the file'),
    });
  });

  it.each([
    [
      'a latency as a string',
      (d: Record<string, Record<string, unknown>>) => (d.e2e_model!.latency_ms_p95 = 'x'),
      'e2e_model.latency_ms_p95 is the string "x"',
    ],
    [
      'a section as a number',
      (d: Record<string, unknown>) => (d.token_generation_model = 3),
      'token_generation_model is 3',
    ],
  ])('names the field: %s', (_label, edit, fragment) => {
    const data = fixtureJson<Record<string, Record<string, unknown>>>(
      'nxdi-benchmark-report/reference.json',
    );
    edit(data);
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'r.json', FORMAT));
    expectInputError(error, 'r.json', fragment);
  });
});

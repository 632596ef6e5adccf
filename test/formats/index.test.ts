import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  findFormat,
  FORMATS,
  formatIds,
  parseResultFile,
  parseResultText,
} from '../../src/formats/index.js';
import { parseJsonText } from '../../src/formats/json.js';
import { caughtGateError, expectInputError, fixturePath, rejectedGateError } from './support.js';

function readFixture(name: string): unknown {
  return JSON.parse(readFileSync(fixturePath(name), 'utf8'));
}

describe('the format registry', () => {
  it('lists every format once, by id', () => {
    expect(formatIds()).toEqual([
      'offline-benchmark',
      'pytest-benchmark',
      'vllm-bench-serve',
      'sglang-bench-serving',
      'vllm-bench-throughput',
      'vllm-bench-latency',
      'nxdi-benchmark-report',
      'guidellm',
      'optimum-neuron-benchmark',
      'custom-bigger-is-better',
      'custom-smaller-is-better',
    ]);
    expect(new Set(formatIds()).size).toBe(FORMATS.length);
    expect(findFormat('pytest-benchmark')?.id).toBe('pytest-benchmark');
    expect(findFormat('auto')).toBeUndefined();
  });

  it('rejects an unknown format id with a usage error listing the valid ones', () => {
    const error = caughtGateError(() => parseResultText('{}', 'r.json', 'nxdi-benchmark'));
    expect(error.kind).toBe('usage');
    expect(error.message).toContain('unknown result format "nxdi-benchmark"');
    expect(error.message).toContain('auto, offline-benchmark, pytest-benchmark');
  });

  it('reports an unknown format id before a missing file', async () => {
    const error = await rejectedGateError(parseResultFile('/nonexistent/r.json', 'json'));
    expect(error.kind).toBe('usage');
  });

  it('reports a missing result file as an input error', async () => {
    const error = await rejectedGateError(parseResultFile('/nonexistent/r.json', 'auto'));
    expectInputError(error, '/nonexistent/r.json', 'not found');
  });
});

describe('auto-detection', () => {
  it.each([
    ['offline-benchmark/reference.json', 'offline-benchmark'],
    ['offline-benchmark/no-raw-times.json', 'offline-benchmark'],
    ['offline-benchmark/no-throughput-ratio.json', 'offline-benchmark'],
    ['offline-benchmark/nan-tokens.json', 'offline-benchmark'],
    ['pytest-benchmark/reference.json', 'pytest-benchmark'],
    ['pytest-benchmark/no-data.json', 'pytest-benchmark'],
    ['pytest-benchmark/parametrized.json', 'pytest-benchmark'],
    ['pytest-benchmark/empty-benchmarks.json', 'pytest-benchmark'],
    ['vllm-bench-serve/reference.json', 'vllm-bench-serve'],
    ['vllm-bench-serve/keys-default-percentiles.json', 'vllm-bench-serve'],
    ['vllm-bench-serve/old-goodput-colon.json', 'vllm-bench-serve'],
    ['vllm-bench-serve/detailed.json', 'vllm-bench-serve'],
    ['vllm-bench-throughput/reference.json', 'vllm-bench-throughput'],
    ['vllm-bench-latency/reference.json', 'vllm-bench-latency'],
    ['vllm-bench-latency/no-latencies.json', 'vllm-bench-latency'],
    ['nxdi-benchmark-report/reference.json', 'nxdi-benchmark-report'],
    ['nxdi-benchmark-report/null-sections.json', 'nxdi-benchmark-report'],
    ['guidellm/skeleton.json', 'guidellm'],
    ['guidellm/several-benchmarks.json', 'guidellm'],
    ['guidellm/no-metadata-args-strategy.json', 'guidellm'],
  ])('detects %s as %s', async (name, id) => {
    const path = fixturePath(name);
    const data = parseJsonText(readFileSync(path, 'utf8'), path);
    expect(detectFormat(data, path).id).toBe(id);
    if (!name.includes('empty')) {
      const auto = await parseResultFile(path, 'auto');
      expect(auto).toEqual(await parseResultFile(path, id));
    }
  });

  it('detects pytest-benchmark entries with fullname and stats without machine_info', () => {
    const data = { benchmarks: [{ fullname: 't.py::test_a', stats: { ops: 1, median: 1 } }] };
    expect(detectFormat(data, 'r.json').id).toBe('pytest-benchmark');
  });

  it.each([
    'not-ours/neuron-ls.json',
    'not-ours/neuron-profile-summary.json',
    'not-ours/offline-benchmark-sweep-config.json',
    'not-ours/benchmark-capture-metadata.json',
    'not-ours/genai-perf-profile-export.json',
    'not-ours/llmperf-summary.json',
    'not-ours/inference-perf-lifecycle-metrics.json',
  ])('claims no format for %s', (name) => {
    const data = readFixture(name);
    expect(FORMATS.filter((format) => format.detect(data) !== undefined)).toEqual([]);
  });

  it.each([
    ['not-ours/genai-perf-profile-export.json', 'is a genai-perf or AIPerf profile export'],
    ['not-ours/llmperf-summary.json', 'is an LLMPerf summary'],
    ['not-ours/inference-perf-lifecycle-metrics.json', 'is an inference-perf lifecycle report'],
  ])('names %s as the tool that wrote it', async (name, what) => {
    const path = fixturePath(name);
    const error = await rejectedGateError(parseResultFile(path, 'auto'));
    expectInputError(
      error,
      path,
      what,
      'which neuron-perf-gate does not read',
      'custom-smaller-is-better',
    );
  });

  it('detects every format’s fixtures as that format only', () => {
    for (const format of FORMATS) {
      const dir = format.id.startsWith('custom-') ? 'custom' : format.id;
      for (const name of readdirSync(fixturePath(dir)).filter((n) => n.endsWith('.json'))) {
        const path = fixturePath(`${dir}/${name}`);
        const data = parseJsonText(readFileSync(path, 'utf8'), path);
        const matching = FORMATS.filter((other) => other.detect(data) !== undefined).map(
          (f) => f.id,
        );
        const expected =
          dir === 'custom' ? ['custom-bigger-is-better', 'custom-smaller-is-better'] : [format.id];
        expect(matching, `${dir}/${name}`).toEqual(expected);
      }
    }
  });

  it('lists the known formats and the top-level keys found for an unknown shape', async () => {
    const path = fixturePath('broken/unknown-shape.json');
    const error = await rejectedGateError(parseResultFile(path, 'auto'));
    expectInputError(
      error,
      path,
      'does not look like any known result format',
      'top-level keys found: elapsed_seconds, items, status',
      'offline-benchmark',
      'pytest-benchmark',
    );
  });

  it('describes a top-level array', async () => {
    const path = fixturePath('broken/top-level-array.json');
    const error = await rejectedGateError(parseResultFile(path, 'auto'));
    expectInputError(error, path, 'the top level is an array of 2 item(s)', 'pytest-benchmark');
  });

  it('names the candidates when a file matches more than one format', () => {
    const data = {
      raw_times: [0.1],
      machine_info: {},
      benchmarks: [{ fullname: 't', stats: {} }],
    };
    const error = caughtGateError(() => detectFormat(data, 'both.json'));
    expectInputError(
      error,
      'both.json',
      'matches more than one result format: offline-benchmark (a top-level raw_times array), ' +
        'pytest-benchmark (benchmarks[].stats beside a top-level machine_info)',
    );
  });

  it('passes JSON errors through before detection', async () => {
    const path = fixturePath('broken/empty.json');
    const error = await rejectedGateError(parseResultFile(path, 'auto'));
    expectInputError(error, path, 'is empty: the benchmark wrote nothing');
  });
});

describe('an explicit format that does not fit the file', () => {
  it('says which format the file looks like', async () => {
    const path = fixturePath('pytest-benchmark/reference.json');
    const error = await rejectedGateError(parseResultFile(path, 'offline-benchmark'));
    expectInputError(
      error,
      path,
      'metrics is missing',
      'looks like pytest-benchmark output, not offline-benchmark',
    );
  });

  it('adds no hint when the file fits no other format', () => {
    const error = caughtGateError(() => parseResultText('{"a": 1}', 'r.json', 'pytest-benchmark'));
    expectInputError(error, 'r.json', 'benchmarks is missing');
    expect(error.message).not.toContain('looks like');
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { customMetricId } from '../../src/formats/custom.js';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import {
  caughtGateError,
  expectInputError,
  fixturePath,
  metricIds,
  metricOf,
  rejectedGateError,
} from './support.js';

const WITH_SAMPLES = fixturePath('custom/with-samples.json');

describe('custom-bigger-is-better and custom-smaller-is-better', () => {
  it('turns each entry into a metric of one unnamed benchmark, direction from the format', async () => {
    for (const [format, direction] of [
      ['custom-bigger-is-better', 'higher-is-better'],
      ['custom-smaller-is-better', 'lower-is-better'],
    ] as const) {
      const result = await parseResultFile(WITH_SAMPLES, format);
      expect(result.format).toBe(format);
      expect(result.benchmarks).toHaveLength(1);
      const [benchmark] = result.benchmarks;
      expect(benchmark!.name).toBeUndefined();
      expect(metricIds(benchmark)).toEqual([
        'tokens_per_second',
        'request_throughput',
        'p95_latency_ms',
      ]);
      expect(metricOf(benchmark, 'tokens_per_second')).toEqual({
        id: 'tokens_per_second',
        unit: 'tokens/s',
        direction,
        value: 912.1,
        samples: [905.0, 912.1, 919.3],
      });
      expect(metricOf(benchmark, 'p95_latency_ms').samples).toBeUndefined();
      expect(benchmark!.info).toEqual({
        metrics: {
          tokens_per_second: { name: 'Tokens per second' },
          request_throughput: {
            name: 'requestThroughput',
            range: '± 0.02',
            // The range as a relative SD of the value (2.375 requests/s): stated-spread.ts.
            spread: 0.02 / 2.375,
            extra: '3 runs',
            alias: 'request_throughput_3_runs',
          },
          p95_latency_ms: { name: 'P95 latency (ms)' },
        },
      });
    }
  });

  it.each([
    ['Tokens/s', 'tokens_s'],
    ['P95 Latency (ms)', 'p95_latency_ms'],
    ['firstTokenMs', 'first_token_ms'],
    ['HTTPServer RPS', 'http_server_rps'],
    ['  already_snake  ', 'already_snake'],
    ['2x speed', 'm_2x_speed'],
    ['Durée', 'durée'],
    // The same name written with a combining accent gets the same id.
    ['Dure\u0301e', 'durée'],
    ['latência', 'latência'],
    ['延迟_p99', '延迟_p99'],
    ['吞吐量 (tokens/s)', '吞吐量_tokens_s'],
    ['Задержка P99', 'задержка_p99'],
    ['99 перцентиль', 'm_99_перцентиль'],
    ['𝐀bc', 'bc'],
    ['—', ''],
  ])('metric id of %j is %j', (name, id) => {
    expect(customMetricId(name)).toBe(id);
  });

  it('rejects two names with the same id, naming both', async () => {
    const path = fixturePath('custom/name-collision.json');
    const error = await rejectedGateError(parseResultFile(path, 'custom-smaller-is-better'));
    expectInputError(
      error,
      path,
      '[0].name "Tokens/s" and [2].name "tokens_s" both become the metric id tokens_s',
      'has no extra text to tell them apart',
    );
  });

  it('is recognised by auto but not chosen: the user must pick the direction', async () => {
    const error = await rejectedGateError(parseResultFile(WITH_SAMPLES, 'auto'));
    expectInputError(
      error,
      WITH_SAMPLES,
      'custom-bigger-is-better (a top-level array of {name, value, unit} objects)',
      'set the format to one of custom-bigger-is-better or custom-smaller-is-better instead of auto',
    );
  });

  it.each([
    ['[{"name": "a", "unit": "ms", "value": "1"}]', '[0].value is the string "1"'],
    [
      '[{"name": "a", "unit": "ms", "value": 1}, {"name": "", "unit": "ms", "value": 1}]',
      '[1].name is the string ""',
    ],
    [
      '[{"name": "%%", "unit": "ms", "value": 1}]',
      '[0].name is the string "%%"',
      'at least one letter or digit',
    ],
    ['[{"name": "a", "value": 1}]', '[0].unit is missing'],
    ['[{"name": "a", "unit": "ms", "value": 1, "samples": [1, null]}]', '[0].samples[1] is null'],
    ['[3]', '[0] is 3'],
    ['[]', 'the top level is an empty array'],
    ['{"name": "a"}', 'the top level is an object'],
  ])('names the field of %s', (text, ...fragments) => {
    const error = caughtGateError(() => parseResultText(text, 'c.json', 'custom-bigger-is-better'));
    expectInputError(error, 'c.json', ...fragments);
  });
});

describe('custom: real github-action-benchmark files', () => {
  it('tells repeated names apart by their extra, whatever their order, and says so', async () => {
    const path = fixturePath('custom/repeated-names-extra.json');
    const { benchmarks } = await parseResultFile(path, 'custom-smaller-is-better');
    const ids = benchmarks[0]!.metrics.map((m) => m.id);
    expect(ids).toEqual([
      'dropped_logs_total_ci_100k_lrps_otap_attr_otlp_dropped_log_count',
      'cpu_percentage_avg_ci_100k_lrps_otap_attr_otlp_cpu_percentage',
      'dropped_logs_total_ci_100k_lrps_otlp_attr_otlp_dropped_log_count',
      'cpu_percentage_avg_ci_100k_lrps_otlp_attr_otlp_cpu_percentage',
      'memory_delta_mib',
    ]);
    const info = benchmarks[0]!.info as { metrics: Record<string, { id?: string }> };
    expect(info.metrics[ids[0]!]!.id).toBe('the name with its extra: the file repeats the name');
    // The same entries in another order keep their ids.
    const entries = JSON.parse(readFileSync(path, 'utf8')) as unknown[];
    const reversed = parseResultText(
      JSON.stringify(entries.reverse()),
      'r.json',
      'custom-smaller-is-better',
    );
    expect(reversed.benchmarks[0]!.metrics.map((m) => m.id).sort()).toEqual([...ids].sort());
  });

  it('reads a negative value (a delta) and judges no relative change of it', async () => {
    const path = fixturePath('custom/repeated-names-extra.json');
    const { benchmarks } = await parseResultFile(path, 'custom-smaller-is-better');
    expect(benchmarks[0]!.metrics.find((m) => m.id === 'memory_delta_mib')!.value).toBe(-12.5);
  });

  it('reads a negative time too (a latency delta in ms), as github-action-benchmark does', () => {
    const entries = [{ name: 'p99 delta', unit: 'ms', value: -3.5 }];
    const { benchmarks } = parseResultText(
      JSON.stringify(entries),
      'd.json',
      'custom-smaller-is-better',
    );
    expect(benchmarks[0]!.metrics[0]!.value).toBe(-3.5);
  });
});

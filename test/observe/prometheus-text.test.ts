// The Prometheus text parser and the server's view computed from scrapes: vLLM's own
// exposition (comments, labels, histograms, counters with _total), exemplars, NaN and
// ±Inf, escaped label values, garbage; and the deltas of two scrapes with peaks between.
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleSum } from '../../src/observe/prometheus-text.js';
import { serverViewOf } from '../../src/observe/server-view.js';
import { serverViewMetrics } from '../../src/observe/server-view-metrics.js';
import type { RunOutcome, ServerView } from '../../src/model.js';

const LABELS = 'model_name="Qwen/Qwen3-0.6B",engine="0"';

/** A page as vLLM's prometheus_client writes it, with the figures given. */
function vllmPage(figures: {
  queueSum: number;
  queueCount: number;
  preemptions: number;
  hits: number;
  queries: number;
  kv: number;
  waiting: number;
}): string {
  return [
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting{${LABELS}} ${figures.waiting.toFixed(1)}`,
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc{${LABELS}} ${figures.kv}`,
    '# TYPE vllm:num_preemptions counter',
    `vllm:num_preemptions_total{${LABELS}} ${figures.preemptions.toFixed(1)}`,
    '# TYPE vllm:prefix_cache_queries counter',
    `vllm:prefix_cache_queries_total{${LABELS}} ${figures.queries.toFixed(1)}`,
    '# TYPE vllm:prefix_cache_hits counter',
    `vllm:prefix_cache_hits_total{${LABELS}} ${figures.hits.toFixed(1)}`,
    '# TYPE vllm:request_queue_time_seconds histogram',
    `vllm:request_queue_time_seconds_bucket{${LABELS},le="0.3"} 1.0`,
    `vllm:request_queue_time_seconds_bucket{${LABELS},le="+Inf"} ${figures.queueCount.toFixed(1)}`,
    `vllm:request_queue_time_seconds_count{${LABELS}} ${figures.queueCount.toFixed(1)}`,
    `vllm:request_queue_time_seconds_sum{${LABELS}} ${figures.queueSum}`,
    '',
  ].join('\n');
}

describe('parsePrometheusText', () => {
  it("reads vLLM's samples with their labels and the families' types, skipping comments", () => {
    const page = parsePrometheusText(
      vllmPage({
        queueSum: 1.5,
        queueCount: 3,
        preemptions: 2,
        hits: 64,
        queries: 512,
        kv: 0.25,
        waiting: 4,
      }),
    );
    expect(page.unreadLines).toBe(0);
    expect(page.types['vllm:num_preemptions']).toBe('counter');
    expect(page.types['vllm:request_queue_time_seconds']).toBe('histogram');
    expect(sampleSum(page, 'vllm:num_preemptions_total')).toBe(2);
    const bucket = page.samples.find(
      (s) => s.name === 'vllm:request_queue_time_seconds_bucket' && s.labels.le === '+Inf',
    );
    expect(bucket).toEqual({
      name: 'vllm:request_queue_time_seconds_bucket',
      labels: { model_name: 'Qwen/Qwen3-0.6B', engine: '0', le: '+Inf' },
      value: 3,
    });
  });

  it('reads NaN, ±Inf, exponents, timestamps, exemplars and escaped label values', () => {
    const page = parsePrometheusText(
      [
        'a NaN',
        'b +Inf',
        'c -Inf 1700000000000',
        'd{x="q\\"uote\\\\ and \\n, } too"} 1.5e-3',
        'e_total{engine="0"} 7 # {trace_id="abc"} 1.0 1700000000.000',
        'f{} 2',
      ].join('\n'),
    );
    expect(page.unreadLines).toBe(0);
    const value = (name: string) => page.samples.find((s) => s.name === name)?.value;
    expect(value('a')).toBeNaN();
    expect(value('b')).toBe(Number.POSITIVE_INFINITY);
    expect(value('c')).toBe(Number.NEGATIVE_INFINITY);
    expect(value('d')).toBe(0.0015);
    expect(page.samples.find((s) => s.name === 'd')?.labels.x).toBe('q"uote\\ and \n, } too');
    expect(value('e_total')).toBe(7);
    expect(value('f')).toBe(2);
  });

  it('counts what is not a sample instead of throwing: HTML, broken labels, words as values', () => {
    const page = parsePrometheusText(
      '<html><body>Not Found</body></html>\nx{a="1" 2\ny{a=1} 3\nz ten\n{a="1"} 4\n',
    );
    expect(page.samples).toEqual([]);
    expect(page.unreadLines).toBe(5);
  });

  it('sums a metric over its label sets (one series per engine)', () => {
    const page = parsePrometheusText('m{engine="0"} 2\nm{engine="1"} 3\nn 1\n');
    expect(sampleSum(page, 'm')).toBe(5);
    expect(sampleSum(page, 'absent')).toBeUndefined();
  });
});

describe('serverViewOf', () => {
  const base = {
    queueSum: 10,
    queueCount: 20,
    preemptions: 5,
    hits: 100,
    queries: 1000,
    kv: 0.1,
    waiting: 0,
  };
  const page = (change: Partial<typeof base>) =>
    parsePrometheusText(vllmPage({ ...base, ...change }));

  it("takes the counters' and histograms' deltas and the gauges' peaks over every scrape", () => {
    const view = serverViewOf(
      page({}),
      [page({ kv: 0.62, waiting: 7 }), page({ kv: 0.4, waiting: 2 })],
      page({ queueSum: 16, queueCount: 32, preemptions: 8, hits: 356, queries: 3048, kv: 0.05 }),
    );
    expect(view).toEqual({
      scraped: true,
      requests: 12,
      queueTimeMean: 0.5,
      preemptions: 3,
      kvCacheUsagePeak: 62,
      prefixCacheHitRate: 12.5,
      waitingPeak: 7,
      samples: 4,
    });
  });

  it('gives no delta for a counter that went down (the server restarted) nor a rate of nothing', () => {
    const view = serverViewOf(page({}), [], page({ preemptions: 1, queries: 1000 }));
    expect(view.scraped && view.preemptions).toBeUndefined();
    expect(view.scraped && view.prefixCacheHitRate).toBeUndefined();
    expect(view.scraped && view.queueTimeMean).toBeUndefined();
  });
});

describe('serverViewMetrics', () => {
  const run = (index: number, serverView?: ServerView) =>
    ({ index, kind: 'clean', ok: true, ...(serverView ? { serverView } : {}) }) as RunOutcome;
  const seen = (queueTimeMean: number, preemptions: number): ServerView => ({
    scraped: true,
    queueTimeMean,
    preemptions,
    kvCacheUsagePeak: 40,
    waitingPeak: 3,
    samples: 5,
  });

  it('makes a metric of each figure every clean run has, one value per run', () => {
    const { metrics, warnings } = serverViewMetrics([run(1, seen(0.25, 0)), run(2, seen(0.5, 2))]);
    expect(warnings).toEqual([]);
    expect(metrics.map((m) => [m.id, m.unit, m.direction, m.values])).toEqual([
      ['server_queue_time', 's', 'lower-is-better', [0.25, 0.5]],
      ['server_preemptions', 'preemptions', 'lower-is-better', [0, 2]],
      ['kv_cache_usage_peak', '%', 'lower-is-better', [40, 40]],
      ['server_waiting_peak', 'requests', 'lower-is-better', [3, 3]],
    ]);
  });

  it('says why when a run was not scraped, and makes no metric of the others alone', () => {
    const { metrics, warnings } = serverViewMetrics([
      run(1, seen(0.25, 0)),
      run(2, { scraped: false, reason: 'http://127.0.0.1:8000/metrics answered HTTP 404' }),
    ]);
    expect(metrics).toEqual([]);
    expect(warnings).toEqual([
      "the server's /metrics was not scraped in clean run 2, so the server's view is missing: http://127.0.0.1:8000/metrics answered HTTP 404",
    ]);
    expect(serverViewMetrics([run(1), run(2)])).toEqual({ metrics: [], warnings: [] });
  });
});

// GET /metrics of the simulated `vllm serve`: vLLM's V1 Prometheus names, types, labels and
// buckets, as vllm/v1/metrics/loggers.py (PrometheusStatLogger) defines them: gauges
// vllm:num_requests_running, vllm:num_requests_waiting and vllm:kv_cache_usage_perc (0–1);
// counters vllm:num_preemptions, vllm:prefix_cache_queries, vllm:prefix_cache_hits,
// vllm:request_success (exposed with prometheus_client's `_total` suffix); histograms
// vllm:time_to_first_token_seconds, vllm:request_queue_time_seconds and
// vllm:e2e_request_latency_seconds (_bucket, _sum, _count). Labels model_name and engine.
// Times are simulated seconds, as the latency model gives them.

const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
  40.0, 80.0, 160.0, 640.0, 2560.0,
];
const REQUEST_LATENCY_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
  480.0, 960.0, 1920.0, 7680.0,
];

/** A Prometheus histogram: cumulative bucket counts, sum and count. */
function histogram(bounds) {
  const counts = new Array(bounds.length).fill(0);
  let sum = 0;
  let count = 0;
  return {
    observe(value) {
      sum += value;
      count += 1;
      for (const [i, bound] of bounds.entries()) if (value <= bound) counts[i] += 1;
    },
    lines(name, labels) {
      return [
        ...bounds.map(
          (bound, i) => `${name}_bucket{${labels},le="${number(bound)}"} ${number(counts[i])}`,
        ),
        `${name}_bucket{${labels},le="+Inf"} ${number(count)}`,
        `${name}_count{${labels}} ${number(count)}`,
        `${name}_sum{${labels}} ${number(sum)}`,
      ];
    },
  };
}

/** As Python's repr of a float, which prometheus_client prints: 3.0, 0.25. */
function number(value) {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** The server's request-level figures, observed as requests go. */
export function createServeMetrics() {
  return {
    ttft: histogram(TTFT_BUCKETS),
    queueTime: histogram(REQUEST_LATENCY_BUCKETS),
    e2e: histogram(REQUEST_LATENCY_BUCKETS),
    succeeded: 0,
  };
}

/** The exposition text of /metrics (Prometheus text format 0.0.4). */
export function metricsText({ modelName, scheduler, kv, metrics }) {
  const labels = `model_name="${modelName.replace(/["\\\n]/g, '_')}",engine="0"`;
  const family = (name, type, help, lines) => [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...lines,
  ];
  const single = (name, value) => [`${name}{${labels}} ${number(value)}`];
  return [
    ...family(
      'vllm:num_requests_running',
      'gauge',
      'Number of requests in model execution batches.',
      single('vllm:num_requests_running', scheduler.running()),
    ),
    ...family(
      'vllm:num_requests_waiting',
      'gauge',
      'Number of requests waiting to be processed.',
      single('vllm:num_requests_waiting', scheduler.waiting()),
    ),
    ...family(
      'vllm:kv_cache_usage_perc',
      'gauge',
      'KV-cache usage. 1 means 100 percent usage.',
      single('vllm:kv_cache_usage_perc', kv.usage()),
    ),
    ...family(
      'vllm:num_preemptions',
      'counter',
      'Cumulative number of preemption from the engine.',
      single('vllm:num_preemptions_total', scheduler.stats.preemptions),
    ),
    ...family(
      'vllm:prefix_cache_queries',
      'counter',
      'Prefix cache queries, in terms of number of queried tokens.',
      single('vllm:prefix_cache_queries_total', kv.stats.queries),
    ),
    ...family(
      'vllm:prefix_cache_hits',
      'counter',
      'Prefix cache hits, in terms of number of cached tokens.',
      single('vllm:prefix_cache_hits_total', kv.stats.hits),
    ),
    ...family('vllm:request_success', 'counter', 'Count of successfully processed requests.', [
      `vllm:request_success_total{${labels},finished_reason="length"} ${number(metrics.succeeded)}`,
    ]),
    ...family(
      'vllm:time_to_first_token_seconds',
      'histogram',
      'Histogram of time to first token in seconds.',
      metrics.ttft.lines('vllm:time_to_first_token_seconds', labels),
    ),
    ...family(
      'vllm:request_queue_time_seconds',
      'histogram',
      'Histogram of time spent in WAITING phase for request.',
      metrics.queueTime.lines('vllm:request_queue_time_seconds', labels),
    ),
    ...family(
      'vllm:e2e_request_latency_seconds',
      'histogram',
      'Histogram of e2e request latency in seconds.',
      metrics.e2e.lines('vllm:e2e_request_latency_seconds', labels),
    ),
    '',
  ].join('\n');
}

// The threshold every metric gets when the config does not give one: each metric a
// benchmark reports is gated unless switched off. docs/thresholds.md shows this table;
// a test checks that every metric of every format has a row there.
//
// Config values: `thresholds: { latency_p99: 20%, default: 8%, itl_p99: off }`. A metric
// listed by id wins; `default` is the threshold of every metric the config does not list;
// without either, the built-in rules below apply. `off` is stored as 0.

/** The config key whose value applies to every metric the config does not list. */
export const DEFAULT_KEY = 'default';

/** The stored value of `off` (also written `none`, `0%`): the metric is shown, not gated. */
export const THRESHOLD_OFF = 0;

export interface DefaultThresholdRule {
  /** What the rule covers, for docs/thresholds.md. */
  metrics: string;
  /** Whether the rule covers metric `id` of a result in `format`. */
  matches(id: string, format: string): boolean;
  /** Fraction (0.05 = 5%), or null: not gated by default. */
  threshold: number | null;
  why: string;
}

/** `latency_p99` → 99, `ttft_p99_9` → 99.9, `latency_p100` → 100; undefined when not a percentile. */
export function percentileOfId(id: string): number | undefined {
  const match = /_p(\d{1,3})(?:_(\d+))?$/.exec(id);
  if (!match) return undefined;
  return Number(match[2] === undefined ? match[1] : `${match[1]}.${match[2]}`);
}

const RATES = new Set(['throughput', 'tokens_per_second', 'total_tokens_per_second', 'goodput']);

const percentileIn =
  (above: number, upTo: number) =>
  (id: string): boolean => {
    const p = percentileOfId(id);
    return p !== undefined && p > above && p <= upTo;
  };

/**
 * The server's own figures from its /metrics (observe/server-view-metrics.ts), in the order
 * the report's line shows them: one list for the names, the defaults and the report.
 */
export const SERVER_VIEW_IDS: readonly string[] = [
  'server_queue_time',
  'server_ttft_mean',
  'server_preemptions',
  'kv_cache_usage_peak',
  'prefix_cache_hit_rate',
  'server_waiting_peak',
];

/** First match wins. */
export const DEFAULT_THRESHOLD_RULES: readonly DefaultThresholdRule[] = Object.freeze([
  {
    metrics: 'capacity (from `slo:` and a sweep)',
    matches: (id) => id === 'capacity',
    threshold: 0.05,
    why:
      'the crossing lies where latency climbs with load, so run-to-run noise moves it less ' +
      'than the latency (bench:capacity: 3% latency noise, 0.8–1.6% capacity noise); a 10% loss fails',
  },
  {
    metrics: 'slo_attainment (from `slo:`)',
    matches: (id) => id === 'slo_attainment',
    threshold: 0.05,
    why: 'a share of all requests of the run, as stable as the rates',
  },
  {
    metrics: 'pytest-benchmark latency_p95, latency_p99',
    matches: (id, format) =>
      format === 'pytest-benchmark' && (id === 'latency_p95' || id === 'latency_p99'),
    threshold: null,
    why:
      'rounds of a micro-benchmark are not independent requests: their tail is timer, GC and ' +
      'scheduler noise; min, median, mean and ops are gated instead',
  },
  {
    metrics: 'every entry of a custom file (custom-bigger-is-better, custom-smaller-is-better)',
    matches: (_id, format) => format.startsWith('custom-'),
    threshold: 0.1,
    why:
      "the file says nothing about its metrics; github-action-benchmark's users expect every " +
      'metric to alert, and 10% is above the run-to-run noise of most benchmarks',
  },
  {
    metrics: 'throughput, tokens_per_second, total_tokens_per_second, goodput',
    matches: (id) => RATES.has(id),
    threshold: 0.05,
    why: 'rates are averages over the whole run and move little between clean runs',
  },
  {
    metrics: 'cost_per_million_tokens, cost_per_million_requests',
    matches: (id) => id === 'cost_per_million_tokens' || id === 'cost_per_million_requests',
    threshold: null,
    why:
      'shown, gated only when given a threshold: the inverse of a rate that is gated already ' +
      '(derive/cost.ts), so a slowdown would fail twice and spend the false-alarm budget twice, ' +
      'and a new price would be a step in the history',
  },
  {
    metrics: 'mfu',
    matches: (id) => id === 'mfu',
    threshold: 0.1,
    why: 'one profiled run, no interval',
  },
  {
    metrics: 'server_startup',
    matches: (id) => id === 'server_startup',
    threshold: 0.15,
    why:
      'one value per clean start; the restarts are judged against the stored restarts, the ' +
      'first start (a cold page cache, 5–30% slower) against the stored first starts, one a ' +
      'gate run; 2 restarts of CV 4% on a host sometimes 2–6% slower find a 25% slower start ' +
      "83% of the time in one look, 97% with the action's confirmation restarts while it is " +
      'undecided (bench:accuracy every-metric), and fail no unchanged one; a start that ' +
      'lost the Neuron compile cache is several times slower',
  },
  {
    metrics: 'benchmark_startup (from `startup:`)',
    matches: (id) => id === 'benchmark_startup',
    threshold: 0.15,
    why:
      'one start per clean run, so the runs give an interval; a start moves with the disk and ' +
      "page cache more than the measured loop does, and PyTorch's dashboard gates compile-bound " +
      'latency at 1.15× too',
  },
  {
    metrics: 'cold_startup (from `startup: { cold: true }`)',
    matches: (id) => id === 'cold_startup',
    threshold: 0.25,
    why:
      'one cold start per gate run, no interval; compiling every graph ' +
      'dominates it, so an SDK that compiles much slower fails here on a warm runner too',
  },
  {
    metrics: 'cold_compile_time (from `startup: { cold: true }`)',
    matches: (id) => id === 'cold_compile_time',
    threshold: null,
    why: 'shown: it is part of cold_startup, which is gated (gating both would spend the false-alarm budget twice)',
  },
  {
    metrics: 'graphs_compiled (Neuron compile cache)',
    matches: (id) => id === 'graphs_compiled',
    threshold: 0.01,
    why:
      'a count, judged by rule: fails when the run recompiled more than this share of the graphs ' +
      'the baseline loaded from the compile cache (1%: any graph of up to 100), the cache keys ' +
      "new flags or a changed model changed; a new compiler version's recompile is named, not failed",
  },
  {
    metrics: 'compile_time (Neuron compile cache)',
    matches: (id) => id === 'compile_time',
    threshold: 0.15,
    why:
      "one figure per gate run, only when both sides compiled; PyTorch's benchmark dashboard " +
      'gates compile time at 1.15× too',
  },
  {
    metrics: 'graphs_cached (Neuron compile cache)',
    matches: (id) => id === 'graphs_cached',
    threshold: null,
    why: 'shown: a cache that lost graphs fails on graphs_compiled, which names them',
  },
  {
    metrics: 'device_memory_peak (from `monitor:`)',
    matches: (id) => id === 'device_memory_peak',
    threshold: 0.1,
    why:
      'what the runtime allocates hardly moves between runs of one build; 10% is a larger batch ' +
      'or a new SDK taking room, not noise, and what stops a bigger model from fitting',
  },
  {
    metrics: 'host_rss_peak (from `monitor:`)',
    matches: (id) => id === 'host_rss_peak',
    threshold: 0.15,
    why: "sampled from /proc every period, so a short spike may fall between samples, and Python's allocator keeps what it freed",
  },
  {
    metrics: 'server_rss_peak (from `monitor:` with `server:`)',
    matches: (id) => id === 'server_rss_peak',
    threshold: 0.1,
    why:
      "the server's host memory is mostly what it loaded and allocated at its start (weights, " +
      'KV-cache and pinned buffers), held through the runs; 10% more is what an instance is ' +
      'sized by, as device memory is',
  },
  {
    metrics:
      "server_queue_time, server_ttft_mean, server_preemptions, kv_cache_usage_peak, prefix_cache_hit_rate, server_waiting_peak (the server's /metrics, with `server:`)",
    matches: (id) => SERVER_VIEW_IDS.includes(id),
    threshold: null,
    why:
      "shown beside the client's latency, which is gated and already holds the queue's wait: " +
      'these explain a change; a count that is 0 every run, or a time near 0, has no ' +
      'relative change worth a verdict. Give a threshold to gate one',
  },
  {
    metrics:
      'device_memory_<kind>_peak (model_code, constants, tensors, scratchpad, runtime), neuroncore_utilization_mean',
    matches: (id) =>
      /^device_memory_[a-z_]+_peak$/.test(id) || id === 'neuroncore_utilization_mean',
    threshold: null,
    why:
      'shown: each kind is part of device_memory_peak, which is gated (gating them too would ' +
      'spend the false-alarm budget twice on one change), and a lower utilisation may be a ' +
      'faster kernel or a stalled pipeline alike; give a threshold to gate one',
  },
  {
    metrics:
      '*_min, *_mean, *_geomean, *_p50 and lower percentiles (latency, ttft, tpot, itl, e2el)',
    matches: (id) => /_(min|mean|geomean)$/.test(id) || percentileIn(-1, 50)(id),
    threshold: 0.05,
    why: 'central figures are stable',
  },
  {
    metrics: '*_p51 … *_p95 (latency_p90, latency_p95, ttft_p95, …)',
    matches: percentileIn(50, 95),
    threshold: 0.1,
    why: 'upper percentiles rest on fewer requests',
  },
  {
    metrics: '*_p96 … *_p99.9 (latency_p99, ttft_p99, tpot_p99, itl_p99, e2el_p99, …)',
    matches: percentileIn(95, 99.99),
    threshold: 0.15,
    why: 'the tail rests on 1% of the requests',
  },
  {
    metrics: '*_p100 (the slowest request)',
    matches: percentileIn(99.99, 100),
    threshold: 0.2,
    why: 'one request decides it',
  },
  {
    metrics: 'any other metric',
    matches: () => true,
    threshold: 0.1,
    why: 'a metric the rules above do not know is still gated',
  },
]);

/** The built-in threshold of metric `id` in a result of `format`; null when not gated. */
export function builtInThreshold(id: string, format: string): number | null {
  const rule = DEFAULT_THRESHOLD_RULES.find((candidate) => candidate.matches(id, format));
  return rule ? rule.threshold : null;
}

/**
 * The threshold metric `id` is judged by: the config's own value for it, else the
 * config's `default`, else the built-in one; null when switched off or not gated.
 */
export function thresholdOf(
  configured: Readonly<Record<string, number>>,
  id: string,
  format: string,
): number | null {
  const own = Object.hasOwn(configured, id) ? configured[id] : configured[DEFAULT_KEY];
  if (own !== undefined) return own === THRESHOLD_OFF ? null : own;
  return builtInThreshold(id, format);
}

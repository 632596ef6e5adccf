// The data model shared by every stage of the pipeline:
// config ─► run ─► parse ─► profile ─► baseline ─► compare ─► report ─► publish

// It imports nothing: every stage may take its types from here, and it takes none back.

export type Direction = 'higher-is-better' | 'lower-is-better';

/**
 * One run's per-request values. Large sets (a detailed serve result holds millions of
 * inter-token latencies) are typed arrays, sorted once by the parser; never changed after.
 */
export type SampleRun = readonly number[] | Float64Array;

/** One measured quantity of one benchmark, across all of its clean runs. */
export interface Metric {
  /** Stable lower_snake id: throughput, latency_p50, latency_p95, latency_p99, mfu, ... */
  id: string;
  /** Latency in ms, MFU/MBU in percent (0–100), throughput in the tool's own unit. */
  unit: string;
  direction: Direction;
  /** One value per clean run. */
  values: number[];
  /**
   * Per-request values (same unit), one array per run. Kept grouped by run rather than
   * pooled so that a two-level bootstrap can resample runs and then requests within runs.
   */
  samples?: SampleRun[];
  /** When this metric is a percentile of `samples` (e.g. 95 for latency_p95). */
  percentile?: number;
  /**
   * How many of `values` each stored record (each gate run of a baseline) brought, in
   * order; absent when they all come from one. Runs of one record share a day, so the
   * spread between records shows the day-to-day drift the runs of one day cannot.
   */
  records?: number[];
  /**
   * Per-run values of older stored records of the same benchmark and environment, beyond
   * the ones pooled into `values`, one array per record, newest first (the git data
   * branch keeps more records than `baseline-window`). Only to learn how much records of
   * different days differ (day-to-day drift) and, with no drift, how much runs scatter
   * (stats/lent-variance.ts), never part of the baseline's figure.
   */
  olderRecords?: number[][];
  /**
   * The host's load during each stored record of `values` (baseline/record-load.ts: the
   * share of CPU others took), in the order of `records`; null where a record did not
   * measure it. Absent when none did. compare/host-load.ts relates timings to it.
   */
  hostLoads?: (number | null)[];
  /** The same for `olderRecords`, one per older record. */
  olderHostLoads?: (number | null)[];
  /**
   * Per-run values of the benchmark's newest stored record when the baseline leaves it
   * out (a regression's record, or one an open regression holds out): one value a commit
   * still asks whether the previous commit's value was beyond the noise (compare/one-value.ts).
   */
  newestLeftOut?: number[];
  /**
   * A/B mode: the block each of `values` was measured in, on one host with the other side
   * (stats/paired.ts). The change is then judged within the blocks.
   */
  blocks?: number[];
}

/** What one parser returns for one benchmark found in one result file (one run). */
export interface ParsedBenchmark {
  /** The name the file itself gives (pytest fullname, ...); undefined when it has none. */
  name?: string;
  metrics: ParsedMetric[];
  /** Settings the tool echoed (configuration, params); shown in the report, never executed. */
  info?: Record<string, unknown>;
  /** Metric id → why the file gives no usable value for it (NaN, Infinity, null). */
  notMeasured?: Record<string, NotMeasuredNote>;
  /** The run's requests one by one, when the file lists them (vllm bench serve --save-detailed). */
  requests?: RequestTable;
  /** The requests left out of the run's figures as warm-up (`warmup:`). */
  warmup?: WarmupRun;
}

/**
 * One run's requests, one entry per successful request, in the file's order, so that
 * `ttft[i]`, `tpot[i]`, `itlMax[i]` and `e2el[i]` are of one request: what per-request
 * objectives are checked on (src/derive/). In ms. Held from parse to derive only, never stored.
 */
export interface RequestTable {
  /** Requests sent, the failed ones included: none of those meets an objective. */
  sent: number;
  /** Successful requests: the length of each array below. */
  succeeded: number;
  /** The run's wall time in seconds (vLLM's `duration`), the denominator of its rates. */
  durationSeconds?: number;
  ttft?: Float64Array;
  /** (latency − ttft) / (output tokens − 1); 0 for a request of one token, as vLLM's goodput counts it. */
  tpot?: Float64Array;
  /** The request's longest gap between two tokens (0 with fewer than two tokens). */
  itlMax?: Float64Array;
  e2el?: Float64Array;
}

/**
 * Why a metric has no usable value, with the unit and direction its format defines for it:
 * a "not measured" row shows the metric as it would have been measured.
 */
export interface NotMeasuredNote {
  reason: string;
  unit: string;
  direction: Direction;
}

export interface ParsedMetric {
  id: string;
  unit: string;
  direction: Direction;
  value: number;
  samples?: SampleRun;
  percentile?: number;
}

/** Fingerprint of where a result was measured; compared between baseline and current. */
export interface Environment {
  instanceType?: string;
  neuronDevices?: number;
  neuronCores?: number;
  /**
   * Physical NeuronCores per logical core (LNC, 1 or 2) on trn2 and later; absent on
   * inf2/trn1, where a core is one physical core.
   */
  logicalNcConfig?: number;
  neuronSdkVersion?: string;
  compilerVersion?: string;
  runtimeVersion?: string;
  vllmVersion?: string;
  vllmNeuronVersion?: string;
  configHash?: string;
  runner?: string;
  commit?: string;
  ref?: string;
}

export type RunKind = 'clean' | 'profiled';

/** The outcome of one execution of a benchmark command. */
export interface RunOutcome {
  /** 1-based index over all runs of this benchmark (clean runs first, then profiled). */
  index: number;
  kind: RunKind;
  ok: boolean;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Where the benchmark was told to write its result (PERF_GATE_OUTPUT). */
  resultPath: string;
  /** Full output of the run on disk. */
  logPath: string;
  /** Last lines of combined stdout/stderr, for error messages. */
  logTail: string[];
  /** NEURON_RT_INSPECT_OUTPUT_DIR of the profiled run. */
  profileDir?: string;
  /** How the profiled run was recorded. */
  capture?: ProfileCapture;
  /** Why the run failed, in words the user can act on. */
  error?: string;
  /** The processes the run left running after it exited, which the gate stopped. */
  leftovers?: string;
  /** Launch → ready of a server started for this run (ms), when one was. */
  serverStartupMs?: number;
  /** The run never ran: its server could not be started (the log and tail are the server's). */
  serverFailed?: boolean;
  /** A clean run's memory and NeuronCore use, watched while it ran (`monitor:`, src/observe/). */
  memory?: ObservedMemory;
  /** A clean run's launch → ready in ms, or why it was not measured (`startup:`). */
  startup?: { ms: number } | { note: string };
  /** How busy the host was during the run (Linux only). */
  hostLoad?: HostLoad;
  /** A clean run against a server the gate started: the server's /metrics around it. */
  serverView?: ServerView;
}

/**
 * The server's own figures over one clean run, from its Prometheus /metrics scraped before,
 * during (every 0.5 s) and after it (observe/server-view.ts); or why they are missing.
 * Times in seconds, shares in percent.
 */
export type ServerView =
  | {
      scraped: true;
      /** Requests the server finished during the run (its queue-time histogram's count). */
      requests?: number;
      /** Mean time a request waited in the server's queue (vllm:request_queue_time_seconds). */
      queueTimeMean?: number;
      /** Mean time to first token as the server measured it. */
      ttftMean?: number;
      /** Preemptions during the run (vllm:num_preemptions_total). */
      preemptions?: number;
      /** Highest KV-cache usage seen while the run ran (vllm:kv_cache_usage_perc × 100). */
      kvCacheUsagePeak?: number;
      /** Prefix-cache hits over queried tokens during the run (× 100). */
      prefixCacheHitRate?: number;
      /** Most requests waiting at once, and running at once, as seen while the run ran. */
      waitingPeak?: number;
      runningPeak?: number;
      /** How many scrapes the peaks rest on. */
      samples: number;
    }
  | { scraped: false; reason: string };

/**
 * How busy the host was during one run (runner/host-load.ts), as shares (0–1) of all its
 * CPU time between the run's start and end: used by processes other than the gate and
 * what it started, and stolen by the hypervisor.
 */
export interface HostLoad {
  other: number;
  steal: number;
}

/** What neuron-monitor and /proc saw of one clean run (src/observe/). */
export interface ObservedMemory {
  /** neuron-monitor reports that saw a Neuron runtime. */
  monitorSamples: number;
  /** Highest device memory of one report, every runtime together, in bytes. */
  devicePeakBytes?: number;
  /** The same per kind (model_code, constants, tensors, scratchpad, runtime). */
  kindPeakBytes?: Record<string, number>;
  /** Mean NeuronCore utilisation over the reports, percent. */
  utilizationMean?: number;
  /** Highest resident memory of the benchmark's process tree, in bytes. */
  hostPeakBytes?: number;
  /**
   * Set for a run against a server the gate started (`server:`): the highest resident
   * memory of the server's process tree while the run ran, in bytes; absent when unseen.
   */
  server?: { peakBytes?: number };
  /**
   * Why the run's timings are not judged (formats/neuron-monitor-health.ts): executions
   * that ended in an error, new ECC events on the device. Absent when healthy.
   */
  unhealthy?: string[];
  /** What could not be watched, or was read with trouble, in words the user can act on. */
  warnings: string[];
}

export type ProfileStatus = 'not-requested' | 'not-measured' | 'measured' | 'failed';

/** The device profile mode and warm-up of a profiled run (runner/profile-capture.ts). */
export interface ProfileCapture {
  /** NEURON_RT_INSPECT_DEVICE_PROFILE of the run. */
  mode: ProfileMode;
  /**
   * Why this mode: `profile-mode` named it, or `profile-mode: auto` chose it for a
   * `serving` format or as the `default` for any other.
   */
  modeFrom: 'profile-mode' | 'serving' | 'default';
  /** The result format `auto` decided by; absent when it could not tell (then `default`). */
  format?: string;
  /**
   * NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP as the benchmark's `env` set it; absent:
   * unset, so the runtime's default.
   */
  warmup?: string;
}

/** What the profiled run left behind. Issue "Neuron profiling" fills in MFU and engines. */
export interface ProfileSummary {
  status: ProfileStatus;
  /** Human-readable reason when status is not 'measured'. */
  note?: string;
  dir?: string;
  ntffFiles: string[];
  neffFiles: string[];
  totalBytes: number;
  /**
   * Overall figures: mfu, mbu, <engine>_engine_active, dma_active (percent), hbm_read_bytes,
   * hbm_write_bytes, device_time_seconds, profiling_overhead (percent); empty until measured.
   */
  metrics: Record<string, number>;
  /** Per profiled graph (context encoding, token generation, ...). */
  graphs?: ProfileGraph[];
  /**
   * Graphs the profiler gave no total_time for, as `key (file)`: when set, the overall
   * figures (metrics) are not measured, since they are weighted by device time.
   */
  untimedGraphs?: string[];
  /** The profiler CLI that summarised the files. */
  profiler?: string;
  /** The raw summary-json of each profiler call, kept beside the profile. */
  summaryFiles?: string[];
  /** What went wrong on the way (an empty NTFF, a failed profiler call, ...). */
  warnings?: string[];
  /** How the profiled run was recorded; absent when there was none. */
  capture?: ProfileCapture;
  /** Where the figures were read: the profile tables (with their schema) or summary-json. */
  source?: ProfileSource;
  /**
   * Each framework operator's device time (profile tables only), summed over the graphs and
   * NeuronCores profiled, largest first: what the operator diff compares.
   */
  ops?: OpTime[];
  /** The collectives (CcOp), by operation, algorithm and replica group. */
  collectives?: CollectiveGroup[];
  /** MFU against the most the graphs' arithmetic intensity allows (time-weighted, percent). */
  roofline?: { mfu: number; maxAchievable: number };
  /**
   * Why this profiled run's figures are not judged (profiler warnings, throttling): MFU and
   * MBU are then shown "not measured" with these reasons.
   */
  contamination?: string[];
}

/** What a profile's figures were read from. */
export interface ProfileSource {
  /** Units read from the profile tables and from summary-json. */
  tables: number;
  summaryJson: number;
  /** Metadata.profile_schema_version of the tables read, e.g. ["7.4.0"]. */
  schemas: string[];
  /**
   * Physical NeuronCores per logical core (LNC 2 on trn2) the profiler's MFU was divided by,
   * so it is per logical core; absent when 1.
   */
  physicalCores?: number;
}

/** One framework operator's time in one profile. */
export interface OpTime {
  op: string;
  /** Nanoseconds the op's instructions were running (merged intervals, summed over calls). */
  deviceNs: number;
  calls: number;
  /** hbm_read_bytes + hbm_write_bytes. */
  hbmBytes: number;
  /** Instructions per engine. */
  instructions: Partial<Record<EngineName, number>>;
}

/** Collectives of one operation, algorithm and replica group in one profile. */
export interface CollectiveGroup {
  operation: string;
  algorithm: string;
  replicaGroup: string;
  count: number;
  totalMs: number;
  /** GB/s (1e9 bytes per second), where the profiler gave a bus bandwidth. */
  busGBps?: number;
}

/** The engines a profiled graph reports busy time for. */
export type EngineName = 'tensor' | 'vector' | 'scalar' | 'gpsimd' | 'sync';

/** One profiled graph, summed over the NeuronCores that ran it. */
export interface ProfileGraph {
  key: string;
  /** "context encoding" / "token generation" where the graphs can be told apart. */
  label?: string;
  totalTime: number;
  mfu?: number;
  /** True when the profiler gave no MFU and it was derived from the graph's flops. */
  mfuDerived?: boolean;
  mbu?: number;
  engines: Partial<Record<EngineName, number>>;
  dma?: number;
  hbmReadBytes?: number;
  hbmWriteBytes?: number;
}

/** Everything measured for one benchmark in one gate run. */
export interface BenchmarkResult {
  name: string;
  /** Set for a variant of a sweep. */
  sweep?: SweepInfo;
  /** The configured benchmark this result came from (several for one pytest file). */
  source?: string;
  format: string;
  metrics: Metric[];
  profile?: ProfileSummary;
  runs: RunInfo[];
  info?: Record<string, unknown>;
  /** Metric id → why the result files give no usable value for it (NaN, Infinity, null). */
  notMeasured?: Record<string, NotMeasuredNote>;
  environment?: Environment;
  /** What the runs did with the Neuron compile cache (observe/compile-cache.ts). */
  compileCache?: CompileCacheSummary;
  /** How its clean runs' start-up was timed, and its cold start (`startup:`, src/observe/). */
  startup?: StartupSummary;
  /**
   * Per clean run, its requests one by one (null: the run's file does not list them), from
   * parse to the derive stage, which drops them: never in report.json or a record.
   */
  requests?: (RequestTable | null)[];
  /** Per clean run, the requests it left out as warm-up (`warmup:`; null: none left out). */
  warmup?: (WarmupRun | null)[];
  /** A run that stores its results: its answers to the agreement check's prompts. */
  answers?: StoredAnswers;
}

/**
 * A stored run's answers to the agreement check's prompts (accuracy/stored-answers.ts):
 * what a later run is teacher-forced on and compared with, beside the stored run's own
 * second server start scored on them (its A/A).
 */
export interface StoredAnswers {
  promptsSource: string;
  prompts: string[];
  /** Each prompt as the stored run's server tokenized it. */
  promptIds: number[][];
  maxTokens: number;
  topK: number;
  /** Every position's top-k log-probabilities, packed (accuracy/answer-codec.ts). */
  answers: string;
  /** The stored run's second server start teacher-forced on them, prompt by prompt. */
  aa: PromptAgreementFigures[];
  /** Requests that A/A pass took. */
  aaRequests: number;
  /** Set when read from a store: the run that answered. */
  from?: { commit: string; createdAt: string };
}

/** How one prompt's answer agreed with a reference (accuracy/agreement.ts: PromptAgreement). */
export interface PromptAgreementFigures {
  positions: number;
  flips: number;
  firstFlip: number | null;
  distance: number;
  overlap: number;
}

/**
 * The Neuron compile cache around one benchmark's runs of one gate run: graphs compiled
 * (new MODULE_ entries in the cache, or the tools' log lines where the cache is remote)
 * and graphs loaded from what the cache held before.
 */
export interface CompileCacheSummary {
  /** The local cache folder looked at; absent when the cache is remote (s3://). */
  dir?: string;
  /** NEURON_COMPILE_CACHE_URL when it is not a local folder. */
  remote?: string;
  /** Graphs these runs compiled. */
  graphsCompiled: number;
  /** Their cache entries (`neuronxcc-<version>/MODULE_<hash>`); empty when the cache is remote. */
  compiled: string[];
  /** How many graphs the runs loaded from entries that were there before; absent: unknown. */
  cached?: number;
  /**
   * The local cache held no entry of the compiler version(s) these runs compiled under
   * (`neuronxcc-<version>/`) before this gate run first looked at it: a new or wiped runner,
   * or a compiler it never ran, so every graph had to be compiled whatever the cache keys.
   * Set when the runs compiled into a folder the gate listed; absent otherwise (a remote
   * cache cannot be listed, an unreadable folder is not an empty one).
   */
  coldBefore?: boolean;
  /** Seconds spent compiling (log lines, else the first run's extra time); absent: none or unknown. */
  compileSeconds?: number;
  /** Where compileSeconds came from. */
  compileTimeFrom?: 'log' | 'first-run';
  /** Lines of the logs that could not be read, an unreadable cache folder. */
  warnings: string[];
}

/** A benchmark's start-up (`startup:`): how ready was told, and its cold start. */
export interface StartupSummary {
  /** The output line that told ready (`ready-log`); absent: the result file's first line. */
  readyLog?: string;
  /** The clean runs' start-ups, in seconds (null: not measured in that run). */
  seconds: (number | null)[];
  /** Clean runs that compiled graphs: no warm start, left out of `benchmark_startup`. */
  compiledRuns?: number[];
  /** One more start on an empty compile cache (`cold: true`). */
  cold?: ColdStartSummary;
  /** With a server: what its clean starts' logs say they did with the compile cache. */
  serverStarts?: ServerStartsCache;
}

/** A server's clean starts and the graphs their logs say they loaded from the cache or compiled (totals). */
export interface ServerStartsCache {
  starts: number;
  graphsLoaded: number;
  graphsCompiled: number;
}

/** The cold start: launch → ready on an empty compile cache, and what it compiled. */
export interface ColdStartSummary {
  /** Launch → ready in seconds; absent when not measured (its note says why). */
  seconds?: number;
  /** Seconds its log says compiling took. */
  compileSeconds?: number;
  /** Graphs it wrote into its empty cache. */
  graphsCompiled: number;
  /** Its log, relative to the out dir. */
  log: string;
  /** Why it has no start-up (failed, never ready). */
  note?: string;
}

export interface RunInfo {
  index: number;
  kind: RunKind;
  ok: boolean;
  durationMs: number;
  exitCode: number | null;
  timedOut: boolean;
  resultFile?: string;
  error?: string;
  /** How busy the host was during the run; absent off Linux and in older records. */
  hostLoad?: HostLoad;
}

export type MetricVerdict =
  'regression' | 'improvement' | 'unchanged' | 'inconclusive' | 'new' | 'missing';

export interface Comparison {
  id: string;
  unit: string;
  direction: Direction;
  baseline: number | null;
  current: number | null;
  /**
   * The relative change, or null when either side is missing: the change of the interval's
   * own estimator when there is an interval (so it always lies inside it), else
   * current / baseline − 1.
   */
  change: number | null;
  /** Confidence interval of `change`, or null when the data are too thin for one. */
  ci: [number, number] | null;
  /**
   * What `change` is the ratio of, when `baseline` and `current` (medians of the runs, or
   * pooled percentiles) are not those figures: the geometric means of the runs the
   * interval kept, or the percentiles of one run's requests. Absent without an interval
   * (then `change` is current / baseline − 1) and for a paired interval (A/B blocks).
   */
  basis?: { estimator: 'geometric-mean' | 'request-percentile'; baseline: number; current: number };
  /**
   * How `baseline` and `current` of a percentile stand for their runs (stats/estimate.ts):
   * the percentile of every request of the runs pooled (`pooled-requests`), or the median
   * of the runs' own percentiles (`median-of-runs`: too few requests beyond it on a side
   * to pool), with the current side's runs and requests. Absent for other metrics.
   */
  estimate?: {
    of: 'pooled-requests' | 'median-of-runs';
    percentile: number;
    runs: number;
    requestCount?: number;
  };
  /**
   * How the interval was found: runs (Student-t), runs paired in blocks on one host (A/B
   * mode), requests (bootstrap) or not at all.
   */
  method: 'student-t' | 'paired-t' | 'request-bootstrap' | 'none';
  /** Confidence level of `ci` as a fraction (0.95). */
  confidence: number;
  /** Relative threshold as a fraction (0.05 = 5%), or null when the metric is not gated. */
  threshold: number | null;
  verdict: MetricVerdict;
  /**
   * Set on an inconclusive change whose evidence already leans to the worse side (its
   * one-sided p-value is below the confirmation level): more runs could settle it, so the
   * action takes them. Other inconclusive changes pass without costing a run.
   */
  worthConfirming?: boolean;
  /**
   * Runs left out of the interval as outliers (stats/outliers.ts): baseline runs either way,
   * current runs that flattered the build, and slow current runs only when the change is a
   * regression even without them. `change` is how far each lay from its group's other runs.
   */
  excludedRuns?: { side: 'baseline' | 'current'; change: number }[];
  /**
   * Set when this metric's noise lets the gate catch a regression of twice its threshold
   * less than 95% of the time with every run it may take (`runs`: the runs so far and the
   * confirmation runs left): that chance, and the runs that would make it 95% (null when
   * no number of runs of one day would: the baseline's noise or day-to-day drift).
   */
  reach?: { power: number; runs: number; runsFor95: number | null };
  /**
   * Where the noise of one value a side came from when no runs or requests gave it: the
   * stored records of one value each (how many), or the ranges both files state (relative
   * SDs). Absent otherwise.
   */
  noise?: { storedRecords: number } | { statedRange: { current: number; baseline: number } };
  /**
   * One value a commit beyond its noise (compare/one-value.ts): `first`, inconclusive until
   * the next commit confirms it, or `confirmed` by the previous commit's value.
   */
  oneValue?: 'first' | 'confirmed';
  /** One sentence on why this verdict. */
  reason: string;
}

export type BenchmarkVerdict = 'pass' | 'regression' | 'no-baseline' | 'error';
export type GateVerdict = BenchmarkVerdict;

export interface SweepInfo {
  /** The configured benchmark the sweep belongs to. */
  name: string;
  variant: string;
  params: Record<string, unknown>;
  /** A sweep of one server setting (`sweep: settings:`): `name` is `<entry>/<setting>`. */
  setting?: { name: string; params: Record<string, unknown> };
  /** With `setting`: the configured entry whose settings these are. */
  entry?: string;
}

export interface BenchmarkReport {
  name: string;
  sweep?: SweepInfo;
  source?: string;
  format: string;
  verdict: BenchmarkVerdict;
  metrics: Comparison[];
  /** The measured result, complete, so a report.json can serve as a later baseline. */
  result?: BenchmarkResult;
  profile?: ProfileSummary;
  error?: string;
  warnings: string[];
  /** Set when the benchmark would have failed and was run again before deciding. */
  confirmation?: Confirmation;
  /** The uploaded artifact with this benchmark's profile, logs and results. */
  artifact?: ArtifactInfo;
  /** What this benchmark was compared against, when a store chose its baseline records. */
  baselineInfo?: BaselineInfo;
  /** The gated metrics over the recent stored records and this run, for a trend chart. */
  trend?: MetricTrends;
  /** The request latency distribution of the baseline and of this run, for a chart. */
  latencyCurve?: PercentileCurve;
  /** TTFT, ITL and E2E latency distributions in bounded size (stats/latency-histograms.ts). */
  distributions?: LatencyDistributions;
  /** The server the gate started for this benchmark (and the variants after it). */
  server?: ServerSummary;
  /** A sweep's capacity under its SLO: latency against load, baseline and this run. */
  capacityCurve?: CapacityCurve;
  /** Where the device time changed: the operators of the base and head profiles compared. */
  profileDiff?: ProfileDiff;
  /** Whether the served model's answers still agree with the base's (`accuracy:`). */
  agreement?: AgreementReport;
}

/**
 * The output-agreement check (src/accuracy/): the head's answers to a prompt set, and the
 * base's again (A/A), each scored against the base's reference answers at every position.
 */
export interface AgreementReport {
  /** What the answers were compared with: "the base side's answers (main)". */
  reference: string;
  promptsSource: string;
  prompts: number;
  /** Token positions compared on each pass. */
  positions: number;
  maxTokens: number;
  topK: number;
  /** Share of positions whose greedy token differs from the reference's. */
  flips: AgreementFigureReport;
  /** Mean 1 − Bhattacharyya coefficient of a position's top-k distributions. */
  distance: AgreementFigureReport;
  /** Mean share of the top-k the reference's and the pass's have both. */
  overlap: { reference: number; head: number };
  /** Prompts whose first answer token flipped: the prefill's token. */
  firstToken: { reference: number; head: number };
  /** The head's prompts that flipped most, most first (1-based prompt numbers). */
  worstPrompts: { prompt: number; flips: number; firstFlip: number }[];
  /** Requests each pass took (teacher forcing asks again after each flip). */
  requests: { reference: number; aa: number; head: number };
  verdict: 'pass' | 'regression' | 'inconclusive' | 'error';
  /** One sentence on why this verdict. */
  reason: string;
  /** Stored mode: the sides in words ("this run", "the stored run"); A/B's head and base without. */
  sides?: AgreementSides;
}

export interface AgreementSides {
  head: string;
  base: string;
}

export interface AgreementFigureReport {
  /** The base against itself (A/A). */
  reference: number;
  head: number;
  change: number;
  ci: [number, number];
  margin: number;
  verdict: 'pass' | 'regression' | 'inconclusive';
}

/**
 * The operator diff of a benchmark's two profiles (profile/opdiff/profile-diff.ts): by op,
 * and by op kind (every layer's copy of an op together), the collectives and the roofline
 * of each side.
 */
export interface ProfileDiff {
  /** What the base profile is: "the baseline record of <commit>" or "the base side". */
  base: string;
  ops: OpDiff;
  kinds: OpDiff;
  /** Which of the two explains more of the change: what a comment shows first. */
  lead: 'ops' | 'kinds';
  collectives?: { base: CollectiveGroup[]; head: CollectiveGroup[] };
  roofline?: {
    base?: { mfu: number; maxAchievable: number };
    head?: { mfu: number; maxAchievable: number };
  };
  /** Why either side's profile should not be trusted (its contamination). */
  caveats?: string[];
}

export interface OpChange {
  op: string;
  baseMs: number;
  headMs: number;
  changeMs: number;
  /** Percent of the base time; undefined for an op the base did not have. */
  changePercent?: number;
  /** The change beyond the factor every op shares. */
  excessMs: number;
  /** excessMs over the total change (signed: an op that got faster counts against). */
  share: number;
  /** The engine with the most of the op's instructions in the head (base when gone). */
  engine?: EngineName;
  hbmBytesChange: number;
  /** Only in one of the profiles. */
  only?: 'base' | 'head';
}

export interface OpDiff {
  baseMs: number;
  headMs: number;
  /** The factor every op shares (median head/base ratio), its change and share. */
  shared: { factor: number; changeMs: number; share: number };
  /** Robust sd of the ops' log ratios: one profile's jitter against the other. */
  jitter: number;
  /** Ops whose excess is beyond the noise, largest first. */
  named: OpChange[];
  /** Everything else together: its excess and share. */
  other: { ops: number; changeMs: number; share: number };
}

/** A server the gate started for a benchmark's runs (runner/server-session.ts). */
export interface ServerSummary {
  /**
   * Launch → ready in seconds, the median of its clean starts that became ready (the
   * `server_startup` metric has each); unset when none did.
   */
  startupSeconds?: number;
  /** How many clean starts became ready: the values of `server_startup`. */
  cleanStarts?: number;
  /** How many times it was started, profiled starts too (a profiled run gets a server of its own). */
  starts: number;
  /** Its log files, relative to the out dir: in the benchmark's artifact. */
  logs: string[];
  /** How its last stop went: "SIGTERM, 1.2 s". */
  stopped?: string;
}

/** One variant of a sweep on a latency–load curve: its load and the runs' mean. */
export interface CapacityPoint {
  load: number;
  value: number;
}

/** The capacity of one side: the mean over the runs, and whether a run never crossed. */
export interface CapacityMark {
  value: number;
  /** A run's SLO held at every load: the capacity is at least this. */
  atLeast: boolean;
}

/** One objective of the SLO over the loads of a sweep. */
export interface CapacitySeries {
  /** The metric checked at each load: `ttft_p99`, `slo_attainment`, ... */
  metric: string;
  unit: string;
  /** The SLO line. */
  limit: number;
  /** `at-most` for a latency, `at-least` for the attainment. */
  holds: 'at-most' | 'at-least';
  baseline: CapacityPoint[];
  current: CapacityPoint[];
}

/** What a latency–load chart of a sweep draws; report.json keeps it for comment mode. */
export interface CapacityCurve {
  /** The variants' load setting, as vllm bench serve echoes it. */
  load: 'request_rate' | 'max_concurrency';
  /** `requests/s` or `concurrency`: the capacity's unit. */
  unit: string;
  series: CapacitySeries[];
  capacity: { baseline: CapacityMark | null; current: CapacityMark | null };
}

/** Gated metrics of the recent stored records (oldest first) and, last, of this run. */
export interface MetricTrends {
  /** ISO 8601 time of each record, then of this run. */
  at: string[];
  /** One value (the mean of the runs) per entry of `at`. */
  metrics: { id: string; unit: string; values: number[] }[];
}

/**
 * A latency distribution in bounded size (stats/histogram.ts): at most 64 buckets between
 * `min` and `max`, log-spaced, whatever the number of requests.
 */
export interface LatencyHistogram {
  count: number;
  min: number;
  max: number;
  /** Bucket edges, ascending, one more than `counts`: bucket i holds [edges[i], edges[i+1]), the last its upper edge too. */
  edges: number[];
  counts: number[];
}

/** Per-request latencies in ms, each a histogram pooled over the runs. */
export type LatencyHistograms = Partial<Record<'ttft' | 'itl' | 'e2el', LatencyHistogram>>;

/** A benchmark's latency distributions: this run's, and the baseline's when it kept samples. */
export interface LatencyDistributions {
  unit: 'ms';
  current: LatencyHistograms;
  baseline?: LatencyHistograms;
}

/** `warmup:` of a benchmark entry: each run's first `requests`, or its first `seconds`, left out. */
export type WarmupRule = { requests: number } | { seconds: number };

/** The requests one run left out of its figures as warm-up (`warmup:`). */
export interface WarmupRun {
  rule: WarmupRule;
  /** Requests left out (failed ones too) and kept. */
  excluded: number;
  kept: number;
  /** True when the requests were ordered by `start_times`; false: in the file's order. */
  byStartTime: boolean;
  /** Median TTFT (ms) of the successful requests left out and kept, when there were any. */
  excludedTtftMedianMs?: number;
  keptTtftMedianMs?: number;
}

/** Percentiles of one latency metric's per-request samples, baseline and this run. */
export interface PercentileCurve {
  id: string;
  unit: string;
  percentiles: number[];
  baseline: number[];
  current: number[];
}

/** Which stored records formed a benchmark's baseline, and what differs from them. */
/** A stored record as the report names it: its code commit and when it was measured. */
export interface RecordStamp {
  commit: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}

export interface BaselineInfo {
  /** For the reader: "perf-gate-data @ 1a2b3c4", a file name, an artifact. */
  source: string;
  /** The newest baseline record's code commit. */
  commit?: string;
  commitUrl?: string;
  /** How many stored records were pooled. */
  records?: number;
  /** The oldest and the newest record pooled: which commits and nights the baseline spans. */
  span?: { oldest: RecordStamp; newest: RecordStamp };
  /**
   * An open regression of the baseline branch (src/history/) and what it did to this
   * baseline: `since`, the baseline is the branch's records from its first bad record on
   * (the branch as it is now, for code built on it); `held-out`, its `records` records are
   * left out (the branch's own nights, until it is restored or accepted).
   */
  openRegression?: {
    id: string;
    branch: string;
    firstBad: RecordStamp;
    use: 'since' | 'held-out';
    records: number;
  };
  /** "Neuron SDK 2.26.0 → 2.27.0": why there is no baseline, or what differs (loose match). */
  environmentNotes?: string[];
  /** Set when this run's regression was accepted as the new normal, saying why. */
  accepted?: string;
}

export interface ArtifactInfo {
  name: string;
  id?: number;
  url?: string;
  /** Bytes uploaded. */
  size?: number;
  /** Why the upload did not happen or failed. */
  warning?: string;
}

export interface Confirmation {
  /** How many more clean runs were made. */
  runs: number;
  /** For a sweep's capacity: the passes of the whole sweep those runs made (each variant one run). */
  sweepPasses?: number;
  /** Restarts of the server that confirmed its start-up (server_startup): clean starts, not runs. */
  restarts?: number;
  /** The verdict on the first runs alone. */
  verdictBefore: BenchmarkVerdict;
  metricsBefore: Pick<Comparison, 'id' | 'verdict' | 'change'>[];
}

export const REPORT_SCHEMA_VERSION = 1;

/**
 * The format of a sweep's capacity under its SLO (src/derive/capacity.ts): a benchmark the
 * gate derives from the variants' results, never run or profiled itself.
 */
export const CAPACITY_FORMAT = 'capacity';

export interface GateReport {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  tool: { name: 'neuron-perf-gate'; version: string };
  createdAt: string;
  verdict: GateVerdict;
  benchmarks: BenchmarkReport[];
  environment: Environment;
  /** Where the baseline came from, for the reader. */
  baselineSource?: string;
  /** How pull-request code was isolated (runner/sandbox.ts), for the reader. */
  isolation?: string;
  links: { run?: string; artifact?: string; baseline?: string; summary?: string };
  warnings: string[];
  /**
   * The resolved settings, as the report shows them (no variable values): in report.json,
   * so that a two-stage comment job can show them too.
   */
  config?: ResolvedConfigView;
  /** A/B mode: the two sides measured on this host and how (src/ab/). */
  ab?: AbSummary;
  /** The hourly price the cost metrics use, and where it came from (src/derive/). */
  cost?: CostBasis;
  /**
   * The regressions of the baseline branch its history found and nobody has restored or
   * accepted (record stores): whatever this run's verdict, they are still there.
   */
  openRegressions?: {
    branch: string;
    regressions: OpenRegressionView[];
    /** The issues could not be read (a token without `issues: read`): none is linked. */
    issuesUnread?: true;
  };
  /**
   * Series of the branch that stopped reporting while the gate kept running (a stored
   * night's report only; src/history/missing.ts): named after the regressions.
   */
  missingSeries?: {
    branch: string;
    /** The `missing-after` setting: nights a series may miss before it is named. */
    after: number;
    series: MissingSeriesView[];
    /** The gate's one issue that lists them, when it has one. */
    issue?: { number: number; url: string };
  };
  /** Each entry with `sweep: settings:`: its settings side by side, the best named. */
  serverSettings?: ServerSettingsView[];
}

/** One series that stopped reporting, as the report names it. */
export interface MissingSeriesView {
  benchmark: string;
  metric: string;
  /** `inf2.xlarge/2 cores/config 1a2b3c4`, or `any`. */
  environment: string;
  /** Its newest record. */
  lastSeen: RecordStamp;
  /** The gate's run days since. */
  nightsMissed: number;
}

/** One open regression of the baseline branch, as the report names it. */
export interface OpenRegressionView {
  /** `<gate key>@<run id of the first bad record>`, as its issue's marker. */
  id: string;
  firstBad: RecordStamp;
  /** Per series it moved and that has not come back: the relative step. */
  changes: { benchmark: string; metric: string; change: number }[];
  /** Seen on two nights in a row (four with one value a night), beyond a threshold: an issue is (or will be) open for it. */
  persistent: boolean;
  /** One of its series has one value a night: that one waits for four nights in a row. */
  oneValueANight?: true;
  issue?: { number: number; url: string };
}

/**
 * The price behind cost_per_million_tokens and cost_per_million_requests: the built-in
 * on-demand list price of the runner's instance type, or the config's `price-per-hour`.
 */
export interface CostBasis {
  /** The runner's instance type, when the environment probe found it. */
  instanceType?: string;
  /** USD per instance-hour; absent when there is no price, and `note` says why. */
  usdPerHour?: number;
  /**
   * `table`: the built-in on-demand list price (`asOf`, `region`, `url`); `capacity-block`:
   * the built-in EC2 Capacity Block rate (trn2, which has no published on-demand price);
   * `config`: `price-per-hour`.
   */
  source?: 'table' | 'capacity-block' | 'config';
  /** The day the built-in price was taken (YYYY-MM-DD). */
  asOf?: string;
  /** Where the built-in price applies: `us-east-1, Linux, on-demand`. */
  region?: string;
  /** Where the built-in price was taken from. */
  url?: string;
  /** Why there is no cost metric: the instance type is unknown, or has no price. */
  note?: string;
}

/** One side of an A/B comparison, as the report shows it. */
export interface AbSideSummary {
  /** `main (1a2b3c4)`, `the working tree`. */
  label: string;
  commit?: string;
  /** Setup's wall time in seconds, when the config has a `setup` command. */
  setupSeconds?: number;
  /** The NEFF compile cache this side's runs use (NEURON_COMPILE_CACHE_URL, or the default). */
  compileCache?: string;
  environment: Environment;
}

export interface AbSummary {
  base: AbSideSummary;
  head: AbSideSummary;
  /** Runs in order per benchmark, e.g. "base head head base × 3 blocks". */
  order: string;
  /** Per benchmark: blocks measured (confirmation blocks included). */
  blocks: Record<string, number>;
  /** Environment fields whose values differ between the sides (the components that changed). */
  differs: { component: string; base: string; head: string }[];
  /**
   * Where the sides' versions (and so `differs`) were read: in each side's benchmark shell
   * after its command's own set-up, or, when no shell left a record, by the probe beside it.
   */
  versionsSeen?: 'in-benchmark-shell' | 'beside-benchmark';
  /** Per benchmark: one metric's runs, block by block, as they ran (for the reader). */
  runs?: Record<string, AbRunsOfMetric>;
  /** Per benchmark: what each side's first runs did with the NEFF compile cache (docs/ab.md). */
  compileCaches?: Record<string, AbCompileCaches>;
  /** What the sides' configs set differently (two stacks, two commits' configs). */
  configDiffers?: AbConfigDifference[];
}

/** One setting the sides' configs give differently; `benchmark` empty for a gate-wide one. */
export interface AbConfigDifference {
  benchmark: string;
  setting: string;
  base: string;
  head: string;
}

/** Each side's first run's compile cache; the head is judged against the base's (src/ab/compile-cache.ts). */
export interface AbCompileCaches {
  /** Both sides use one cache: the base, which runs first, warms it for the head. */
  shared: boolean;
  base?: CompileCacheSummary;
  /** The base's second run, with one shared cache: what the base loads from a warm cache. */
  baseAgain?: CompileCacheSummary;
  head?: CompileCacheSummary;
}

export interface AbRunsOfMetric {
  metric: string;
  unit: string;
  /** Per block, each side's values in the order they ran. */
  blocks: { base: number[]; head: number[] }[];
}

/**
 * `auto`: profile when neuron-ls or a profiler CLI is found. `on-change`: as auto, but a
 * run that cannot store the baseline (a pull request) profiles only when a gated timing
 * metric ends beyond its threshold (runner/detect-neuron.ts).
 */
export type ProfileSetting = 'auto' | 'on-change' | 'true' | 'false';

/**
 * NEURON_RT_INSPECT_DEVICE_PROFILE of the profiled run: `model` profiles the first
 * execution of each graph, `session` records everything into one NTFF.
 */
export type ProfileMode = 'model' | 'session';

/** The `profile-mode` setting: `auto` is `session` for a serving format, else `model`. */
export type ProfileModeSetting = 'auto' | ProfileMode;

// What the report shows of the resolved configuration (built by report/config-view.ts).

export interface BenchmarkConfigView {
  name: string;
  sweep?: { name: string; variant: string; params: Record<string, unknown> };
  /** Left out when it came from the action's inputs or the command line: see GateConfig. */
  command?: string;
  format: string;
  runs: number;
  confirmRuns: number;
  profile: ProfileSetting;
  profileMode: ProfileModeSetting;
  /** Metric id → relative threshold as a fraction. */
  thresholds: Record<string, number>;
  timeoutMinutes: number;
  workingDirectory: string;
  /** Names of the variables set for the benchmark, sorted; never their values. */
  envNames: string[];
  /** The benchmark's service level objectives in words (`slo:`), when it has them. */
  slo?: string;
  configHash?: string;
}

export interface ResolvedConfigView {
  /** The config file, or 'action inputs' / 'command line'. */
  source: string;
  confidence: number;
  baselineWindow: number;
  failOnRegression: boolean;
  failOnInconclusive: boolean;
  uploadProfiles: boolean;
  artifactRetentionDays: number;
  baselinePaths: string[];
  benchmarks: BenchmarkConfigView[];
}

// The server settings of an entry with `sweep: settings:` side by side (report/server-settings.ts).

export interface ServerSettingRow {
  setting: string;
  params: Record<string, unknown>;
  /** Its capacity benchmark, `<entry>/<setting>/capacity`. */
  benchmark: string;
  /** The median of the runs' capacities; null when not measured (`notMeasured` says why). */
  capacity: number | null;
  /** Where the capacity lies, at the gate's confidence (stats/level-interval.ts). */
  interval: [number, number] | null;
  /** A run's SLO held at every load: the capacity is at least this. */
  atLeast: boolean;
  runs: number;
  /** Good requests per second at the capacity, from the variants' goodput by load. */
  goodput: number | null;
  /** USD per million output tokens served at the capacity, at the gate's instance price. */
  costPerMillionTokens: number | null;
  best: boolean;
  verdict: BenchmarkVerdict | 'not-measured';
  /** Its capacity against its own baseline: the judged change, null without one. */
  change: number | null;
  notMeasured?: string;
}

export interface ServerSettingsView {
  entry: string;
  /** `requests/s` or `concurrency`. */
  unit: string;
  confidence: number;
  rows: ServerSettingRow[];
  /** `<entry>/best-setting` as judged: the best setting's capacity against the stored best's. */
  best: {
    benchmark: string;
    setting: string | null;
    runnerUp: { setting: string; capacity: number } | null;
    verdict: BenchmarkVerdict | 'not-measured';
    current: number | null;
    baseline: number | null;
    change: number | null;
  };
}

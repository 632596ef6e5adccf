import { TOOL_NAME, TOOL_VERSION } from '../version.js';

export const HELP = `${TOOL_NAME} ${TOOL_VERSION}: performance gate for vllm-neuron benchmarks on AWS Inferentia2

Usage:
  ${TOOL_NAME} run [--config FILE] [--baseline FILE...] [--out DIR] [--save-baseline FILE] [--quiet]
      Runs the configured benchmarks (each 'runs' times, then once with the Neuron
      profiler on) and compares them with the baseline.
      --config FILE         config file (default: .github/perf-gate.yml)
      --baseline FILE...    baseline: a file written by --save-baseline, a report.json,
                            or benchmark result files (several files = several runs)
      --out DIR             where report.json, comment.md, summary.md, run logs and
                            profiles go (default: perf-gate-output)
      --save-baseline FILE  write this run's results as a baseline file (only when the
                            run passed or had no baseline: a failed run never overwrites it)
      --quiet               do not stream the benchmarks' output
      --command CMD [--name N] [--format F] [--runs N] [--thresholds 'throughput: 5%']
      [--profile auto|true|false] [--profile-mode model|session] [--profiler-path P]
      [--confirm-runs N] [--confidence 95%] [--timeout-minutes M] [--working-directory D]
                            the same settings as the action's inputs; --command runs one
                            benchmark without a config file

  ${TOOL_NAME} compare --baseline FILE... --current FILE... [--format FMT]
                    [--threshold METRIC=VALUE]... [--confidence LEVEL] [--name NAME] [--out DIR]
      Compares result files without running anything. Several files on one side are
      several runs of the same benchmarks.
      --format FMT          format of the result files (default: auto)
      --threshold M=V       e.g. --threshold throughput=3% (defaults: throughput 5%,
                            latency_p50 5%, latency_p95 10%, latency_p99 15%, mfu 10%)
      --name NAME           name for results whose file names no benchmark
      --confidence LEVEL    confidence level of the intervals (default: 95%)
      --fail-on-inconclusive  exit 1 also when a change beyond its threshold is
                            inconclusive (its interval includes no change)

  ${TOOL_NAME} calibrate [--config FILE] [--runs N] | --results FILE... [--format FMT]
      Measures the run-to-run noise of every metric, from N clean runs of each
      configured benchmark (default 10) or from existing result files, and prints the
      smallest thresholds that keep false alarms under 1% as a thresholds: block.

  ${TOOL_NAME} --help | --version

The markdown report goes to stdout, progress to stderr.

Exit codes:
  0  no regression (pass, improvement, unchanged, inconclusive, no baseline)
  1  regression
  2  usage, config or input error
  3  a benchmark failed to run
`;

// The config the CLI end-to-end tests give the simulator's benchmark: one entry `rerank`,
// 3 clean runs, no confirmation runs and no profiled run, with the lines a test adds.

/** `extra`: the entry's further settings, one `key: value` line each. */
export function rerankConfig(...extra: string[]): string {
  return `benchmarks:
  - name: rerank
    command: offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    confirm-runs: 0
    profile: false
${extra.map((line) => `    ${line}\n`).join('')}`;
}

/**
 * A cancelled job sends SIGINT or SIGTERM to the gate. Node would die without its 'exit'
 * handlers, and a benchmark left running holds the NeuronCores for the next job; exiting
 * through process.exit lets the runner kill every benchmark process group first.
 */
export function exitOnTerminationSignals(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`neuron-perf-gate: ${signal} received; stopping the benchmark\n`);
      process.exit(code);
    });
  }
}

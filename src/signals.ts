/**
 * A cancelled job sends SIGINT or SIGTERM to the gate. Node would die without its 'exit'
 * handlers, and a benchmark left running holds the NeuronCores for the next job; exiting
 * through process.exit lets the runner kill every benchmark process group first.
 *
 * The listeners stay (`on`, not `once`): with none left, Node restores the signal's default
 * action, and a second Ctrl-C during the exit handlers' cleanup (worktrees, process groups)
 * would kill the gate half way. Kept, it is caught and never acted on: the exit runs.
 */
export function exitOnTerminationSignals(): void {
  let exiting = false;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      if (exiting) return;
      exiting = true;
      process.stderr.write(`neuron-perf-gate: ${signal} received; stopping the benchmark\n`);
      process.exit(code);
    });
  }
}

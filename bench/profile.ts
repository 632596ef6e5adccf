// `npm run bench:profile`: how long summarising a profile takes when the profiler is slow.
// Eight NEFF/NTFF pairs (two simulated benchmark processes, each two graphs on two
// NeuronCores) and a simulated profiler that takes SIM_PROFILER_DELAY seconds per call:
// with calls running side by side, 8 pairs on 2 cores take about 4 calls' time, not 8.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { summarizeProfile } from '../src/profile/summarize.js';
import { createProcessRunner } from '../src/runner/process.js';

const runner = createProcessRunner();

const DELAY_SECONDS = 1;
const root = resolve(import.meta.dirname, '..', '..');
const simulatorBin = join(root, 'examples', 'simulated-inf2', 'bin');
const dir = mkdtempSync(join(tmpdir(), 'perf-gate-bench-profile-'));
const env = {
  ...process.env,
  PATH: `${simulatorBin}${delimiter}${process.env.PATH ?? ''}`,
  SIM_PROFILER_DELAY: String(DELAY_SECONDS),
};

try {
  for (const run of ['1', '2']) {
    execFileSync(
      join(simulatorBin, 'offline-benchmark'),
      ['--output-file', join(dir, `result-${run}.json`)],
      {
        env: {
          ...env,
          PERF_GATE_RUN: run,
          NEURON_RT_INSPECT_ENABLE: '1',
          NEURON_RT_INSPECT_DEVICE_PROFILE: 'model',
          NEURON_RT_INSPECT_OUTPUT_DIR: join(dir, 'profile'),
        },
        stdio: 'ignore',
      },
    );
  }
  const cores = availableParallelism();
  console.log(
    `neuron-perf-gate profile bench — simulated profiler ${DELAY_SECONDS} s per call, ${cores} cores`,
  );
  for (const concurrency of [1, cores]) {
    const started = performance.now();
    const summary = await summarizeProfile(join(dir, 'profile'), { env, runner, concurrency });
    const seconds = (performance.now() - started) / 1000;
    const calls = summary.summaryFiles?.length ?? 0;
    console.log(
      `${String(calls).padStart(2)} profiler calls, ${concurrency} at a time: ${seconds.toFixed(2)} s ` +
        `(status ${summary.status}, MFU ${summary.metrics.mfu?.toFixed(3) ?? '—'}%)`,
    );
    if (concurrency === cores) {
      const ideal = Math.ceil(calls / cores) * DELAY_SECONDS;
      const verdict = seconds < ideal + 1.5 && calls === 8 ? 'PASS' : '>>> MISS';
      console.log(
        `${verdict}  ${calls} pairs on ${cores} cores in ${seconds.toFixed(2)} s (about ${ideal} s expected, not ${calls * DELAY_SECONDS} s)`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

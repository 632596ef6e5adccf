// Watching a benchmark's clean runs (`monitor:`): for each, neuron-monitor beside it and a
// /proc sampler of its process tree (and of its server's, server-rss.ts), all started
// before it and stopped when it ends (by itself, failed or timed out), what they saw
// turned into the run's ObservedMemory.

import { dirname, join, relative } from 'node:path';
import type { MonitorSpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import type { ObservedMemory } from '../model.js';
import type { RunObserver, WatchedRun } from '../runner/benchmark.js';
import type { ProcessRunner } from '../runner/types.js';
import { startHostRssSampler } from './host-rss.js';
import { observedMemory } from './memory-figures.js';
import { startMonitor } from './neuron-monitor-sampler.js';
import { watchServerRss } from './server-rss.js';

/** The variable whose value is unique to one run, inherited by every process it starts. */
const RUN_VARIABLE = 'PERF_GATE_OUTPUT';

export function memoryObserver(
  monitor: MonitorSpec,
  options: { runner: ProcessRunner; cwd: string; outDir: string },
): RunObserver {
  return {
    watch: async (run: WatchedRun) => {
      const base = join(dirname(run.resultPath), `run-${run.index}.clean.neuron-monitor`);
      const { [RUN_VARIABLE]: output, ...env } = run.env;
      const periodMs = monitor.periodSeconds * 1_000;
      const host = startHostRssSampler(
        RUN_VARIABLE,
        output ?? run.resultPath,
        Math.min(periodMs, 500),
      );
      const server = watchServerRss(run.server, Math.min(periodMs, 500));
      const started = await startMonitor({
        runner: options.runner,
        spec: monitor,
        cwd: options.cwd,
        env,
        files: {
          config: `${base}.conf`,
          samples: `${base}.jsonl`,
          log: `${base}.log`,
          label: (path) => relative(options.outDir, path),
        },
      }).catch((error: unknown) => errorMessage(error));
      return {
        stop: async (): Promise<ObservedMemory> => {
          const rss = host.stop();
          const served = server.stop();
          const hostNote =
            rss.peakBytes === undefined
              ? [
                  'no process of the run was seen in /proc, so its host peak RSS was not measured (not Linux, another user, or the run ended within one period)',
                ]
              : [];
          const withServer = (memory: ObservedMemory): ObservedMemory => ({
            ...memory,
            ...(served.server ? { server: served.server } : {}),
            warnings: [...memory.warnings, ...served.warnings],
          });
          if (typeof started === 'string') {
            return withServer(
              observedMemory({ samples: [], reports: 0, warnings: [] }, rss, [
                `neuron-monitor could not be started: ${started}`,
                ...hostNote,
              ]),
            );
          }
          // Only the runtimes of the run's own processes (run-runtimes.ts).
          return withServer(observedMemory(await started.stop(rss.pids), rss, hostNote));
        },
      };
    },
  };
}

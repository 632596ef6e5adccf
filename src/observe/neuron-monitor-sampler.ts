// neuron-monitor running beside one clean run: started before the benchmark, stopped after
// it with its whole process tree. It is started like a server (runner.start: in the sandbox
// the benchmark gets, since a config may name its own executable), with a config file that
// asks for the two metric groups the gate reads at the configured period (Neuron docs,
// "Neuron Monitor User Guide": `-c FILE`, `period`, `neuron_runtimes[].metrics[].type`).
// Its stdout, one JSON report a line, goes to a file of its own, so that what it says on
// stderr cannot cut a report in two; the stream is parsed once it has stopped.

import { rm } from 'node:fs/promises';
import { writeFileAtomic } from '../fs/atomic.js';
import type { MonitorStream } from '../formats/neuron-monitor.js';
import type { MonitorSpec } from '../config/types.js';
import type { CommandEnd } from '../runner/contained.js';
import { describeLeftovers } from '../runner/leftovers.js';
import type { ProcessRunner } from '../runner/types.js';
import type { RunPids } from './host-rss.js';
import { readCappedLines } from './capped-lines.js';
import { runtimesOfRun } from './run-runtimes.js';

const NO_PIDS: RunPids = { here: [], inner: [] };

/**
 * The longest report line read: one report of a large instance's 32 NeuronCores is tens of
 * kilobytes; a longer line is skipped unread, with a warning.
 */
export const MAX_MONITOR_LINE_BYTES = 8 * 1024 * 1024;

/** Where the system's Neuron tools live when they are not on PATH. */
const NEURON_TOOLS_DIR = '/opt/aws/neuron/bin';
/** SIGTERM, then SIGKILL to whatever of its tree is left after this long. */
const STOP_GRACE_MS = 2_000;
/** Runs "$@" with stdout to $1: the shell's own words, no user text in them. */
const TO_FILE = 'out=$1; shift; exec "$@" >"$out"';

export interface MonitorFiles {
  /** Its config file. */
  config: string;
  /** Its stdout: the reports. */
  samples: string;
  /** Its stderr. */
  log: string;
  /** How the files are named in warnings (relative to the out dir). */
  label: (path: string) => string;
}

export interface MonitorLaunch {
  runner: ProcessRunner;
  spec: MonitorSpec;
  cwd: string;
  /** The clean run's environment, without its PERF_GATE_OUTPUT. */
  env: Record<string, string>;
  files: MonitorFiles;
}

export interface RunningMonitor {
  /**
   * Stops it (never throws); its reports of the runtimes of `runPids` (all when it names
   * none of them: run-runtimes.ts), and what went wrong in words to act on.
   */
  stop(runPids?: RunPids): Promise<MonitorStream>;
}

/** neuron-monitor's config: the groups the gate reads, from every runtime, and the devices' ECC counters. */
export function monitorConfig(periodSeconds: number): string {
  const config = {
    period: `${periodSeconds}s`,
    neuron_runtimes: [
      {
        tag_filter: '.*',
        metrics: [
          { type: 'neuroncore_counters' },
          { type: 'memory_used' },
          { type: 'execution_stats' },
        ],
      },
    ],
    // ECC counters per device: new events during a run leave it out of the verdict.
    system_metrics: [{ type: 'neuron_hw_counters' }],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export async function startMonitor(launch: MonitorLaunch): Promise<RunningMonitor> {
  const { files, spec } = launch;
  await Promise.all([files.samples, files.log].map((path) => rm(path, { force: true })));
  await writeFileAtomic(files.config, monitorConfig(spec.periodSeconds));
  const path = launch.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  let service;
  try {
    service = await launch.runner.start({
      command: [
        'bash',
        '-c',
        TO_FILE,
        'neuron-monitor',
        files.samples,
        spec.command,
        '-c',
        files.config,
      ],
      cwd: launch.cwd,
      env: { ...launch.env, PATH: `${path}:${NEURON_TOOLS_DIR}` },
      logPath: files.log,
      onOutput: () => {},
      tailLines: 5,
    });
  } catch (error) {
    const reason = `neuron-monitor could not be started: ${(error as Error).message}`;
    return { stop: async () => ({ samples: [], reports: 0, warnings: [reason] }) };
  }
  let endedBySelf: CommandEnd | undefined;
  void service.ended.then((end) => (endedBySelf = end));
  let stopping: Promise<MonitorStream> | undefined;
  const stop = async (runPids: RunPids): Promise<MonitorStream> => {
    const bySelf = endedBySelf;
    const stopped = await service.stop('SIGTERM', STOP_GRACE_MS);
    const warnings: string[] = [];
    if (bySelf) warnings.push(endedMessage(bySelf, service.tail(), files.label(files.log), spec));
    const survived = stopped.stopped.filter((p) => p.survived);
    if (survived.length > 0) {
      warnings.push(`neuron-monitor left ${describeLeftovers(survived)} running`);
    }
    const { text, skipped } = await readCappedLines(files.samples, MAX_MONITOR_LINE_BYTES);
    const label = files.label(files.samples);
    for (const line of skipped) {
      warnings.push(
        `${label} line ${line}: longer than ${MAX_MONITOR_LINE_BYTES / 1024 / 1024} MiB, not a neuron-monitor report; the line is skipped unread`,
      );
    }
    const stream = runtimesOfRun(text, label, runPids, launch.env.NEURON_PROCESS_TAG);
    return { ...stream, warnings: [...warnings, ...stream.warnings] };
  };
  return { stop: (runPids = NO_PIDS) => (stopping ??= stop(runPids)) };
}

/** Why the monitor ended before the run did: usually not installed, or a bad executable. */
function endedMessage(end: CommandEnd, tail: string[], log: string, spec: MonitorSpec): string {
  const last = tail.filter((line) => line.trim() !== '').at(-1);
  const said = last ? ` It said: ${last.trim()}` : '';
  if ('spawnError' in end || end.code === 127 || end.code === 126) {
    return (
      `neuron-monitor (${spec.command}) was not found or is not executable, so device memory ` +
      `and NeuronCore use were not measured: install the Neuron tools (aws-neuronx-tools) on ` +
      `the runner or set monitor.command.${said}`
    );
  }
  const how =
    end.code === null
      ? `was killed by ${end.signal ?? 'a signal'}`
      : `exited with code ${end.code}`;
  return `neuron-monitor ${how} before the run ended; its reports until then are used (log: ${log}).${said}`;
}

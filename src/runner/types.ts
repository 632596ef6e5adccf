// The boundary between the gate and the benchmark processes it starts.

import type { HostLoad } from '../model.js';
import type { LeftoverProcess } from './leftovers.js';
import type { Sandbox } from './sandbox.js';
import type { ServiceProcess, ServiceRequest } from './service.js';

export interface ProcessRequest {
  /** Run as `bash -c command`. */
  command: string;
  cwd: string;
  /** The complete environment of the child (not merged with ours). */
  env: Record<string, string>;
  timeoutMs: number;
  /** Every byte of stdout and stderr is also written here. */
  logPath: string;
  /** Called with each chunk of combined stdout/stderr as it arrives. */
  onOutput: (chunk: string) => void;
  /** How many trailing lines of output to keep for error messages. */
  tailLines: number;
}

export interface ProcessResult {
  /** null when killed by a signal or never started. */
  exitCode: number | null;
  signal?: string;
  timedOut: boolean;
  durationMs: number;
  /** Last `tailLines` lines of combined output. */
  tail: string[];
  /** Set when the process could not be started at all. */
  spawnError?: string;
  /** Processes the command left running after it exited, which were then stopped. */
  leftovers?: LeftoverProcess[];
  /** How busy the host was while the command ran (host-load.ts); absent off Linux. */
  hostLoad?: HostLoad;
}

/** A tool run for its output (the environment probe, neuron-ls, pip, the profiler CLI). */
export interface CaptureRequest {
  file: string;
  args: readonly string[];
  /** Ours unless given. */
  cwd?: string;
  /** The complete environment of the child (not merged with ours). */
  env: Record<string, string>;
  timeoutMs: number;
  /** Output kept per stream; the rest is dropped (default 1 MiB). */
  maxBytes?: number;
}

export interface CaptureResult {
  /** null when killed by a signal or never started. */
  exitCode: number | null;
  signal?: string;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  spawnError?: string;
  /** Processes the tool left running after it exited, which were then stopped. */
  leftovers?: LeftoverProcess[];
}

export interface ProcessRunner {
  /** Which isolation the runner's processes get (sandbox.ts). */
  readonly sandbox: Sandbox;
  run(request: ProcessRequest): Promise<ProcessResult>;
  capture(request: CaptureRequest): Promise<CaptureResult>;
  /** Starts a long-lived process (a benchmark's server), stopped when the caller says. */
  start(request: ServiceRequest): Promise<ServiceProcess>;
  /** The same runner, its processes not seeing these folders (Sandbox.hiding). */
  hiding(dirs: readonly string[]): ProcessRunner;
}

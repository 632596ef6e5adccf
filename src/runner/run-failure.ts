// Why a benchmark run failed, in the words its error says: the process's end, or the
// result file it should have written.

import { lstat, readFile } from 'node:fs/promises';
import type { BenchmarkSpec } from '../config/types.js';
import type { ProcessResult } from './types.js';

export interface Failure {
  /** For the progress line, e.g. "exit code 3". */
  short: string;
  /** For the report: what happened and what to do. */
  error: string;
}

export function describeFailure(result: ProcessResult, spec: BenchmarkSpec): Failure | undefined {
  if (result.spawnError !== undefined) {
    return {
      short: 'could not start',
      error: `the command could not be started: ${result.spawnError}. Check working-directory and that bash is installed on the runner.`,
    };
  }
  if (result.timedOut) {
    const limit = formatMinutes(spec.timeoutMinutes);
    return {
      short: `timed out after ${limit}`,
      error:
        `the command did not finish within timeout-minutes (${limit}), so it was stopped together with every process it started. ` +
        'Raise timeout-minutes if the benchmark needs longer; the first run on a runner also compiles the model unless the Neuron compile cache (/var/tmp/neuron-compile-cache) is warm.',
    };
  }
  if (result.exitCode === null) {
    const signal = result.signal ?? 'a signal';
    return {
      short: `killed by ${signal}`,
      error: `the command was killed by ${signal}${result.signal === 'SIGKILL' ? ' (often the kernel out-of-memory killer)' : ''}. See the last lines of output and the runner's system log.`,
    };
  }
  if (result.exitCode !== 0) {
    return {
      short: `exit code ${result.exitCode}`,
      error: `the command exited with code ${result.exitCode}. The last lines of its output usually say why.`,
    };
  }
  return undefined;
}

export async function checkResultFile(path: string): Promise<Failure | undefined> {
  const hint =
    'The benchmark must write its result to the path in the environment variable PERF_GATE_OUTPUT (for example `--output-file "$PERF_GATE_OUTPUT"`).';
  let size: number;
  try {
    // Read by the gate, outside the sandbox: never through a link the benchmark made.
    const info = await lstat(path);
    if (info.isSymbolicLink()) {
      return {
        short: 'result is a link',
        error: `the result path ${path} is a symbolic link; the gate reads only a file the benchmark wrote there. ${hint}`,
      };
    }
    if (!info.isFile()) {
      return {
        short: 'result is not a file',
        error: `the result path ${path} is not a file. ${hint}`,
      };
    }
    size = info.size;
  } catch {
    return {
      short: 'no result file',
      error: `the command exited with code 0 but wrote no result file at ${path}. ${hint}`,
    };
  }
  // Small files are read to catch a result that is only whitespace.
  if (size === 0 || (size <= 4_096 && (await readFile(path, 'utf8')).trim() === '')) {
    return {
      short: 'empty result file',
      error: `the command exited with code 0 but the result file ${path} is empty. ${hint}`,
    };
  }
  return undefined;
}

/** 30 min, 0.02 min */
function formatMinutes(minutes: number): string {
  return `${Number(minutes.toFixed(2))} min`;
}

/** The run's failure with what its server did: exited during it, and the end of its log. */
export function withServerState(
  failure: Failure | undefined,
  server: { exited?: string; tail: string[]; logPath: string } | undefined,
): Failure | undefined {
  if (!server) return failure;
  const exited = server.exited;
  if (failure === undefined && exited === undefined) return undefined;
  const head =
    failure === undefined
      ? { short: 'server ended', error: `${exited}, so its results cannot be trusted.` }
      : exited === undefined
        ? failure
        : { short: failure.short, error: `${failure.error} Meanwhile ${exited}.` };
  if (server.tail.length === 0) return head;
  const tail = `\nThe server's last ${server.tail.length} lines (full log: ${server.logPath}):\n${server.tail.join('\n')}`;
  return { ...head, error: `${head.error}${tail}` };
}

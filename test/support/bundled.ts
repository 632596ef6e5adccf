// Runs the committed bundles (dist/) as real node processes, the way users run them.
import { execFile } from 'node:child_process';
import { delimiter, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SIMULATOR_BIN = join(ROOT, 'examples', 'simulated-inf2', 'bin');

export interface ProcessOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runNode(
  script: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<ProcessOutcome> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, script), ...args],
      { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** `bash -c script args...`, for a launch that prepares the process first. */
export function runShell(
  script: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<ProcessOutcome> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['-c', script, ...args],
      { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** A PATH with the simulated inf2 toolchain first; nothing else of ours leaks in. */
export function simulatorEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    ...extra,
  };
}

// Runs the committed bundles (dist/) as real node processes, the way users run them.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { inject } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SIMULATOR_BIN = join(ROOT, 'examples', 'simulated-inf2', 'bin');
/**
 * The bundles as dist/ held them when the tests started (test/support/dist-snapshot.ts),
 * so that rewriting dist/ during a test run cannot hand a test half a bundle.
 */
export const DIST = inject('distSnapshot') ?? join(ROOT, 'dist');
/** The CLI's launcher (dist/cli.js) and the action (dist/index.js). */
export const CLI = join(DIST, 'cli.js');
export const ACTION = join(DIST, 'index.js');

export interface ProcessOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` (CLI, ACTION or another path) with this node. */
export function runNode(
  script: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<ProcessOutcome> {
  // A path relative to the repository ('dist/cli.js') would run dist/ itself, or nothing.
  if (!isAbsolute(script))
    throw new Error(`runNode: give CLI, ACTION or an absolute path, not ${script}`);
  return new Promise((done) => {
    execFile(
      process.execPath,
      [script, ...args],
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
    // The simulator fills a compile cache: one per test process, not the machine's /var/tmp.
    NEURON_COMPILE_CACHE_URL: join(tmpdir(), `sim-compile-cache-${process.pid}`),
    ...extra,
  };
}

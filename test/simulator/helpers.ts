// Runs the simulator's executables as real child processes, with an environment built
// from scratch so that no SIM_* or NEURON_RT_* variable of the caller leaks in.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const SIMULATOR = resolve(import.meta.dirname, '..', '..', 'examples', 'simulated-inf2');
export const BIN = join(SIMULATOR, 'bin');
/** The reference workload's result file, as the vllm-neuron offline benchmark script writes it. */
export const REFERENCE_RESULT = resolve(
  import.meta.dirname,
  '..',
  'fixtures',
  'formats',
  'offline-benchmark',
  'reference.json',
);

export interface ToolOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** PATH with this very node first, so that `#!/usr/bin/env node` finds it too. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    // The simulator fills a compile cache: one per test process, not the machine's /var/tmp.
    NEURON_COMPILE_CACHE_URL: join(tmpdir(), `sim-compile-cache-${process.pid}`),
    ...extra,
  };
}

/** Runs `bin/<tool>` with this node (or through its shebang) and waits for it to end. */
export function runTool(
  tool: string,
  args: string[] = [],
  options: { env?: Record<string, string>; cwd?: string; viaShebang?: boolean } = {},
): Promise<ToolOutcome> {
  const script = join(BIN, tool);
  const [file, argv] = options.viaShebang ? [script, args] : [process.execPath, [script, ...args]];
  const started = performance.now();
  return new Promise((done) => {
    execFile(
      file,
      argv,
      { env: baseEnv(options.env), cwd: options.cwd ?? tmpdir(), maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr, durationMs: performance.now() - started });
      },
    );
  });
}

/** Starts `bin/<tool>` without waiting for it, for processes that are meant to hang. */
export function startTool(tool: string, env: Record<string, string>, cwd: string): ChildProcess {
  return spawn(process.execPath, [join(BIN, tool)], { env: baseEnv(env), cwd, stdio: 'pipe' });
}

export function tempDir(prefix = 'sim-inf2-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export interface OfflineResult {
  configuration: Record<string, unknown>;
  metrics: Record<string, number>;
  raw_times: number[];
}

/** Runs the benchmark once into a fresh result file and returns the file's content. */
export async function benchmark(
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ outcome: ToolOutcome; result: OfflineResult; dir: string }> {
  const dir = await tempDir();
  const output = join(dir, 'result.json');
  const outcome = await runTool('offline-benchmark', args, {
    env: { PERF_GATE_OUTPUT: output, ...env },
    cwd: dir,
  });
  if (outcome.code !== 0) throw new Error(`benchmark failed (${outcome.code}): ${outcome.stderr}`);
  return { outcome, result: JSON.parse(await readFile(output, 'utf8')), dir };
}

// numpy's statistics, written out here independently of the simulator's own code.

/** `np.percentile(values, q)`, method 'linear', including numpy's two-sided lerp. */
export function numpyPercentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = (sorted.length - 1) * (q / 100);
  const low = Math.floor(index);
  if (low >= sorted.length - 1) return sorted[sorted.length - 1]!;
  const fraction = index - low;
  const a = sorted[low]!;
  const b = sorted[low + 1]!;
  return fraction >= 0.5 ? b - (b - a) * (1 - fraction) : a + (b - a) * fraction;
}

export function median(values: number[]): number {
  return numpyPercentile(values, 50);
}

/** A simulated process folder: `i-0sim<12 hex>_pid_<pid>`. */
export const PROCESS_DIR = /^i-0sim[0-9a-f]{12}_pid_\d+$/;

/**
 * Runs one profiled benchmark; returns its folder, the profile output folder and the
 * one process folder in it.
 */
export async function profiledRun(env: Record<string, string>, prefix = 'sim-profile-') {
  const dir = await tempDir(prefix);
  const output = join(dir, 'profile');
  const { code, stderr } = await runTool('offline-benchmark', [], {
    env: {
      PERF_GATE_OUTPUT: join(dir, 'result.json'),
      NEURON_RT_INSPECT_ENABLE: '1',
      NEURON_RT_INSPECT_OUTPUT_DIR: output,
      ...env,
    },
    cwd: dir,
  });
  if (code !== 0) throw new Error(`offline-benchmark failed: ${stderr}`);
  const processDirs = await readdir(output);
  if (processDirs.length !== 1 || !PROCESS_DIR.test(processDirs[0]!)) {
    throw new Error(`expected one process folder in ${output}, found ${processDirs.join(', ')}`);
  }
  return { dir, output, processDir: join(output, processDirs[0]!) };
}

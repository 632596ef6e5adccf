// A tool run for what it prints (the environment probe, neuron-ls, pip, the profiler CLI):
// contained like a benchmark run (sandbox, marker, what it leaves stopped and named), its
// stdout and stderr kept up to a bound.

import type { Readable } from 'node:stream';
import { startContained } from './contained.js';
import type { Sandbox } from './sandbox.js';
import type { CaptureRequest, CaptureResult } from './types.js';

const DEFAULT_MAX_BYTES = 1024 * 1024;

export async function captureProcess(
  request: CaptureRequest,
  settings: { killGraceMs: number; shell: string; sandbox: Sandbox },
): Promise<CaptureResult> {
  const contained = startContained({
    argv: [request.file, ...request.args],
    cwd: request.cwd ?? process.cwd(),
    env: request.env,
    sandbox: settings.sandbox,
    shell: settings.shell,
  });
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const stdout = collect(contained.stdout, maxBytes);
  const stderr = collect(contained.stderr, maxBytes);
  let timedOut = false;
  let termination: Promise<unknown> = Promise.resolve();
  const timer = setTimeout(() => {
    timedOut = true;
    // A tool that ignores SIGTERM must not hold up the gate for long.
    termination = contained.terminate(Math.min(settings.killGraceMs, 1_000));
  }, request.timeoutMs);
  const end = await contained.ended;
  clearTimeout(timer);
  await termination;
  const leftovers = await contained.finish(settings.killGraceMs);
  const output = { stdout: stdout.text(), stderr: stderr.text() };
  if ('spawnError' in end) {
    return { exitCode: null, timedOut, ...output, spawnError: end.spawnError };
  }
  return {
    exitCode: end.code,
    ...(end.signal !== null ? { signal: end.signal } : {}),
    timedOut,
    ...output,
    ...(leftovers.length > 0 ? { leftovers } : {}),
  };
}

/** The stream's bytes, the first `maxBytes` of them; reading goes on so the tool never blocks. */
function collect(stream: Readable | null, maxBytes: number): { text: () => string } {
  const chunks: Buffer[] = [];
  let kept = 0;
  stream?.on('data', (chunk: Buffer) => {
    if (kept >= maxBytes) return;
    const part = chunk.subarray(0, maxBytes - kept);
    chunks.push(part);
    kept += part.length;
  });
  stream?.on('error', () => {});
  return { text: () => Buffer.concat(chunks).toString('utf8').replace(/\n$/, '') };
}

// A tool run for what it prints (the environment probe, neuron-ls, pip, the profiler CLI):
// contained like a benchmark run (sandbox, marker, what it leaves stopped and named), its
// stdout and stderr kept up to a bound.

import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { startContained } from './contained.js';
import type { Sandbox } from './sandbox.js';
import type { CaptureRequest, CaptureResult } from './types.js';

const DEFAULT_MAX_BYTES = 1024 * 1024;

export async function captureProcess(
  request: CaptureRequest,
  settings: { killGraceMs: number; drainMs: number; shell: string; sandbox: Sandbox },
  start: typeof startContained = startContained,
): Promise<CaptureResult> {
  const contained = start({
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
  // The end is reported before the pipes are drained: on a busy host the tool's last (or
  // only) output may not have been read yet (as process.ts drains a run's output).
  const drainTimer = new AbortController();
  await Promise.race([
    Promise.all([stdout.drained, stderr.drained]),
    delay(settings.drainMs, undefined, { signal: drainTimer.signal }).catch(() => undefined),
  ]);
  drainTimer.abort();
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

/**
 * The stream's bytes, the first `maxBytes` of them; reading goes on so the tool never
 * blocks. `drained` settles when the stream has ended (or failed, or there is none).
 */
function collect(
  stream: Readable | null,
  maxBytes: number,
): { text: () => string; drained: Promise<void> } {
  const chunks: Buffer[] = [];
  let kept = 0;
  stream?.on('data', (chunk: Buffer) => {
    if (kept >= maxBytes) return;
    const part = chunk.subarray(0, maxBytes - kept);
    chunks.push(part);
    kept += part.length;
  });
  const drained = stream
    ? finished(stream).then(
        () => undefined,
        () => undefined,
      )
    : Promise.resolve();
  return { text: () => Buffer.concat(chunks).toString('utf8').replace(/\n$/, ''), drained };
}

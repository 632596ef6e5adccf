// A captured tool's output is read to its end, not only up to the wrapper's report that the
// tool ended: on a busy host the report can be read first (the e2e profiler call that came
// back with an empty stdout). The order is forced here with a stand-in for the contained
// process whose output arrives only after the gate has been told the tool ended.

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { captureProcess } from '../../src/runner/capture.js';
import type { ContainedProcess } from '../../src/runner/contained.js';
import { NO_SANDBOX } from '../../src/runner/sandbox.js';

const request = { file: 'neuron-profile', args: ['view'], env: {}, timeoutMs: 60_000 };

/** A tool that has ended; its output is written only once the gate has finished it. */
function endedBeforeItsOutput(output: string): () => ContainedProcess {
  return stoppedTool((stdout, stderr) =>
    setImmediate(() => {
      stdout.end(output);
      stderr.end();
    }),
  );
}

/** A tool whose stdout a process it left keeps open (nothing ever ends it). */
function heldOpen(output: string): () => ContainedProcess {
  return stoppedTool((stdout) => stdout.write(output));
}

function stoppedTool(
  onFinish: (stdout: PassThrough, stderr: PassThrough) => void,
): () => ContainedProcess {
  return () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    return {
      stdout,
      stderr,
      ended: Promise.resolve({ code: 0, signal: null }),
      terminate: () => Promise.resolve([]),
      finish: () => {
        onFinish(stdout, stderr);
        return Promise.resolve([]);
      },
    };
  };
}

function settings(drainMs: number) {
  return { killGraceMs: 100, drainMs, shell: 'bash', sandbox: NO_SANDBOX };
}

describe('captureProcess reads the output to its end', () => {
  it('keeps output that is read after the end was reported', async () => {
    const result = await captureProcess(
      request,
      settings(60_000),
      endedBeforeItsOutput('{"summary": [{"mfu_estimated_percent": 41.2}]}\n'),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('{"summary": [{"mfu_estimated_percent": 41.2}]}');
  });

  it('stops waiting after drainMs when something keeps the output open', async () => {
    const result = await captureProcess(request, settings(50), heldOpen('partial'));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('partial');
  });
});

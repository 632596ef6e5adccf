// Starting a contained command whose output is streamed to its log, the caller and a
// bounded tail: what a benchmark run (process.ts) and a server (service.ts) share; they
// differ only in how they end it.

import type { WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { StringDecoder } from 'node:string_decoder';
import { startContained, type ContainedProcess } from './contained.js';
import { streamAll } from './output-log.js';
import type { Sandbox } from './sandbox.js';
import { LineTail } from './tail.js';

export interface LoggedStart {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  onOutput: (chunk: string) => void;
  tailLines: number;
  /** The most of its output the log file keeps (output-log.ts); all of it unless set. */
  logCapBytes?: number;
}

export interface LoggedProcess {
  contained: ContainedProcess;
  tail: LineTail;
  /** Passes text to the tail and the caller (the log has it from the streams). */
  emit: (text: string) => void;
  outputs: Readable[];
  decoders: StringDecoder[];
  /** Every output stream has ended. */
  outputDone: Promise<unknown>;
}

export function startLogged(
  request: LoggedStart,
  log: WriteStream,
  settings: { shell: string; sandbox: Sandbox },
): LoggedProcess {
  const tail = new LineTail(request.tailLines);
  const emit = (text: string): void => {
    if (text === '') return;
    tail.push(text);
    request.onOutput(text);
  };
  const contained = startContained({
    argv: request.argv,
    cwd: request.cwd,
    env: request.env,
    sandbox: settings.sandbox,
    shell: settings.shell,
  });
  const outputs = [contained.stdout, contained.stderr].filter(
    (stream): stream is NonNullable<typeof stream> => stream !== null,
  );
  const decoders = streamAll(outputs, log, emit, request.logCapBytes);
  const outputDone = Promise.all(outputs.map((stream) => finished(stream).catch(() => {})));
  return { contained, tail, emit, outputs, decoders, outputDone };
}

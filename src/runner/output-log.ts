// A started process's output on its way to a log file: the raw bytes into the file, the
// decoded text to whoever follows it, with memory bounded when the disk is slower.

import { constants as fsConstants, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { errorMessage } from '../errors.js';

/** Append, create, and refuse a symbolic link in the log file's place. */
const LOG_FLAGS =
  fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND | fsConstants.O_NOFOLLOW;

/**
 * The log file opened for appending, its folder made; never through a link: the run
 * folder is the benchmark's to write too. Throws with the path named.
 */
export async function openLog(path: string): Promise<WriteStream> {
  try {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, LOG_FLAGS, 0o644);
    return createWriteStream('', { fd: handle });
  } catch (error) {
    throw new Error(`could not open the log file ${path}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * Copies the output streams into the log (raw bytes) and `emit` (decoded text). When the
 * log file cannot keep up, every output pauses until it drains, so memory stays bounded.
 * With `capBytes`, the file keeps the output's first `capBytes` and a note where it was
 * cut; the text still goes to `emit`. Returns the decoders: their `end()` is the text of
 * a character cut at the very end.
 */
export function streamAll(
  streams: readonly Readable[],
  log: WriteStream,
  emit: (text: string) => void,
  capBytes = Infinity,
): StringDecoder[] {
  let paused = false;
  let logFailed = false;
  let written = 0;
  /** The part of `chunk` the file still takes (with the note once it is full), or none. */
  const kept = (chunk: Buffer): Buffer | undefined => {
    if (written >= capBytes) return undefined;
    const room = capBytes - written;
    written += chunk.length;
    if (chunk.length <= room) return chunk;
    const note = `\n[neuron-perf-gate] the log file is cut here, at its cap of ${capBytes} bytes; the rest of the output is not kept (its last lines are in the gate's messages)\n`;
    return Buffer.concat([chunk.subarray(0, room), Buffer.from(note)]);
  };
  const resume = (): void => {
    paused = false;
    for (const stream of streams) stream.resume();
  };
  // A full disk must not stop the run: keep streaming, say the log is incomplete.
  log.on('error', (error) => {
    if (logFailed) return;
    logFailed = true;
    emit(
      `\n[neuron-perf-gate] writing the log file failed, the rest of the output is not in it: ${errorMessage(error)}\n`,
    );
    resume();
  });
  return streams.map((stream) => {
    // One decoder per stream: a UTF-8 character split between two chunks stays whole.
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      emit(decoder.write(chunk));
      const part = logFailed ? undefined : kept(chunk);
      if (part === undefined || log.write(part) || paused) return;
      paused = true;
      for (const each of streams) each.pause();
      log.once('drain', resume);
    });
    return decoder;
  });
}

export async function closeLog(log: WriteStream): Promise<void> {
  if (log.closed || log.destroyed) return;
  await new Promise<void>((resolve) => log.end(() => resolve()));
}

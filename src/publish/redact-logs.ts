// The run logs go into the profile artifact, which anyone who can read the repository may
// download. They are the benchmark's own output, so a benchmark that prints a secret (or
// its command line) would publish it: each log is redacted line by line before upload.

import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { redactText } from '../report/redact.js';

/**
 * Longest piece of a line redacted at once. A longer line (a benchmark can print 1 GB
 * without a newline, more than a string can hold) is cut at its last whitespace before
 * this, where no token is cut in two; a piece with no whitespace at all is left out.
 */
export const MAX_LOG_PIECE = 1024 * 1024;

/** Rewrites each `.log` file of `files` with its secrets replaced (report/redact.ts). */
export async function redactLogFiles(files: readonly string[], secrets: readonly string[]) {
  for (const file of files) if (file.endsWith('.log')) await redactFile(file, secrets);
}

async function redactFile(path: string, secrets: readonly string[]): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const out = createWriteStream(temporary);
  try {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    for await (const chunk of createReadStream(path)) {
      pending += decoder.write(chunk as Buffer);
      pending = await writeWholeLines(pending, out, secrets);
    }
    pending += decoder.end();
    if (pending !== '') await write(out, `${redactText(pending, secrets)}\n`);
    out.end();
    await finished(out);
    await rename(temporary, path);
  } catch (error) {
    out.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Writes the complete lines of `text` redacted, and pieces of an overlong one; returns the rest. */
async function writeWholeLines(
  text: string,
  out: WriteStream,
  secrets: readonly string[],
): Promise<string> {
  let rest = text;
  for (;;) {
    const newline = rest.indexOf('\n');
    if (newline >= 0 && newline <= MAX_LOG_PIECE) {
      await write(out, `${redactText(rest.slice(0, newline).replace(/\r$/, ''), secrets)}\n`);
      rest = rest.slice(newline + 1);
      continue;
    }
    if (rest.length <= MAX_LOG_PIECE) return rest;
    const cut = lastWhitespace(rest, MAX_LOG_PIECE);
    await write(
      out,
      cut > 0
        ? redactText(rest.slice(0, cut), secrets)
        : `[${MAX_LOG_PIECE} characters without a space or newline left out]`,
    );
    rest = rest.slice(cut > 0 ? cut : MAX_LOG_PIECE);
  }
}

/** Index of the last space, tab, CR, VT or FF at or before `before`; −1 when none. */
function lastWhitespace(text: string, before: number): number {
  for (let i = before; i > 0; i -= 1) {
    const code = text.charCodeAt(i);
    if (code === 32 || (code >= 9 && code <= 13)) return i;
  }
  return -1;
}

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

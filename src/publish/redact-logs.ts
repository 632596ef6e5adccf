// The run logs go into the profile artifact, which anyone who can read the repository may
// download. They are the benchmark's own output, so a benchmark that prints a secret (or
// its command line) would publish it: each log is redacted line by line before upload.

import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { redactText } from '../report/redact.js';

/** Rewrites each `.log` file of `files` with its secrets replaced (report/redact.ts). */
export async function redactLogFiles(files: readonly string[], secrets: readonly string[]) {
  for (const file of files) if (file.endsWith('.log')) await redactFile(file, secrets);
}

async function redactFile(path: string, secrets: readonly string[]): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const out = createWriteStream(temporary);
  try {
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!out.write(`${redactText(line, secrets)}\n`)) await once(out, 'drain');
    }
    out.end();
    await finished(out);
    await rename(temporary, path);
  } catch (error) {
    out.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

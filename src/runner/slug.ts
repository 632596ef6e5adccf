// File-safe folder names for benchmarks, e.g. `runs/<slug>/run-1.clean.json`.

import { createHash } from 'node:crypto';

const MAX_READABLE_LENGTH = 60;

/**
 * A readable, file-safe form of a benchmark name: lower case letters, digits, `.`, `_`
 * and `-`. A name that is already in that form is used as it is; any other name gets a
 * short hash of the original appended, so names that only differ in case or punctuation
 * (`Llama 8B`, `llama-8b`, `llama/8b`) do not collide, also on case-insensitive disks.
 */
export function slugify(name: string): string {
  const readable = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, MAX_READABLE_LENGTH)
    .replace(/^[-.]+|[-.]+$/g, '');
  if (readable === name && readable !== '') return readable;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 8);
  return readable === '' ? `benchmark-${hash}` : `${readable}-${hash}`;
}

// Auto-detection by the keys that define a format: the top-level keys its tool always
// writes, every one of them. Any two shared keys are no proof: optimum-neuron's embedding
// benchmark writes requests_per_second and tokens_per_second too, and read as `vllm bench
// throughput` output it lost its latencies without a word. A file with some of a format's
// defining keys but not all is refused, naming the keys it lacks.

import { inputError, type GateError } from '../errors.js';
import { isObject } from './fields.js';
import type { ResultFormat } from './types.js';

/** Defining keys a file must share with a format to look like it: one common name is not enough. */
const SHARED_TO_LOOK_ALIKE = 2;

/** `detect` and `lacks` of a format whose files all have every one of `keys` at the top level. */
export function definedByKeys(keys: readonly string[]): Pick<ResultFormat, 'detect' | 'lacks'> {
  return {
    detect: (data) =>
      missingKeys(data, keys)?.length === 0 ? `top-level ${keys.join(', ')}` : undefined,
    lacks: (data) => lacksDefiningKeys(data, keys),
  };
}

/** The keys `data` lacks when it has at least two of `keys` but not all; else undefined. */
export function lacksDefiningKeys(data: unknown, keys: readonly string[]): string[] | undefined {
  const missing = missingKeys(data, keys);
  if (missing === undefined || missing.length === 0) return undefined;
  return keys.length - missing.length >= SHARED_TO_LOOK_ALIKE ? missing : undefined;
}

/** The keys of `keys` that `data` does not have; undefined when it is not an object. */
function missingKeys(data: unknown, keys: readonly string[]): string[] | undefined {
  return isObject(data) ? keys.filter((key) => !(key in data)) : undefined;
}

/**
 * The refusal of a file no format detects but some look like (ResultFormat.lacks): the
 * formats it lacks the fewest keys of, with those keys. Undefined when none looks like it.
 */
export function lookalikeError(
  formats: readonly ResultFormat[],
  data: unknown,
  file: string,
): GateError | undefined {
  const lookalikes = formats.flatMap((format) => {
    const lacks = format.lacks?.(data);
    return lacks && lacks.length > 0 ? [{ id: format.id, lacks }] : [];
  });
  if (lookalikes.length === 0) return undefined;
  const fewest = Math.min(...lookalikes.map(({ lacks }) => lacks.length));
  const closest = lookalikes.filter(({ lacks }) => lacks.length === fewest);
  const like = closest
    .map(({ id, lacks }) => `${id} output but lacks ${lacks.join(', ')}`)
    .join(', or like ');
  const ids = closest.map(({ id }) => id).join(' or ');
  return inputError(
    file,
    `looks like ${like}; that tool always writes them. If it wrote this file, the file is ` +
      'incomplete or from another version of it: check the benchmark output and rerun it, ' +
      `or set the format to ${ids} to read what the file has. If another tool ` +
      'wrote it, write its figures as github-action-benchmark custom JSON (format ' +
      'custom-smaller-is-better or custom-bigger-is-better).',
  );
}

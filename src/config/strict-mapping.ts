// A zod mapping that refuses unknown keys with a message listing the keys it allows.

import { z } from 'zod';
import { closestKey } from './did-you-mean.js';

/**
 * Passes a nested mapping's issues on from a transform (a schema that takes `true` or a
 * mapping): an unknown key stays an unknown key, so the line names it instead of saying
 * "missing"; any other issue keeps its message and the value found.
 */
export function reissue(context: z.RefinementCtx, issues: readonly z.core.$ZodIssue[]): void {
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      context.addIssue({
        code: 'unrecognized_keys',
        keys: issue.keys,
        message: issue.message,
        path: issue.path,
        input: issue.input,
      });
    } else {
      context.addIssue({
        code: 'custom',
        message: issue.message,
        path: issue.path,
        input: issue.input,
      });
    }
  }
}

/**
 * A strict mapping whose errors list the keys it allows (catches `timeout_minutes`). For
 * unknown keys the message has one line per key, in the order of the issue's `keys`.
 * `elsewhere` maps keys that belong in another mapping to where they go.
 */
export function strictMapping<Shape extends z.ZodRawShape>(
  shape: Shape,
  elsewhere: Readonly<Record<string, string>> = {},
) {
  const allowedKeys = Object.keys(shape);
  const list = allowedKeys.join(', ');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys
          .map((key) => {
            const close = closestKey(key, allowedKeys);
            const hint = Object.hasOwn(elsewhere, key)
              ? ` (${elsewhere[key]})`
              : close === undefined
                ? ''
                : ` (did you mean "${close}"?)`;
            return `unknown key ${JSON.stringify(key)}${hint}; allowed keys: ${list}`;
          })
          .join('\n');
      }
      if (issue.code === 'invalid_type') return `allowed: a mapping with the keys ${list}`;
      return undefined;
    },
  });
}

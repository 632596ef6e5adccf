// `warmup:` in a benchmark entry: each run's first requests (`{ requests: N }`, by start
// time) or first seconds (`{ seconds: S }`) are left out of its latency and throughput
// figures, as the first requests after a server start are often slower (docs/serving.md).

import { z } from 'zod';
import type { WarmupRule } from '../model.js';
import { reissue, strictMapping } from './strict-mapping.js';

export const WARMUP_ALLOWED = {
  warmup:
    'allowed: a mapping with one of requests or seconds, such as { requests: 10 } (the first 10 requests of each run) or { seconds: 30 }',
  requests: 'allowed: a whole number of requests from 1 to 1000000',
  seconds: 'allowed: a number of seconds above 0 and at most 86400',
  both: 'give one of requests or seconds, not both',
} as const;

const mappingSchema = strictMapping({
  requests: z
    .number({ error: WARMUP_ALLOWED.requests })
    .int(WARMUP_ALLOWED.requests)
    .min(1, WARMUP_ALLOWED.requests)
    .max(1_000_000, WARMUP_ALLOWED.requests)
    .optional(),
  seconds: z
    .number({ error: WARMUP_ALLOWED.seconds })
    .gt(0, WARMUP_ALLOWED.seconds)
    .max(86_400, WARMUP_ALLOWED.seconds)
    .optional(),
});

/**
 * `warmup:` as its rule. Not a zod union: a union would say "found a mapping" for a mapping
 * with one wrong field instead of naming the field.
 */
export const warmupSchema = z.unknown().transform((value, context): WarmupRule => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: WARMUP_ALLOWED.warmup, input: value });
    return z.NEVER;
  }
  // reportInput: the issues keep the value found, so the line says "found …", not "missing".
  const parsed = mappingSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    reissue(context, parsed.error.issues);
    return z.NEVER;
  }
  const { requests, seconds } = parsed.data;
  if (requests !== undefined && seconds !== undefined) {
    context.addIssue({ code: 'custom', message: WARMUP_ALLOWED.both, input: value });
    return z.NEVER;
  }
  if (requests !== undefined) return { requests };
  if (seconds !== undefined) return { seconds };
  context.addIssue({ code: 'custom', message: WARMUP_ALLOWED.warmup, input: value });
  return z.NEVER;
});

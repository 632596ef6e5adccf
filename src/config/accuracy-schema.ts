// `accuracy:` in a benchmark entry with a `server:`: the output-agreement check
// (src/accuracy/). A prompt set is sent to the served model with greedy decoding and the
// top-k log-probabilities of each token; the head's answers are compared with the base's,
// beside the base's own repeat (docs/agreement.md). Off unless given.

import { z } from 'zod';
import { readDurationSeconds } from './duration.js';
import { readPercent } from './percent.js';
import { readyUrlProblem } from './server-schema.js';
import { reissue, strictMapping } from './strict-mapping.js';
import type { AccuracySetting } from './types.js';

export const ACCURACY_LIMITS = { maxTokens: 512, topK: 20, prompts: 1000, minPrompts: 8 } as const;

export const ACCURACY_DEFAULTS = {
  maxTokens: 32,
  topK: 5,
  flipMargin: 0.005,
  distanceMargin: 0.01,
  requestTimeoutSeconds: 120,
} as const;

export const ACCURACY_ALLOWED = {
  accuracy:
    'allowed: true, false, or a mapping with prompts, max-tokens, top-k, url, model, flip-margin, distance-margin and request-timeout, such as { prompts: accuracy/prompts.jsonl, max-tokens: 32 }',
  prompts: `allowed: a JSON Lines file in the repository, one {"prompt": "…"} a line, ${ACCURACY_LIMITS.minPrompts} to ${ACCURACY_LIMITS.prompts} lines, such as accuracy/prompts.jsonl`,
  maxTokens: `allowed: a whole number of tokens a prompt's answer has, 1 to ${ACCURACY_LIMITS.maxTokens}`,
  topK: `allowed: a whole number from 1 to ${ACCURACY_LIMITS.topK} (vLLM's --max-logprobs is 20 by default)`,
  url: "allowed: the server's http:// origin on this runner's loopback, such as http://127.0.0.1:8000 (by default the origin of the server's ready-url)",
  model:
    'allowed: the served model name the requests give (by default the first of GET /v1/models)',
  flipMargin:
    'allowed: a percentage from 0% to 50%, such as 0.5%: how many more of the tokens than the base flips against itself the head may flip',
  distanceMargin:
    'allowed: a number from 0 to 1, such as 0.01: how much larger the mean distance (1 − Bhattacharyya coefficient) of the head may be than the base against itself',
  requestTimeout:
    'allowed: a duration above 0 and at most 1 h, such as 2m (a bare number is seconds)',
  needsServer:
    'the agreement check asks a server: give accuracy: in an entry with a server: block (docs/agreement.md)',
  notOnSweep:
    "a sweep's variants share one server: give accuracy: in an entry of its own with the same server: block",
} as const;

function checked<T>(allowedText: string, read: (value: unknown) => T | undefined) {
  return z.unknown().transform((value, context): T => {
    const result = read(value);
    if (result !== undefined) return result;
    context.addIssue({ code: 'custom', message: allowedText, input: value });
    return z.NEVER;
  });
}

const wholeIn = (min: number, max: number) => (value: unknown) =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max
    ? (value as number)
    : undefined;

const text = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

function origin(value: unknown): string | undefined {
  const given = text(value);
  if (given === undefined || readyUrlProblem(given) !== undefined) return undefined;
  const url = new URL(given);
  return url.pathname === '/' && url.search === '' ? url.origin : undefined;
}

function flipMargin(value: unknown): number | undefined {
  const read = readPercent(value);
  return read.kind === 'percent' && read.percent >= 0 && read.percent <= 50
    ? read.percent / 100
    : undefined;
}

const mappingSchema = strictMapping({
  prompts: checked(ACCURACY_ALLOWED.prompts, text).optional(),
  'max-tokens': checked(
    ACCURACY_ALLOWED.maxTokens,
    wholeIn(1, ACCURACY_LIMITS.maxTokens),
  ).optional(),
  'top-k': checked(ACCURACY_ALLOWED.topK, wholeIn(1, ACCURACY_LIMITS.topK)).optional(),
  url: checked(ACCURACY_ALLOWED.url, origin).optional(),
  model: checked(ACCURACY_ALLOWED.model, (v) => {
    const name = text(v);
    return name !== undefined && name.length <= 512 ? name : undefined;
  }).optional(),
  'flip-margin': checked(ACCURACY_ALLOWED.flipMargin, flipMargin).optional(),
  'distance-margin': checked(ACCURACY_ALLOWED.distanceMargin, (v) =>
    typeof v === 'number' && v >= 0 && v <= 1 ? v : undefined,
  ).optional(),
  'request-timeout': checked(ACCURACY_ALLOWED.requestTimeout, (v) => {
    const seconds = readDurationSeconds(v);
    return seconds !== undefined && seconds > 0 && seconds <= 3600 ? seconds : undefined;
  }).optional(),
}).transform((accuracy): AccuracySetting => ({
  ...(accuracy.prompts !== undefined ? { promptsFile: accuracy.prompts } : {}),
  maxTokens: accuracy['max-tokens'] ?? ACCURACY_DEFAULTS.maxTokens,
  topK: accuracy['top-k'] ?? ACCURACY_DEFAULTS.topK,
  ...(accuracy.url !== undefined ? { origin: accuracy.url } : {}),
  ...(accuracy.model !== undefined ? { model: accuracy.model } : {}),
  margins: {
    flips: accuracy['flip-margin'] ?? ACCURACY_DEFAULTS.flipMargin,
    distance: accuracy['distance-margin'] ?? ACCURACY_DEFAULTS.distanceMargin,
  },
  requestTimeoutSeconds: accuracy['request-timeout'] ?? ACCURACY_DEFAULTS.requestTimeoutSeconds,
}));

/** `accuracy:` as its setting (prompts not read yet), or undefined for `false`. */
export const accuracySchema = z
  .unknown()
  .transform((value, context): AccuracySetting | undefined => {
    if (value === false) return undefined;
    const parsed = mappingSchema.safeParse(value === true ? {} : value, { reportInput: true });
    if (parsed.success) return parsed.data;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      context.addIssue({ code: 'custom', message: ACCURACY_ALLOWED.accuracy, input: value });
      return z.NEVER;
    }
    reissue(context, parsed.error.issues);
    return z.NEVER;
  });

// `startup:` in a benchmark entry without a `server:`: measure how long each clean run takes
// from its launch to ready (`benchmark_startup`), ready being the first line of its output
// that matches `ready-log`, else the first complete line of its result file; and with
// `cold: true` one more start on an empty Neuron compile cache (`cold_startup`). With a
// `server:`, only `{ cold: true }`: one more start of the server on an empty cache.

import { z } from 'zod';
import { reissue, strictMapping } from './strict-mapping.js';
import type { StartupSpec } from './types.js';
import { linePatternProblem } from '../text/line-pattern.js';

export const STARTUP_ALLOWED = {
  startup:
    "allowed: true, false, or a mapping with ready-log and cold, such as { ready-log: 'init engine .* took', cold: true }",
  readyLog:
    "allowed: a regular expression in RE2 syntax (JavaScript's without back-references or look-around; docs/security.md) that a line of the benchmark's output matches once it is ready, such as 'init engine .* took'",
  cold: 'allowed: true (one more start on an empty Neuron compile cache, cold_startup) or false',
  withServer:
    'with a server: block, startup: takes only { cold: true }: one more start of the server on an empty Neuron compile cache (cold_startup); its clean starts are timed already (server_startup) and it is ready when its ready: setting says (docs/serving.md); write startup: { cold: true }, or remove startup:',
} as const;

/**
 * Whether `startup:` fits a benchmark with a server: only a cold start. `startup: true` would
 * time the client's start, and ready-log repeat the server's own `ready:`.
 */
export function startupFitsServer(startup: StartupSpec): boolean {
  return startup.cold && startup.readyLog === undefined;
}

function readyLogProblem(text: string): string | undefined {
  const why = linePatternProblem(text);
  return why === undefined ? undefined : `${why}; ${STARTUP_ALLOWED.readyLog}`;
}

const readyLogSchema = z.unknown().transform((value, context): string => {
  const text = typeof value === 'string' ? value.trim() : '';
  const why = text === '' ? STARTUP_ALLOWED.readyLog : readyLogProblem(text);
  if (why === undefined) return text;
  context.addIssue({ code: 'custom', message: why, input: value });
  return z.NEVER;
});

const coldSchema = z.boolean({ error: STARTUP_ALLOWED.cold });

const mappingSchema = strictMapping({
  'ready-log': readyLogSchema.optional(),
  cold: coldSchema.optional(),
}).transform((startup): StartupSpec => ({
  ...(startup['ready-log'] !== undefined ? { readyLog: startup['ready-log'] } : {}),
  cold: startup.cold ?? false,
}));

/**
 * `startup:` as its StartupSpec, or undefined for `false`. Not a zod union: a union would
 * say "found a mapping" for a mapping with one wrong field instead of naming the field.
 */
export const startupSchema = z.unknown().transform((value, context): StartupSpec | undefined => {
  if (value === true) return { cold: false };
  if (value === false) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: STARTUP_ALLOWED.startup, input: value });
    return z.NEVER;
  }
  // reportInput: the issues keep the value found, so the line says "found …", not "missing".
  const parsed = mappingSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  reissue(context, parsed.error.issues);
  return z.NEVER;
});

// `server:` in a benchmark entry: the command of a server the benchmark talks to (`vllm
// serve`), how the gate knows it is ready, and how it stops it (runner/server.ts). The
// fields are named as docker compose names a service's (healthcheck, stop_signal,
// stop_grace_period), in the file's kebab-case.

import { z } from 'zod';
import { DEFAULTS, LIMITS } from './defaults.js';
import { readDurationSeconds } from './duration.js';
import { strictMapping } from './strict-mapping.js';
import { linePatternProblem } from '../text/line-pattern.js';
import { STOP_SIGNALS, type ServerSpec, type StopSignal } from './types.js';

export const SERVER_ALLOWED = {
  command:
    'allowed: a non-empty shell command (run with bash), or a list of its words run without a shell, such as [vllm, serve, Qwen/Qwen3-0.6B]',
  readyUrl:
    "allowed: an http:// URL on this runner's loopback (127.0.0.1, localhost or [::1]) with the server's port, such as http://127.0.0.1:8000/health: the server runs on the runner, and the gate asks it there",
  readyLog:
    "allowed: a regular expression in RE2 syntax (JavaScript's without back-references or look-around; docs/security.md) that a line of the server's output matches once it is ready, such as 'Application startup complete'",
  readiness: 'allowed: either ready-url or ready-log, exactly one of them',
  startTimeout: `allowed: a duration above 0 and at most ${LIMITS.serverStartTimeoutSeconds.max / 3600} h, such as 30m, 90s or 1h30m (a bare number is seconds)`,
  stopSignal: `allowed: ${STOP_SIGNALS.join(', ')} (SIGKILL follows after stop-grace-period)`,
  stopGracePeriod: `allowed: a duration from 0 to ${LIMITS.serverStopGraceSeconds.max / 60} min, such as 30s (a bare number is seconds)`,
} as const;

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/** Undefined when the URL is one the gate can ask on this runner; else why not. */
export function readyUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `not a URL; ${SERVER_ALLOWED.readyUrl}`;
  }
  if (url.protocol !== 'http:') {
    return `${url.protocol.replace(/:$/, '')} is not served on loopback; ${SERVER_ALLOWED.readyUrl}`;
  }
  if (url.username !== '' || url.password !== '') {
    return `a URL with credentials would publish them in the report; ${SERVER_ALLOWED.readyUrl}`;
  }
  const host = url.hostname.toLowerCase();
  if (!LOOPBACK_HOSTS.has(host) && !/^127(\.\d{1,3}){3}$/.test(host)) {
    return `${url.hostname} is not this runner's loopback; ${SERVER_ALLOWED.readyUrl}`;
  }
  return undefined;
}

function readyLogProblem(text: string): string | undefined {
  const why = linePatternProblem(text);
  return why === undefined ? undefined : `${why}; ${SERVER_ALLOWED.readyLog}`;
}

/** A string setting, trimmed, that `problem` says nothing against. */
function checkedText(allowedText: string, problem: (text: string) => string | undefined) {
  return z.unknown().transform((value, context): string => {
    const text = typeof value === 'string' ? value.trim() : '';
    const why = text === '' ? allowedText : problem(text);
    if (why === undefined) return text;
    context.addIssue({ code: 'custom', message: why, input: value });
    return z.NEVER;
  });
}

/** A duration in seconds within (or from) 0 up to `max`. */
function durationSchema(allowedText: string, max: number, zeroAllowed: boolean) {
  return z.unknown().transform((value, context): number => {
    const seconds = readDurationSeconds(value);
    if (seconds !== undefined && seconds <= max && (zeroAllowed ? seconds >= 0 : seconds > 0)) {
      return seconds;
    }
    context.addIssue({ code: 'custom', message: allowedText, input: value });
    return z.NEVER;
  });
}

const stopSignalSchema = z.unknown().transform((value, context): StopSignal => {
  const text = typeof value === 'string' ? value.trim().toUpperCase() : '';
  const name = text.startsWith('SIG') ? text : `SIG${text}`;
  const found = STOP_SIGNALS.find((signal) => signal === name);
  if (found) return found;
  context.addIssue({ code: 'custom', message: SERVER_ALLOWED.stopSignal, input: value });
  return z.NEVER;
});

/**
 * The `server:` mapping, built with the file's own command and env schemas (schema.ts), as
 * its ServerSpec with the defaults filled in.
 */
export function serverSchema(fields: {
  command: z.ZodType<string>;
  env: z.ZodType<Record<string, string>>;
}) {
  return strictMapping({
    command: z.union([fields.command, z.array(fields.command).min(1)], {
      error: SERVER_ALLOWED.command,
    }),
    'ready-url': checkedText(SERVER_ALLOWED.readyUrl, readyUrlProblem).optional(),
    'ready-log': checkedText(SERVER_ALLOWED.readyLog, readyLogProblem).optional(),
    'start-timeout': durationSchema(
      SERVER_ALLOWED.startTimeout,
      LIMITS.serverStartTimeoutSeconds.max,
      false,
    ).optional(),
    'stop-signal': stopSignalSchema.optional(),
    'stop-grace-period': durationSchema(
      SERVER_ALLOWED.stopGracePeriod,
      LIMITS.serverStopGraceSeconds.max,
      true,
    ).optional(),
    env: fields.env.optional(),
  })
    .superRefine((server, context) => {
      if ((server['ready-url'] === undefined) === (server['ready-log'] === undefined)) {
        context.addIssue({ code: 'custom', message: SERVER_ALLOWED.readiness });
      }
    })
    .transform((server): ServerSpec => ({
      command: server.command,
      readiness:
        server['ready-url'] !== undefined
          ? { url: server['ready-url'] }
          : { log: server['ready-log'] ?? '' },
      startTimeoutSeconds: server['start-timeout'] ?? DEFAULTS.serverStartTimeoutSeconds,
      stopSignal: server['stop-signal'] ?? DEFAULTS.serverStopSignal,
      stopGraceSeconds: server['stop-grace-period'] ?? DEFAULTS.serverStopGraceSeconds,
      env: server.env ?? {},
    }));
}

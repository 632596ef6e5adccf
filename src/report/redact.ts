// Nothing the gate publishes (comment, job summary, report.json, artifacts, issues,
// records) may hold a secret: GitHub masks registered secrets in the log, not in a
// comment. Every published string passes through here. It replaces
//   - the values of the gate's own secret-looking environment variables (HF_TOKEN, the
//     github-token input, AWS_SECRET_ACCESS_KEY, ...), wherever they appear;
//   - tokens in the formats GitHub, Hugging Face, AWS, Slack, OpenAI and GitLab issue,
//     and JSON web tokens;
//   - the value of a secret-looking assignment (`HF_TOKEN=...`) or flag (`--api-key ...`),
//     credentials in a URL (`https://user:pass@host`) and Authorization headers.
// It is a backstop: command text from the action's inputs is not published at all.

import type { GateConfig } from '../config/types.js';

export const REDACTED = '***';

/** Names of variables whose values are secrets (case-insensitive). */
const SECRET_NAME =
  /(TOKEN(?!S)|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH(?!OR))/i;

/** Shorter values are too likely to occur by chance ("true", a port) to be replaced. */
const MIN_SECRET_LENGTH = 8;

const TOKEN_FORMATS = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bhf_[A-Za-z0-9]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

// `token` but not `max_tokens` or `--tokenizer`; `auth` but not `--author`.
const SECRET_WORD =
  'token(?![a-z])|secret|password|passwd|passphrase|credentials?|api[_-]?key|access[_-]?key|private[_-]?key|auth(?![a-z])';
const VALUE = `"[^"\\n]*"|'[^'\\n]*'|[^\\s"';&|]+`;

// Name parts are bounded ({0,64}): unbounded, each of them scans the rest of a long run of
// name characters from every place it could start, and a 300,000-character log line of
// `a.a.a.` took minutes (quadratic); bounded, the work is linear in the line.
/** `HF_TOKEN=value`, `export API_KEY="value"`, `"password": "value"`. */
const ASSIGNMENT = new RegExp(
  `(\\b[A-Za-z0-9_.-]{0,64}(?:${SECRET_WORD})[A-Za-z0-9_.-]{0,64}(?:=|": *))(${VALUE})`,
  'gi',
);
/** `--hf-token value`, `--api-key=value`, `-password value`. */
const FLAG = new RegExp(
  `((?:^|\\s)--?[A-Za-z0-9-]{0,64}(?:${SECRET_WORD})[A-Za-z0-9-]{0,64}(?:=|\\s+))(${VALUE})`,
  'gi',
);
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]{0,32}:\/\/)[^/\s:@]+:[^/\s@]+@/gi;
const AUTHORIZATION = /(\bauthorization\s*:\s*(?:bearer|token|basic)\s+)[^\s"']+/gi;

/** The values of `env`'s secret-looking variables, longest first. */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !SECRET_NAME.test(name)) continue;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) values.add(trimmed);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * The values of the secret-looking assignments and flags in `text` (a command): a secret
 * the workflow expanded into `HF_TOKEN=... python bench.py` is also replaced where the
 * benchmark prints it without its name.
 */
export function secretValuesIn(text: string): string[] {
  const values: string[] = [];
  for (const pattern of [ASSIGNMENT, FLAG]) {
    for (const match of text.matchAll(pattern)) {
      const value = match[2]!.replace(/^(["'])(.*)\1$/, '$2').trim();
      if (value.length >= MIN_SECRET_LENGTH && !value.includes('$')) values.push(value);
    }
  }
  return values;
}

/** The secrets a gate run may know: its environment's and those written into commands. */
export function knownSecrets(
  env: Readonly<Record<string, string | undefined>>,
  commands: readonly (string | undefined)[],
): string[] {
  const values = new Set([
    ...secretValuesOf(env),
    ...commands.flatMap((command) => (command ? secretValuesIn(command) : [])),
  ]);
  return [...values].sort((a, b) => b.length - a.length);
}

/** What a gate run may know of secrets: its environment's and its commands'. */
export function gateSecrets(
  config: Pick<GateConfig, 'benchmarks' | 'environmentProbe'>,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return knownSecrets(env, [...config.benchmarks.map((b) => b.command), config.environmentProbe]);
}

/** `text` with every secret it may hold replaced by `***`. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const format of TOKEN_FORMATS) out = out.replace(format, REDACTED);
  out = out.replace(AUTHORIZATION, `$1${REDACTED}`);
  out = out.replace(ASSIGNMENT, (_, name: string, value: string) =>
    value === REDACTED ? `${name}${value}` : `${name}${REDACTED}`,
  );
  out = out.replace(FLAG, (_, flag: string) => `${flag}${REDACTED}`);
  return out.replace(URL_CREDENTIALS, (match: string, scheme: string, at: number, all: string) =>
    holdsCredentials(all, at) ? `${scheme}${REDACTED}@` : match,
  );
}

/**
 * Whether the URL at `at` in `text` has a user or password as fetch reads it (WHATWG URL):
 * in `http://127.0.0.1:8000\@169.254.169.254/` the backslash ends the host, and the `@`
 * is in the path. One that does not parse is taken to have some.
 */
function holdsCredentials(text: string, at: number): boolean {
  const candidate = /^\S+/.exec(text.slice(at))?.[0] ?? '';
  try {
    const url = new URL(candidate);
    return url.username !== '' || url.password !== '';
  } catch {
    return true;
  }
}

/**
 * A copy of a JSON-shaped value with every string redacted, keys too (a result file's
 * `extra` is a mapping the benchmark names). Numbers stay as they are (NaN and Infinity
 * too, which a JSON round trip would turn into null).
 */
export function redactStrings<T>(value: T, secrets: readonly string[] = []): T {
  return redactValue(value, secrets) as T;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  // Typed arrays hold numbers only (per-request samples, millions of them): nothing to hide.
  if (ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key `__proto__` (JSON.parse makes it an own key) stays a key.
    Object.defineProperty(copy, redactText(key, secrets), {
      value: redactValue(item, secrets),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

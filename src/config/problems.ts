// One wrong setting, and how it is shown: every line names where the setting came from
// (file with line and column, or the input/flag), the field, what was found and what is
// allowed, so the user can fix all of them in one go.

import { GateError } from '../errors.js';

export type PathSegment = string | number;

export interface Problem {
  /** The file (as the user would type it) or the input, e.g. `action input 'runs'`. */
  where: string;
  /** 1-based position in the file, when known. */
  line?: number;
  column?: number;
  /** Field path such as `benchmarks[1].thresholds.latency_p95`; '' for the whole source. */
  path: string;
  /** What was found and what is allowed. */
  message: string;
}

export function formatProblem(problem: Problem): string {
  const position = problem.line === undefined ? '' : `:${problem.line}:${problem.column ?? 1}`;
  const field = problem.path === '' ? '' : ` ${problem.path}:`;
  return `${problem.where}${position}:${field} ${problem.message}`;
}

/** All problems of one source as one error, one problem per line. */
export function problemsError(
  kind: 'config' | 'usage',
  problems: readonly Problem[],
  file?: string,
): GateError {
  return new GateError(kind, problems.map(formatProblem).join('\n'), file);
}

/** `['benchmarks', 1, 'runs']` → `benchmarks[1].runs`. */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

const MAX_SHOWN = 60;

/** A found value as the user wrote it: strings quoted and shortened, structures named. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN - 1)}…` : value;
    return JSON.stringify(shown);
  }
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/** `found 0; allowed: …`, or `missing; allowed: …` when the field is not there at all. */
export function foundMessage(value: unknown, rest: string): string {
  return value === undefined ? `missing; ${rest}` : `found ${describeValue(value)}; ${rest}`;
}

// zod issues → problem lines. The schemas' messages say what is allowed; this adds the
// field path, what was found (the issue's input) and, for a file, the line and column.

import type { z } from 'zod';

import { formatPath, foundMessage, describeValue } from './problems.js';
import type { PathSegment, Problem } from './problems.js';

export interface Position {
  line: number;
  column: number;
}

/** Finds where a field is in the source file; `key` asks for the key rather than its value. */
export type Locate = (
  path: readonly PathSegment[],
  options?: { key?: boolean },
) => Position | undefined;

export interface IssueContext {
  /** The file or input the checked value came from. */
  where: string;
  locate?: Locate;
}

export function issuesToProblems(
  issues: readonly z.core.$ZodIssue[],
  context: IssueContext,
): Problem[] {
  return issues.flatMap((issue) => issueToProblems(issue, context));
}

function issueToProblems(issue: z.core.$ZodIssue, context: IssueContext): Problem[] {
  const path = issue.path.filter(isSegment);
  if (issue.code === 'unrecognized_keys') {
    // One line per unknown key; the schema wrote one message line per key, in order.
    const lines = issue.message.split('\n');
    return issue.keys.map((key, index) =>
      problem(context, [...path, key], lines[index] ?? issue.message, { key: true }),
    );
  }
  if (issue.code === 'invalid_key') {
    const allowed = issue.issues.map((inner) => inner.message).join('; ');
    const key = path[path.length - 1];
    return [problem(context, path, `found key ${describeValue(key)}; ${allowed}`, { key: true })];
  }
  return [problem(context, path, foundMessage(issue.input, issue.message))];
}

function problem(
  context: IssueContext,
  path: PathSegment[],
  message: string,
  options: { key?: boolean } = {},
): Problem {
  const position = context.locate?.(path, options);
  return {
    where: context.where,
    ...(position ? { line: position.line, column: position.column } : {}),
    path: formatPath(path),
    message,
  };
}

function isSegment(segment: PropertyKey): segment is PathSegment {
  return typeof segment === 'string' || typeof segment === 'number';
}

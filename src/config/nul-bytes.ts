// A NUL byte cannot be passed to a process (in its command, arguments or environment),
// nor be part of a path. One in the config file would only fail when a benchmark is
// started, so every string of the file, keys included, is checked when it is read.

import type { Locate } from './format-issues.js';
import { formatPath, type PathSegment, type Problem } from './problems.js';

const NUL_MESSAGE =
  'contains a NUL byte (\\0), which no command, variable or path can hold; remove it (an escaped "\\0" in a double-quoted YAML string is one too)';

const MAX_DEPTH = 64;

/** One problem per string (or key) holding a NUL byte, with its place in the file. */
export function nulByteProblems(data: unknown, where: string, locate?: Locate): Problem[] {
  const problems: Problem[] = [];
  const visit = (value: unknown, path: PathSegment[]): void => {
    // Deeper than any setting goes: the schema refuses it anyway.
    if (path.length > MAX_DEPTH) return;
    if (typeof value === 'string') {
      if (value.includes('\0')) problems.push(problemAt(where, path, locate));
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, index]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\0')) problems.push(problemAt(where, [...path, key], locate, true));
        visit(item, [...path, key]);
      }
    }
  };
  visit(data, []);
  return problems;
}

function problemAt(where: string, path: PathSegment[], locate?: Locate, key = false): Problem {
  const position = locate?.(path, { key });
  const shown = path.map((segment) =>
    typeof segment === 'string' ? segment.replaceAll('\0', '\\0') : segment,
  );
  return {
    where,
    ...(position ? { line: position.line, column: position.column } : {}),
    path: formatPath(shown),
    message: key ? `this key ${NUL_MESSAGE}` : NUL_MESSAGE,
  };
}

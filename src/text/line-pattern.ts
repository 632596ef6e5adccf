// The regular expressions a config file gives (`ready-log`), compiled for RE2's linear-time
// engine (re2js) instead of JavaScript's backtracking one: the gate matches them against
// the benchmark's output on its own event loop, where `^(a+)+$` against 42 `a`s and a `!`
// would hold the loop, and with it every deadline and the SIGTERM handler, for hours.
// RE2 matches in time linear in the line, whatever the pattern; what it cannot match so
// (back-references, look-around) it refuses, and so does the config (docs/security.md).

import { RE2JS } from 're2js';

/** What LineMatcher needs of a pattern. */
export interface LinePattern {
  /** Whether some part of `line` matches. */
  test(line: string): boolean;
}

/**
 * The most instructions a compiled pattern may have: each character of a line costs at most
 * one step per instruction, so this bounds the work per line. At this size the slowest
 * pattern tried (`.{990}b`) took about 1 ms per 1,000 characters of output.
 */
export const MAX_PATTERN_INSTRUCTIONS = 1_000;

/** `source` compiled for RE2; throws (with what to write instead) when it cannot be. */
export function compileLinePattern(source: string): LinePattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (error) {
    throw new Error(refusal((error as Error).message), { cause: error });
  }
  if (compiled.programSize() > MAX_PATTERN_INSTRUCTIONS) {
    throw new Error(
      `too large to match each line in bounded time (${compiled.programSize()} RE2 instructions, at most ${MAX_PATTERN_INSTRUCTIONS}): ` +
        'name a shorter part of the line, such as its fixed words',
    );
  }
  return { test: (line) => compiled.test(line) };
}

/** Undefined when `source` compiles; else why not and what to write instead. */
export function linePatternProblem(source: string): string | undefined {
  try {
    compileLinePattern(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** RE2's complaint, with what to write instead for the JavaScript features it lacks. */
function refusal(message: string): string {
  const detail = message.replace(/^error parsing regexp: /, '');
  if (/invalid escape sequence: `\\[1-9]/.test(detail)) {
    return `a back-reference (${detail}) needs a backtracking matcher, which a pattern from a pull request could hold for hours; write the text it repeats, such as (ab)ab instead of (ab)\\1`;
  }
  if (/`\(\?[=!]/.test(detail)) {
    return `look-ahead (${detail}) is not supported by the linear-time matcher; match the text itself, such as 'ready in' instead of 'ready(?= in)', or drop it: a line matches when any part of it does`;
  }
  if (/`\(\?<[=!]/.test(detail)) {
    return `look-behind (${detail}) is not supported by the linear-time matcher; match the text itself, such as 'engine took' instead of '(?<=engine )took'`;
  }
  if (/invalid escape sequence: `\\u/.test(detail)) {
    return `${detail}: RE2 writes a code point as \\x{41}, not \\u0041`;
  }
  if (/invalid repeat count/.test(detail)) {
    return `${detail}: a repeat count is at most 1000, and counts nested in one another multiply`;
  }
  return `not a regular expression RE2 reads (${detail})`;
}

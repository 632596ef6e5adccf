// Finds where a text stops being JSON. V8's JSON.parse says "Unexpected token" without a
// position for many errors, and users need a line and column to look at. Runs only after
// JSON.parse has failed; one linear pass with an explicit stack, so deep nesting is fine.

export interface JsonSyntaxProblem {
  /** Offset into the text (UTF-16 code units) where the problem is. */
  offset: number;
  /** What is wrong there, in words. */
  problem: string;
  /** True when the text ends before the JSON value is complete (a truncated file). */
  truncated: boolean;
}

type State = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'after-value';

// Sticky patterns: lastIndex is set right before every use and the scan is synchronous.
const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// Bare NaN/Infinity are accepted: our reader turns them into null.
const LITERAL = /true|false|null|NaN|Infinity|-Infinity/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** The first syntax error in `text`, or undefined when it is valid (lenient) JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const containers: ('{' | '[')[] = [];
  let state: State = 'value';
  let index = skipWhitespace(text, 0);

  const problemAt = (offset: number, problem: string): JsonSyntaxProblem => ({
    offset,
    problem,
    truncated: offset >= text.length,
  });

  while (index < text.length) {
    const char = text[index]!;
    switch (state) {
      case 'value':
      case 'value-or-close': {
        if (state === 'value-or-close' && char === ']') {
          containers.pop();
          index += 1;
          state = 'after-value';
          break;
        }
        if (char === '{' || char === '[') {
          containers.push(char);
          index += 1;
          state = char === '{' ? 'key-or-close' : 'value-or-close';
          break;
        }
        const end = char === '"' ? stringEnd(text, index) : scalarEnd(text, index);
        if (typeof end !== 'number') return problemAt(end.offset, end.problem);
        index = end;
        state = 'after-value';
        break;
      }
      case 'key-or-close':
      case 'key': {
        if (state === 'key-or-close' && char === '}') {
          containers.pop();
          index += 1;
          state = 'after-value';
          break;
        }
        if (char !== '"') {
          return problemAt(index, `expected a property name in double quotes, found ${show(char)}`);
        }
        const end = stringEnd(text, index);
        if (typeof end !== 'number') return problemAt(end.offset, end.problem);
        index = end;
        state = 'colon';
        break;
      }
      case 'colon':
        if (char !== ':')
          return problemAt(index, `expected ':' after the property name, found ${show(char)}`);
        index += 1;
        state = 'value';
        break;
      case 'after-value': {
        const open = containers.at(-1);
        if (open === undefined) {
          return problemAt(index, `unexpected ${show(char)} after the end of the JSON value`);
        }
        const close = open === '{' ? '}' : ']';
        if (char === ',') {
          state = open === '{' ? 'key' : 'value';
        } else if (char === close) {
          containers.pop();
        } else {
          return problemAt(index, `expected ',' or '${close}', found ${show(char)}`);
        }
        index += 1;
        break;
      }
    }
    index = skipWhitespace(text, index);
  }

  if (state === 'after-value' && containers.length === 0) return undefined;
  return problemAt(text.length, 'the file ends before the JSON is complete');
}

interface Failure {
  offset: number;
  problem: string;
}

/** End of the string opening at `start`, checking escapes and control characters. */
function stringEnd(text: string, start: number): number | Failure {
  let index = start + 1;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code === 0x5c) {
      ESCAPE.lastIndex = index;
      if (!ESCAPE.test(text)) return { offset: index, problem: 'invalid escape in a string' };
      index = ESCAPE.lastIndex;
      continue;
    }
    if (code < 0x20) {
      return { offset: index, problem: 'a raw control character (such as a newline) in a string' };
    }
    index += 1;
  }
  return { offset: text.length, problem: 'the file ends inside a string' };
}

/** End of the number or literal at `start`. */
function scalarEnd(text: string, start: number): number | Failure {
  for (const pattern of [NUMBER, LITERAL]) {
    pattern.lastIndex = start;
    if (pattern.test(text)) return pattern.lastIndex;
  }
  return { offset: start, problem: `expected a value, found ${show(text[start]!)}` };
}

function skipWhitespace(text: string, start: number): number {
  WHITESPACE.lastIndex = start;
  WHITESPACE.test(text);
  return WHITESPACE.lastIndex;
}

function show(char: string): string {
  return JSON.stringify(char);
}

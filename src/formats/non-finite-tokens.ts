// Python's json module (and so Neuron tools and benchmark scripts) writes float('nan')
// and float('inf') as bare NaN / Infinity / -Infinity, which is not JSON. We read them as
// null so that the field is reported as unusable instead of the whole file failing.

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const CAPITAL_N = 0x4e;
const CAPITAL_I = 0x49;
const MINUS = 0x2d;

const TOKENS = ['NaN', 'Infinity', '-Infinity'] as const;

export interface TokenReplacement {
  text: string;
  /** How many tokens were replaced; 0 means `text` is the input unchanged. */
  replaced: number;
}

/**
 * Replaces NaN, Infinity and -Infinity outside strings by null, in one pass. Text inside
 * strings is never touched, so a key or value like "NaN handling" survives as it is.
 */
export function replaceNonFiniteTokens(text: string): TokenReplacement {
  const parts: string[] = [];
  let copiedUpTo = 0;
  let replaced = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = indexAfterString(text, index);
      continue;
    }
    const token =
      code === CAPITAL_N || code === CAPITAL_I || code === MINUS
        ? TOKENS.find((candidate) => text.startsWith(candidate, index))
        : undefined;
    if (token === undefined) {
      index += 1;
      continue;
    }
    parts.push(text.slice(copiedUpTo, index), 'null');
    index += token.length;
    copiedUpTo = index;
    replaced += 1;
  }
  if (replaced === 0) return { text, replaced };
  parts.push(text.slice(copiedUpTo));
  return { text: parts.join(''), replaced };
}

/** Index just after the string that opens at `start`, or the text's length if unterminated. */
export function indexAfterString(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    // The quote closes the string unless an odd number of backslashes escapes it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

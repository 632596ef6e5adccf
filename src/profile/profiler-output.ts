// The profiler's stdout as JSON. Real `neuron-profile view` / `neuron-explorer view` builds
// can print log lines (`INFO: ...`, timestamps, progress) on stdout before or after the
// summary, so the JSON is looked for between them instead of refusing the whole output.

import { parseJsonText } from '../formats/json.js';

/** How many candidate starts and ends are tried: enough for log lines, bounded for 64 MB. */
const MAX_TRIES = 8;
/** How much of an unreadable output the message quotes. */
const QUOTED_CHARS = 120;

/**
 * The JSON object in `text`: the whole text when it is JSON, else the block from a line
 * that begins with `{` to a line that ends with `}`. Throws an Error naming `source` (the
 * profiler's command) and quoting the output's first characters when there is none.
 */
export function profilerOutputJson(text: string, source: string): unknown {
  if (!/\S/.test(text)) throw new Error(`${source} printed nothing on stdout`);
  try {
    return parseJsonText(text, source);
  } catch {
    const embedded = embeddedJson(text);
    if (embedded !== undefined) return embedded;
    throw new Error(
      `${source} printed no JSON summary: ${text.length} characters beginning ` +
        `${JSON.stringify(text.trimStart().slice(0, QUOTED_CHARS))}. Run the command by hand ` +
        'to see what it says.',
    );
  }
}

/**
 * The largest block between log lines that parses as a JSON object, or undefined. Largest
 * first, so a log line that is itself a small JSON object does not hide the summary.
 */
function embeddedJson(text: string): unknown {
  const lines = text.split('\n');
  const starts: number[] = [];
  const ends: number[] = [];
  for (const [index, line] of lines.entries()) {
    if (starts.length < MAX_TRIES && /^\s*\{/.test(line)) starts.push(index);
    if (/\}\s*$/.test(line)) ends.push(index);
  }
  const blocks = starts
    .flatMap((start) =>
      ends.slice(-MAX_TRIES).flatMap((end) => (end >= start ? [[start, end]] : [])),
    )
    .sort((a, b) => b[1]! - b[0]! - (a[1]! - a[0]!));
  for (const [start, end] of blocks) {
    try {
      const value = parseJsonText(lines.slice(start, end! + 1).join('\n'), 'profiler output');
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
    } catch {
      // Not this block: a log line that happens to begin with `{`, or the wrong end.
    }
  }
  return undefined;
}

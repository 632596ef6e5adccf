// Text that came from a benchmark, a config or a branch goes into markdown tables and
// comments. Escaped so that it cannot break a table, inject HTML, ping people or open a
// code span. Underscores stay: GitHub does not emphasise inside words, and names such as
// cache_ON_bucketing_ON must stay readable in the raw markdown too.

const REPLACEMENTS: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '|': '&#124;',
  '`': '&#96;',
  '\\': '&#92;',
  '*': '&#42;',
  '[': '&#91;',
  ']': '&#93;',
  '~': '&#126;',
  '#': '&#35;',
  '!': '&#33;',
  // An entity stops GitHub from turning @name into a mention or #12 into a link.
  '@': '&#64;',
};

/** Escapes user text for use inside a markdown paragraph or table cell (one line). */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[&<>|`\\*[\]~#!@]/g, (character) => REPLACEMENTS[character] ?? character);
}

/** Wraps user text in a code span that its own backticks cannot close. */
export function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  // Pipes still split table cells inside code spans on GitHub.
  return `${fence}${pad}${flat.replace(/\|/g, '\\|')}${pad}${fence}`;
}

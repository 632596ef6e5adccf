// Text that came from a benchmark, a config or a branch goes into markdown tables and
// comments. Escaped so that it cannot break a table, inject HTML, ping people, open a
// code span or read other than it is (bidirectional controls are shown as code points).
// Underscores stay: GitHub does not emphasise inside words, and names such as
// cache_ON_bucketing_ON must stay readable in the raw markdown too.

import { withoutBidiControls } from '../text/printable.js';

/**
 * A zero-width space after `@` and `#`. GitHub finds mentions (@name) and references
 * (#12) in the rendered text, after entities and backslash escapes are decoded, so
 * neither of those stops a ping. A zero-width space is not a word character, so
 * `@\u200Bname` is no mention, yet it reads exactly like `@name` and copies as text.
 * Renovate neutralises the changelogs it quotes the same way.
 */
const NO_AUTOLINK = '\u200B';

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
  '!': '&#33;',
  // GitHub renders $…$ as math.
  $: '&#36;',
  '#': `#${NO_AUTOLINK}`,
  '@': `@${NO_AUTOLINK}`,
};

/**
 * GitHub turns bare `https://host`, `ftp://host` and `www.host` into links (the GFM
 * autolink extension), so a benchmark name or a line of its output could put a link to
 * anywhere into the comment. A zero-width space after `://` and `www.` leaves no domain
 * where the autolink needs one; the text reads the same. (E-mail autolinks are already
 * broken by the space after `@`.)
 */
const AUTOLINK_START = /(:\/\/|\bwww\.)/gi;

/** Escapes user text for use inside a markdown paragraph or table cell (one line). */
export function escapeMarkdown(text: string): string {
  return withoutBidiControls(text)
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[&<>|`\\*[\]~!$#@]/g, (character) => REPLACEMENTS[character] ?? character)
    .replace(AUTOLINK_START, `$1${NO_AUTOLINK}`);
}

/**
 * The label for `key`, or the escaped key itself when it is not one we know: a report.json
 * from a pull request's run may carry any verdict string.
 */
export function labelOf(labels: Readonly<Record<string, string>>, key: string): string {
  return Object.hasOwn(labels, key) ? labels[key]! : escapeMarkdown(String(key));
}

/**
 * Wraps user text in a code span that its own backticks cannot close. Mentions need no
 * care here: GitHub does not look for them inside code.
 */
export function codeSpan(text: string): string {
  const flat = withoutBidiControls(text).replace(/[\r\n]+/g, ' ');
  if (flat === '') return '';
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // CommonMark strips one space from each end when both ends have one, and a backtick at
  // an end would merge with the fence: a space of padding on each side keeps the text.
  const stripped = flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '';
  const pad = stripped || flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  // Pipes still split table cells inside code spans on GitHub; `\|` is the table's escape.
  return `${fence}${pad}${flat.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** A fenced code block whose fence is longer than any backtick run inside it. */
export function fencedBlock(raw: string, language = 'text'): string {
  const text = withoutBidiControls(raw);
  const longestRun = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/**
 * An http(s) URL fit for a markdown link destination, or undefined for anything else
 * (javascript:, a relative path, garbage). Characters that would end the destination or
 * split a table cell are percent-encoded.
 */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  return parsed.href.replace(
    /[()[\]|<>`"'\\\s]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** `[label](url)`, or the bare label when the URL is missing or unsafe. `label` is markdown. */
export function markdownLink(label: string, url: string | undefined): string {
  const href = safeUrl(url);
  return href ? `[${label}](${href})` : label;
}

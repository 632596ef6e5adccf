// Whatever text a benchmark, a config or a branch brings, escaping keeps it one inline
// run of plain text: no table cell split, no HTML, no mention or issue link, no code span,
// and nothing of the text lost.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codeSpan,
  escapeMarkdown,
  fencedBlock,
  markdownLink,
  safeUrl,
} from '../../src/report/escape.js';

const ZWSP = '\u200B';

/** Text rich in the characters that mean something to markdown, HTML and GitHub. */
const hostileText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...'|<>&`\\*[]~!#@$_\n\r\t :/()"\''.split('')),
    fc.constantFrom('@octocat', '#12', '&amp;', '&#64;', '<img src=x>', '</details>', ZWSP),
    fc.string({ maxLength: 3 }),
  ),
  maxLength: 40,
});

/** Undoes escapeMarkdown the way a renderer reads it: entities decoded, zero-width spaces dropped. */
function decode(escaped: string): string {
  return escaped
    .replace(/([@#])\u200B/g, '$1')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

describe('escapeMarkdown', () => {
  it('leaves no character that opens markup, a cell, a code span or a new line', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(escapeMarkdown(text)).not.toMatch(/[|<>`\\*[\]~!$\r\n\t]/);
      }),
    );
  });

  it('uses & only to start one of its own entities', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const stray = escapeMarkdown(text).replace(/&(?:amp|lt|gt|#\d+);/g, '');
        expect(stray).not.toContain('&');
      }),
    );
  });

  it('puts a zero-width space after every @ and #, so no mention or reference forms', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const outsideEntities = escapeMarkdown(text).replace(/&#\d+;/g, '');
        expect(outsideEntities).not.toMatch(/[@#](?!\u200B)/);
      }),
    );
  });

  it('loses nothing: decoded, it is the text with its whitespace runs folded to spaces', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(decode(escapeMarkdown(text))).toBe(text.replace(/[\r\n\t]+/g, ' '));
      }),
    );
  });

  it('keeps names readable', () => {
    expect(escapeMarkdown('cache_ON_bucketing_ON')).toBe('cache_ON_bucketing_ON');
    expect(escapeMarkdown('@octo-team')).toBe(`@${ZWSP}octo-team`);
    expect(escapeMarkdown('a\n| b |\r\nc')).toBe('a &#124; b &#124; c');
  });
});

/** The text inside a code span, as GitHub reads it inside a table cell. */
function spanContent(span: string): string {
  const fence = /^`+/.exec(span)![0];
  expect(span.endsWith(fence)).toBe(true);
  let inner = span.slice(fence.length, span.length - fence.length);
  if (inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '') {
    inner = inner.slice(1, -1);
  }
  return inner.replace(/\\\|/g, '|');
}

describe('codeSpan', () => {
  it('cannot be closed early by the backticks of its own text', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const span = codeSpan(text);
        fc.pre(span !== '');
        const fence = /^`+/.exec(span)![0];
        const inner = span.slice(fence.length, span.length - fence.length);
        const runs = inner.match(/`+/g) ?? [];
        expect(runs.every((run) => run.length !== fence.length)).toBe(true);
      }),
    );
  });

  it('keeps its text, pipes escaped for tables and new lines folded', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const flat = text.replace(/[\r\n]+/g, ' ');
        const span = codeSpan(text);
        if (flat === '') expect(span).toBe('');
        else expect(spanContent(span)).toBe(flat);
        expect(span).not.toMatch(/[\r\n]|(?<!\\)\|/);
      }),
    );
  });

  it('pads text that starts or ends with a backtick', () => {
    expect(codeSpan('a `b` c')).toBe('``a `b` c``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(codeSpan('plain')).toBe('`plain`');
  });
});

describe('fencedBlock', () => {
  it('uses a fence no line of the text can close', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const block = fencedBlock(text);
        const fence = /^`+/.exec(block)![0];
        expect(fence.length).toBeGreaterThanOrEqual(3);
        const lines = block.split('\n').slice(1, -1);
        expect(lines.some((line) => line.trim().startsWith(fence))).toBe(false);
      }),
    );
  });
});

describe('safeUrl and markdownLink', () => {
  it('accepts http(s) only', () => {
    expect(safeUrl('https://github.com/o/r/actions/runs/1')).toBe(
      'https://github.com/o/r/actions/runs/1',
    );
    expect(safeUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeUrl('relative/path')).toBeUndefined();
    expect(safeUrl(undefined)).toBeUndefined();
    expect(markdownLink('run', 'javascript:alert(1)')).toBe('run');
  });

  it('never lets a URL end its link or split a table cell', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true, withFragments: true }),
        hostileText,
        (url, tail) => {
          const href = safeUrl(`${url}${tail.replace(/[\r\n\t]/g, '')}`);
          if (href !== undefined) expect(href).not.toMatch(/[\s()<>|`[\]"'\\]/);
        },
      ),
    );
    expect(markdownLink('x', 'https://e.com/a (b)|c')).toBe('[x](https://e.com/a%20%28b%29%7Cc)');
  });
});

import { describe, expect, it } from 'vitest';
import { LineTail } from '../../src/runner/tail.js';

function tailOf(chunks: string[], capacity = 5, maxLineLength = 2_000): string[] {
  const tail = new LineTail(capacity, maxLineLength);
  for (const chunk of chunks) tail.push(chunk);
  return tail.lines();
}

describe('LineTail', () => {
  it('keeps only the last lines, oldest first', () => {
    const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join('');
    expect(tailOf([text], 3)).toEqual(['line 10', 'line 11', 'line 12']);
  });

  it('joins lines split across chunks, in every possible place', () => {
    const text = 'alpha\nbeta\r\ngamma\ndelta';
    for (let cut = 0; cut <= text.length; cut++) {
      expect(tailOf([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual([
        'alpha',
        'beta',
        'gamma',
        'delta',
      ]);
    }
  });

  it('treats CRLF as one line break, also when CR and LF arrive in different chunks', () => {
    expect(tailOf(['one\r', '\ntwo\r\n', 'three\r', '\n'])).toEqual(['one', 'two', 'three']);
    expect(tailOf(['a\r\n\r\nb\r\n'])).toEqual(['a', '', 'b']);
  });

  it('keeps a final line that has no newline, without dropping the oldest line twice', () => {
    expect(tailOf(['1\n2\n3\npartial'], 3)).toEqual(['2', '3', 'partial']);
    expect(tailOf(['1\n2\n3\n'], 3)).toEqual(['1', '2', '3']);
  });

  it('starts a line over at a lone carriage return, as progress bars do', () => {
    expect(tailOf(['loading\r 10%\r 50%', '\r100%\n', 'done\n'])).toEqual(['100%', 'done']);
    // A chunk ending in CR followed by a chunk without LF is a lone CR too.
    expect(tailOf(['first\r', 'second\n'])).toEqual(['second']);
  });

  it('cuts enormous lines and says how much was cut', () => {
    const huge = 'y'.repeat(1_000_000);
    const lines = tailOf([huge.slice(0, 333_333), huge.slice(333_333), '\nnext\n'], 5, 100);
    expect(lines).toEqual([`${'y'.repeat(100)}… [999900 more characters]`, 'next']);
  });

  it('keeps the cut-off marker on an unfinished enormous line', () => {
    expect(tailOf(['z'.repeat(30)], 5, 10)).toEqual([`${'z'.repeat(10)}… [20 more characters]`]);
  });

  it('keeps nothing when asked for no lines', () => {
    expect(tailOf(['a\nb\npartial'], 0)).toEqual([]);
  });

  it('rejects a negative capacity', () => {
    expect(() => new LineTail(-1)).toThrow(RangeError);
  });

  it('stays small while many megabytes go through it', () => {
    const tail = new LineTail(50, 2_000);
    const chunk = `${'x'.repeat(99)}\n`.repeat(650);
    for (let i = 0; i < 800; i++) tail.push(chunk);
    tail.push('last line\n');
    const lines = tail.lines();
    expect(lines).toHaveLength(50);
    expect(lines.at(-1)).toBe('last line');
    expect(lines.slice(0, 49).every((line) => line === 'x'.repeat(99))).toBe(true);
  });
});

// LineMatcher: a line split anywhere between chunks still matches, and a line longer than
// MAX_LINE_CHARS is tested once on its start and never held whole, so the matcher's work
// and memory stay linear in the output whatever the benchmark prints.
import { describe, expect, it } from 'vitest';
import { LineMatcher, MAX_LINE_CHARS } from '../../src/runner/readiness.js';
import { compileLinePattern } from '../../src/text/line-pattern.js';

/** A pattern that records each line it is handed. */
function spy(source: string) {
  const pattern = compileLinePattern(source);
  const tested: string[] = [];
  return {
    tested,
    pattern: { test: (line: string) => (tested.push(line), pattern.test(line)) },
  };
}

const settled = async (matcher: LineMatcher) => {
  let done = false;
  void matcher.matched().then(() => (done = true));
  await Promise.resolve();
  return done;
};

describe('LineMatcher', () => {
  it('matches a line split between chunks, with any line ending', async () => {
    for (const ending of ['\n', '\r\n', '\r']) {
      const matcher = new LineMatcher(
        compileLinePattern('^INFO: Application startup complete\\.$'),
      );
      for (const chunk of [
        'loading',
        ending,
        'INFO: Applica',
        'tion startup comp',
        `lete.${ending}`,
      ]) {
        matcher.push(chunk);
      }
      expect(await settled(matcher), JSON.stringify(ending)).toBe(true);
    }
  });

  it('waits for the end of a line before it tests it', async () => {
    const { tested, pattern } = spy('^ready$');
    const matcher = new LineMatcher(pattern);
    matcher.push('ready');
    expect(await settled(matcher)).toBe(false);
    matcher.push(' now\n');
    expect(tested).toEqual(['ready now']);
    expect(await settled(matcher)).toBe(false);
  });

  it('tests a line of exactly the cap whole', async () => {
    const { tested, pattern } = spy('b$');
    const matcher = new LineMatcher(pattern);
    matcher.push(`${'a'.repeat(MAX_LINE_CHARS - 1)}b\n`);
    expect(tested.map((line) => line.length)).toEqual([MAX_LINE_CHARS]);
    expect(await settled(matcher)).toBe(true);
  });

  it('tests a 300 MB line once, on its start, and skips the rest of it', async () => {
    const { tested, pattern } = spy('^ready');
    const matcher = new LineMatcher(pattern);
    // 300 MB in pipe-sized chunks, one string reused: what the gate is handed, never held.
    const chunk = 'x'.repeat(64 * 1024);
    for (let sent = 0; sent < 300e6; sent += chunk.length) matcher.push(chunk);
    // A part of the long line that would match were it taken for a line of its own.
    matcher.push('ready\n');
    expect(tested.map((line) => line.length)).toEqual([MAX_LINE_CHARS]);
    expect(await settled(matcher)).toBe(false);
    matcher.push('ready\n');
    expect(tested).toHaveLength(2);
    expect(await settled(matcher)).toBe(true);
  });

  it('tests each character of the output at most once, however it is cut', () => {
    const output = Array.from({ length: 400 }, (_, i) => 'y'.repeat((i * 7919) % 23_000)).join(
      '\n',
    );
    for (const size of [1, 3, 1_000, 65_536]) {
      const { tested, pattern } = spy('never');
      const matcher = new LineMatcher(pattern);
      for (let at = 0; at < output.length; at += size) matcher.push(output.slice(at, at + size));
      const testedChars = tested.reduce((sum, line) => sum + line.length, 0);
      expect(testedChars).toBeLessThanOrEqual(output.length);
      expect(Math.max(...tested.map((line) => line.length))).toBe(MAX_LINE_CHARS);
    }
  });

  it('stops testing once a line matched', () => {
    const { tested, pattern } = spy('up');
    const matcher = new LineMatcher(pattern);
    matcher.push('a\nup\nb\nc\n');
    matcher.push('d\n');
    expect(tested).toEqual(['a', 'up']);
  });
});

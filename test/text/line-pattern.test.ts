// ready-log patterns are matched by RE2 (re2js) in time linear in the line: patterns that
// make JavaScript's backtracking engine run for hours end at once, and what RE2 cannot
// match so (back-references, look-around) is refused with what to write instead.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  MAX_PATTERN_INSTRUCTIONS,
  compileLinePattern,
  linePatternProblem,
} from '../../src/text/line-pattern.js';

/**
 * `work()` run under V8's watchdog: a backtracking match blocks the thread, which no
 * vitest timeout can interrupt, and the watchdog can. The limit is generous: the linear
 * engine needs milliseconds, a backtracking one 2^42 steps (hours) and more.
 */
function withinWatchdog<T>(work: () => T): T {
  return runInNewContext('work()', { work }, { timeout: 60_000 }) as T;
}

// Each a known catastrophic pattern for a backtracking engine, with a line that fails it.
const CATASTROPHIC: [string, (n: number) => string][] = [
  ['^(a+)+$', (n) => `${'a'.repeat(n)}!`],
  ['^(a|aa)+$', (n) => `${'a'.repeat(n)}!`],
  ['^(\\w+\\s?)*$', (n) => `${'word '.repeat(n)}!`],
  ['^(.*a){25}$', (n) => `${'a'.repeat(n)}!`],
];

describe('compileLinePattern', () => {
  it('matches a part of a line, as the ready-log examples need', () => {
    expect(
      compileLinePattern('Application startup complete').test(
        'INFO: Application startup complete.',
      ),
    ).toBe(true);
    expect(
      compileLinePattern('init engine .* took').test('x init engine (profile) took 1.2 s'),
    ).toBe(true);
    expect(compileLinePattern('^ready$').test('ready')).toBe(true);
    expect(compileLinePattern('^ready$').test(' ready')).toBe(false);
    expect(compileLinePattern('(?i)READY').test('server ready')).toBe(true);
  });

  it('ends catastrophic patterns with the right answer, at every line length', () => {
    for (const [source, line] of CATASTROPHIC) {
      const pattern = compileLinePattern(source);
      for (const n of [42, 1_000, 10_000]) {
        expect(
          withinWatchdog(() => pattern.test(line(n))),
          `${source} on ${n}`,
        ).toBe(false);
      }
    }
    // And the same patterns still match the lines they should.
    expect(compileLinePattern('^(a+)+$').test('a'.repeat(10_000))).toBe(true);
  });

  it('refuses a back-reference, saying what to write instead', () => {
    const why = linePatternProblem('(ab)\\1');
    expect(why).toContain('a back-reference');
    expect(why).toContain('such as (ab)ab instead of (ab)\\1');
  });

  it('refuses look-ahead and look-behind, saying what to write instead', () => {
    for (const source of ['ready(?= in)', 'ready(?! yet)']) {
      expect(linePatternProblem(source)).toContain("such as 'ready in' instead of 'ready(?= in)'");
    }
    for (const source of ['(?<=engine )took', '(?<!no )took']) {
      expect(linePatternProblem(source)).toContain("'engine took' instead of '(?<=engine )took'");
    }
  });

  it('says how RE2 writes a code point, and refuses what is no pattern at all', () => {
    expect(linePatternProblem('\\u0041')).toContain('\\x{41}');
    expect(linePatternProblem('(')).toMatch(
      /^not a regular expression RE2 reads \(missing closing \)/,
    );
    expect(linePatternProblem('(a{100}){100}')).toContain('a repeat count is at most 1000');
  });

  it(`refuses a pattern of more than ${MAX_PATTERN_INSTRUCTIONS} instructions, takes one below`, () => {
    expect(linePatternProblem('.{990}b')).toBeUndefined();
    expect(linePatternProblem('.{999}b.{999}c')).toMatch(
      /^too large to match each line in bounded time \(\d+ RE2 instructions, at most 1000\)/,
    );
  });
});

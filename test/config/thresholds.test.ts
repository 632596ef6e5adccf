import { describe, expect, it } from 'vitest';

import { parsePercent, splitThresholdLines } from '../../src/config/thresholds.js';

describe('parsePercent', () => {
  it.each([
    ['5%', 0.05],
    ['2.5%', 0.025],
    [' 15 % ', 0.15],
    ['.5%', 0.005],
    ['1000%', 10],
  ])('reads %j as %d', (text, fraction) => {
    expect(parsePercent(text)).toEqual({ ok: true, fraction });
  });

  it.each([5, 0.05, '5', '0.05'])('refuses the bare number %j and asks for %', (value) => {
    const result = parsePercent(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('write it with %, e.g. 5%');
  });

  it.each(['0%', '-1%', '1000.5%', 'abc%', '5%%', '', null, true])('refuses %j', (value) => {
    const result = parsePercent(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(
      /^allowed: a percentage above 0% and at most 1000%/,
    );
  });
});

describe('splitThresholdLines', () => {
  it('reads lines and comma separated pairs, skipping blanks and comments', () => {
    const result = splitThresholdLines(
      'throughput: 5%, mfu: 10%\n\n# note\nlatency_p99: 15% # loose\n',
    );
    expect(result.entries).toEqual([
      { line: 1, metric: 'throughput', value: '5%' },
      { line: 1, metric: 'mfu', value: '10%' },
      { line: 4, metric: 'latency_p99', value: '15%' },
    ]);
    expect(result.malformed).toEqual([]);
  });

  it('reports entries without a colon with their line', () => {
    expect(splitThresholdLines('mfu: 1%\nthroughput 5%').malformed).toEqual([
      { line: 2, text: 'throughput 5%' },
    ]);
  });
});

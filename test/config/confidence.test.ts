import { describe, expect, it } from 'vitest';

import { parseConfidence } from '../../src/config/confidence.js';

const ALLOWED = 'allowed: a percentage above 50% and below 100%, such as 90%, 95%, 99% or 99.9%';

describe('parseConfidence', () => {
  it.each([
    ['95%', 0.95],
    ['90%', 0.9],
    ['99%', 0.99],
    ['99.9%', 0.999],
    [' 80 % ', 0.8],
    ['50.5%', 0.505],
    ['99.99%', 0.9999],
  ])('reads %j as %d', (text, fraction) => {
    expect(parseConfidence(text)).toEqual({ ok: true, fraction });
  });

  it.each([95, 0.95, '95', '0.95'])('refuses the bare number %j and asks for %', (value) => {
    expect(parseConfidence(value)).toEqual({
      ok: false,
      message: `a bare number is not read as a confidence level: write it with %, e.g. 95%; ${ALLOWED}`,
    });
  });

  it.each(['50%', '100%', '49%', '100.1%', '0%', '-95%', 'abc', '95%%', '', null, true])(
    'refuses %j',
    (value) => {
      expect(parseConfidence(value)).toEqual({ ok: false, message: ALLOWED });
    },
  );
});

// What counts as ready: a 2xx answer only; a redirect is a wrong ready-url, said so.
import { describe, expect, it } from 'vitest';
import { describeProbe, isReady } from '../../src/runner/readiness.js';

const answered = (status: number) => ({ kind: 'answered' as const, status });

describe('isReady', () => {
  it('takes a 2xx answer as ready', () => {
    for (const status of [200, 204, 299]) expect(isReady(answered(status)), `${status}`).toBe(true);
  });

  it('does not take a redirect, an error or no answer as ready', () => {
    for (const status of [199, 300, 301, 302, 307, 308, 399, 404, 503]) {
      expect(isReady(answered(status)), `${status}`).toBe(false);
    }
    expect(isReady({ kind: 'unreachable', code: 'ECONNREFUSED' })).toBe(false);
  });

  it('says a redirect is not followed and points at the path', () => {
    expect(describeProbe(answered(302))).toBe(
      "answered HTTP 302, a redirect, which is not followed (is ready-url the server's health path?)",
    );
    expect(describeProbe(answered(503))).toBe('answered HTTP 503');
  });
});

import { describe, expect, it } from 'vitest';
import {
  bisectCommand,
  commitLink,
  compareLink,
  repositoryBase,
} from '../../src/history/commit-range.js';

const GOOD = '1111111111111111111111111111111111111111';
const BAD = 'abcdefabcdefabcdefabcdefabcdefabcdefabcd';

describe('a regression commit range', () => {
  it('links the range after the last good commit up to the first bad one', () => {
    const base = repositoryBase('https://github.com/acme/serve.git/');
    expect(base).toBe('https://github.com/acme/serve');
    expect(compareLink(base, GOOD, BAD)).toBe(
      `https://github.com/acme/serve/compare/${GOOD}...${BAD}`,
    );
    expect(commitLink(base, BAD)).toBe(`https://github.com/acme/serve/commit/${BAD}`);
  });

  it('makes no link of a URL with credentials, a query, http, or of a non-sha commit', () => {
    expect(repositoryBase('https://user:pw@github.com/acme/serve')).toBeUndefined();
    expect(repositoryBase('https://github.com/acme/serve?x=1')).toBeUndefined();
    expect(repositoryBase('http://github.com/acme/serve')).toBeUndefined();
    expect(repositoryBase('https://github.com/acme/serve/tree/main')).toBeUndefined();
    const base = 'https://github.com/acme/serve';
    expect(compareLink(base, 'main', BAD)).toBeUndefined();
    expect(compareLink(base, GOOD, GOOD)).toBeUndefined();
    expect(commitLink(base, 'javascript:alert(1)')).toBeUndefined();
    expect(commitLink(undefined, BAD)).toBeUndefined();
  });

  it('fills both ends of the bisect command and quotes names a shell would split', () => {
    expect(bisectCommand(GOOD, BAD)).toBe(`neuron-perf-gate bisect --good ${GOOD} --bad ${BAD}`);
    expect(bisectCommand(GOOD, BAD, { benchmark: "llama 8b's", metric: 'ttft_p99' })).toBe(
      `neuron-perf-gate bisect --good ${GOOD} --bad ${BAD} --benchmark 'llama 8b'\\''s' --metric ttft_p99`,
    );
    expect(bisectCommand('$(rm -rf ~)', BAD)).toBeUndefined();
    expect(bisectCommand(BAD, BAD)).toBeUndefined();
  });
});

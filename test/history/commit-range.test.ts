import { describe, expect, it } from 'vitest';
import {
  artifactLink,
  bisectCommand,
  commitLink,
  compareLink,
  numericRunId,
  repositoryBase,
  runAttemptOf,
  runLink,
  seriesLink,
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

describe("a night's run, its artifact and a series on the dashboard", () => {
  const base = 'https://github.com/acme/serve';

  it('links a numeric run id (with its attempt) and an artifact below it', () => {
    expect(runLink(base, '5012-2')).toBe(`${base}/actions/runs/5012`);
    expect(runLink(base, '5012')).toBe(`${base}/actions/runs/5012`);
    expect(runAttemptOf('5012-2')).toBe('2');
    expect(runAttemptOf('5012')).toBeUndefined();
    expect(artifactLink(base, '5012-1', 77)).toBe(`${base}/actions/runs/5012/artifacts/77`);
  });

  it('makes no run or artifact link of text, a missing base or an id that is no count', () => {
    expect(runLink(base, 'seed-3')).toBeUndefined();
    expect(runLink(base, '5012-1/../../x')).toBeUndefined();
    expect(runLink(undefined, '5012')).toBeUndefined();
    expect(numericRunId('12 ')).toBe(0);
    expect(artifactLink(base, '5012', 0)).toBeUndefined();
    expect(artifactLink(base, '5012', 1.5)).toBeUndefined();
    expect(artifactLink(base, 'x', 7)).toBeUndefined();
  });

  it("opens the dashboard at a series by the page's #series= anchor, the id encoded", () => {
    expect(
      seriesLink('https://acme.github.io/serve/', 'g · llama 8b · ttft_p99 · inf2.xlarge'),
    ).toBe(
      'https://acme.github.io/serve/#series=g%20%C2%B7%20llama%208b%20%C2%B7%20ttft_p99%20%C2%B7%20inf2.xlarge',
    );
    expect(seriesLink('https://acme.github.io/serve/index.html', 'a)b')).toBe(
      'https://acme.github.io/serve/index.html#series=a)b',
    );
  });

  it('makes no dashboard link of a page with credentials, a query, a fragment or http', () => {
    for (const page of [
      'http://acme.github.io/serve/',
      'https://u:p@acme.github.io/serve/',
      'https://acme.github.io/serve/?x=1',
      'https://acme.github.io/serve/#top',
      'https://acme.github.io/se rve/',
      'javascript:alert(1)',
      '',
      undefined,
    ]) {
      expect(seriesLink(page, 'id'), String(page)).toBeUndefined();
    }
  });

  it('names a config file that is not the default in the bisect command', () => {
    expect(bisectCommand(GOOD, BAD, { config: 'perf/serve gate.yml', metric: 'ttft_p99' })).toBe(
      `neuron-perf-gate bisect --good ${GOOD} --bad ${BAD} --config 'perf/serve gate.yml' --metric ttft_p99`,
    );
  });
});

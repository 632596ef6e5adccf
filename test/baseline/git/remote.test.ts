import { describe, expect, it } from 'vitest';
import { resolveRemote } from '../../../src/baseline/git/remote.js';

describe('resolveRemote', () => {
  it('keeps URLs as given', () => {
    for (const url of [
      'https://github.com/o/r.git',
      'file:///srv/origin.git',
      'ssh://git@host/o/r.git',
      'git@github.com:o/r.git',
    ]) {
      expect(resolveRemote(url, '/work/clone')).toBe(url);
    }
  });

  it('keeps an absolute path and resolves a relative one against the folder', () => {
    expect(resolveRemote('/srv/origin.git', '/work/clone')).toBe('/srv/origin.git');
    expect(resolveRemote('../origin.git', '/work/clone')).toBe('/work/origin.git');
    expect(resolveRemote('origin.git', '/work/clone')).toBe('/work/clone/origin.git');
  });
});

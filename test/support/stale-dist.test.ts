// The e2e setup's choice between a copy of dist/ and a fresh bundle (test/support/dist-snapshot.ts).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inputNewerThanDist } from './stale-dist.js';

const BUILT = new Date('2026-01-01T12:00:00Z');
const BEFORE = new Date('2026-01-01T11:00:00Z');
const AFTER = new Date('2026-01-01T13:00:00Z');

let root: string;

/** Writes `path` under root with the modification time `at`. */
function file(path: string, at: Date): string {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, 'x');
  utimesSync(full, at, at);
  return full;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'stale-dist-'));
  file('dist/index.js', BUILT);
  file('src/index.ts', BEFORE);
  file('src/runner/deep/server.ts', BEFORE);
  file('rollup.config.js', BEFORE);
  file('package.json', BEFORE);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('inputNewerThanDist', () => {
  it('finds nothing when every input is older than dist/index.js', () => {
    expect(inputNewerThanDist(root)).toBeUndefined();
  });

  it('names a file deep in src/ changed after the bundle', () => {
    const touched = file('src/runner/deep/server.ts', AFTER);
    expect(inputNewerThanDist(root)).toBe(touched);
  });

  it.each(['rollup.config.js', 'package.json', 'rollup.raw-text.js'])(
    'names %s changed after the bundle',
    (name) => {
      const touched = file(name, AFTER);
      expect(inputNewerThanDist(root)).toBe(touched);
    },
  );

  it('ignores files outside the inputs (tests, docs) however new', () => {
    file('test/anything.test.ts', AFTER);
    file('docs/development.md', AFTER);
    expect(inputNewerThanDist(root)).toBeUndefined();
  });

  it('has nothing to compare with when dist/index.js is missing', () => {
    rmSync(join(root, 'dist'), { recursive: true });
    file('src/index.ts', AFTER);
    expect(inputNewerThanDist(root)).toBeUndefined();
  });
});

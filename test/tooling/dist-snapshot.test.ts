// The end-to-end tests run a copy of dist/ taken when the test run started
// (test/support/dist-snapshot.ts), so that rewriting dist/ meanwhile cannot hand a test
// an empty or half-written bundle.
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION, CLI, DIST, ROOT } from '../support/bundled.js';

describe("the tests' copy of dist/", () => {
  // Not compared with dist/ byte for byte: dist/ may be rewritten while this runs.
  it('lies outside the repository and holds every bundle of dist/', async () => {
    expect(relative(ROOT, DIST).startsWith('..'), DIST).toBe(true);
    expect([CLI, ACTION].every((file) => file.startsWith(DIST))).toBe(true);
    const names = await readdir(join(ROOT, 'dist'));
    expect((await readdir(DIST)).sort()).toEqual(names.sort());
    for (const name of names) expect((await stat(join(DIST, name))).size, name).toBeGreaterThan(0);
    expect((await stat(CLI)).mode & 0o111).not.toBe(0);
  });
});

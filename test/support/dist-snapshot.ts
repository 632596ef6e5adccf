// vitest globalSetup: the end-to-end tests run the bundles from a copy of dist/ taken once,
// before any test starts. Rewriting dist/ while the tests run (`npm run bundle`, a merge)
// truncates each file before writing it, and a node process that loads dist/index.js
// in that moment runs an empty file (exit 0, no output) or half a bundle (a SyntaxError):
// one such run failed 'refuses baseline-branch main'. Nothing in `npm test` writes dist/
// (check:dist bundles into a temporary folder, after the tests); a developer may.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder holding this test run's copy of dist/ (test/support/bundled.ts). */
    distSnapshot: string;
  }
}

const DIST = resolve(import.meta.dirname, '..', '..', 'dist');

/** Whether `into` holds a whole copy of dist/ as it is now (nothing empty, nothing changed since). */
function copied(into: string): boolean {
  try {
    // cpSync keeps each file's mode: dist/cli.js stays executable.
    cpSync(DIST, into, { recursive: true, force: true });
    return readdirSync(DIST).every((name) => {
      const copy = readFileSync(join(into, name));
      return copy.length > 0 && copy.equals(readFileSync(join(DIST, name)));
    });
  } catch {
    // A file truncated while it is copied can fail the copy (EIO): the same as changed.
    return false;
  }
}

/** Copies dist/ into `into`, again (up to 5 times, half a second apart) while it is being rewritten. */
function takeSnapshot(into: string): void {
  for (let attempt = 1; !copied(into); attempt += 1) {
    if (attempt === 5) {
      throw new Error(
        `${DIST} kept changing (or has an empty file) while it was copied for the tests: let \`npm run bundle\` finish, then run the tests`,
      );
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
}

export default function setup(project: TestProject): () => void {
  if (!existsSync(join(DIST, 'index.js')) || !existsSync(join(DIST, 'cli.js'))) {
    throw new Error(`The tests run the bundles in ${DIST}, which has none: run \`npm run bundle\``);
  }
  const snapshot = mkdtempSync(join(tmpdir(), 'perf-gate-dist-snapshot-'));
  try {
    takeSnapshot(snapshot);
  } catch (error) {
    rmSync(snapshot, { recursive: true, force: true });
    throw error;
  }
  project.provide('distSnapshot', snapshot);
  // Watch mode: a rerun tests the dist/ of that moment.
  project.onTestsRerun(() => takeSnapshot(snapshot));
  return () => rmSync(snapshot, { recursive: true, force: true });
}

// vitest globalSetup: the end-to-end tests run the bundles from a copy of dist/ taken once,
// before any test starts. Rewriting dist/ while the tests run (`npm run bundle`, a merge)
// truncates each file before writing it, and a node process that loads dist/index.js
// in that moment runs an empty file (exit 0, no output) or half a bundle (a SyntaxError):
// one such run failed 'refuses baseline-branch main'. Nothing in `npm test` writes dist/
// (check:dist bundles into a temporary folder, after the tests); a developer may.
//
// When src/ (or the build's own files) changed after dist/index.js was written, the copy is
// instead a fresh bundle of src/ built into the snapshot folder, so the end-to-end tests test
// the code being changed without waiting for `npm run bundle`. dist/ itself is never written:
// it stays what is committed, and CI's `npm run check:dist` (scripts/check-dist.mjs) still
// fails when the committed dist/ is not what src/ bundles to. A fresh clone writes src/ after
// dist/, so it takes the fresh-bundle path too (about 45 s on a loaded 2-core host).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { inputNewerThanDist } from './stale-dist.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder holding this test run's copy of dist/ (test/support/bundled.ts). */
    distSnapshot: string;
  }
}

const ROOT = resolve(import.meta.dirname, '..', '..');
const DIST = join(ROOT, 'dist');

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

/** Bundles src/ into `into` as `npm run bundle` bundles it into dist/ (rollup.config.js's PERF_GATE_BUNDLE_DIR). */
function bundleInto(into: string): void {
  execFileSync('npx', ['rollup', '-c', 'rollup.config.js', '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PERF_GATE_BUNDLE_DIR: into },
  });
}

/** Fills `into` with the bundles the tests run (see the top of this file), saying which ones. */
function prepare(into: string): void {
  const newer = inputNewerThanDist(ROOT);
  if (newer === undefined) {
    takeSnapshot(into);
    console.log(`dist-snapshot: the tests run a copy of dist/ (nothing in src/ is newer)`);
    return;
  }
  bundleInto(into);
  console.log(
    `dist-snapshot: the tests run a fresh bundle of src/ (${relative(ROOT, newer)} is newer than dist/index.js; dist/ is left as it is)`,
  );
}

export default function setup(project: TestProject): () => void {
  if (!existsSync(join(DIST, 'index.js')) || !existsSync(join(DIST, 'cli.js'))) {
    throw new Error(`The tests run the bundles in ${DIST}, which has none: run \`npm run bundle\``);
  }
  const snapshot = mkdtempSync(join(tmpdir(), 'perf-gate-dist-snapshot-'));
  try {
    prepare(snapshot);
  } catch (error) {
    rmSync(snapshot, { recursive: true, force: true });
    throw error;
  }
  project.provide('distSnapshot', snapshot);
  // Watch mode: a rerun tests the dist/ (or src/) of that moment.
  project.onTestsRerun(() => prepare(snapshot));
  return () => rmSync(snapshot, { recursive: true, force: true });
}

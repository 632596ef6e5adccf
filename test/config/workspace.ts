// Temporary workspaces for the config tests: a folder with the given files and folders,
// removed after each test.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect } from 'vitest';

import { GateError } from '../../src/errors.js';

/** Call at the top of a test file; returns a function that makes a workspace. */
export function useWorkspaces() {
  const created: string[] = [];
  afterEach(async () => {
    await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async function makeWorkspace(
    files: Record<string, string> = {},
    dirs: string[] = [],
  ): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'perf-gate-config-'));
    created.push(root);
    for (const dir of dirs) await mkdir(join(root, dir), { recursive: true });
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content, 'utf8');
    }
    return root;
  };
}

/** The GateError a promise rejects with; fails the test if it resolves or throws else. */
export async function rejection(promise: Promise<unknown>): Promise<GateError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GateError);
  return error as GateError;
}

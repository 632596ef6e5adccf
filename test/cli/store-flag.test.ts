// --store URL names the records of `baseline list`, `history` and `dashboard` by itself.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderBackend } from '../../src/baseline/folder-backend.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { cli } from '../support/cli-run.js';
import { tempDir } from '../support/offline-result.js';
import { at, sampleRecord } from '../baseline/git/support.js';

describe('--store', () => {
  it('reads a store by URL, and does not go with the flags it replaces', async () => {
    const cwd = await tempDir('perf-gate-store-flag-');
    const record = sampleRecord('qwen', 1, at(1));
    await new FolderBackend(join(cwd, 'records')).appendRecords([record]);

    const listed = await cli(['baseline', 'list', '--json', '--store', 'dir:records'], cwd);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).records.map((r: { path: string }) => r.path)).toEqual([
      pathOfRecord(record),
    ]);
    const history = await cli(['history', '--json', '--store', 'dir:records'], cwd);
    expect(history.code).toBe(0);
    expect(JSON.parse(history.stdout).source).toBe(`the folder ${join(cwd, 'records')}`);

    const clash = await cli(['baseline', 'list', '--store', 'dir:records', '--branch', 'x'], cwd);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--store names the store by itself; it does not go with --branch/);
    const bad = await cli(['dashboard', '--out', 'page', '--store', 'records'], cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--store: not a store URL; give s3:\/\//);
  });
});

// `baseline migrate` into the fleet stores and back: the sample history moved from the
// data branch into S3 (the project's test server), from S3 into PostgreSQL (a real
// server), and from PostgreSQL onto a new data branch; `history --json` is the same read
// from each, and the records keep their paths and samples.

import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { cli } from '../support/cli-run.js';
import { startPostgres, type PostgresCluster } from '../support/postgres.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { historyOf, sampleHistoryOnDataBranch } from './sample-history.js';

let s3: S3TestServer;
let postgres: PostgresCluster;
beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAMIGRATETEST00001');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'migrate-secret');
  vi.stubEnv('AWS_SESSION_TOKEN', '');
  s3 = await startS3Server({ accessKeyId: 'AKIAMIGRATETEST00001' });
  postgres = await startPostgres();
});
afterAll(async () => {
  await s3?.close();
  postgres?.remove();
  vi.unstubAllEnvs();
});

describe('neuron-perf-gate baseline migrate to S3 and PostgreSQL', () => {
  it('moves the sample history into S3, on into PostgreSQL, and back onto a data branch, with the same history', async () => {
    const { repos, original, total } = await sampleHistoryOnDataBranch();

    const bucket = `s3://test-bucket/moved?endpoint=${encodeURIComponent(s3.url)}&region=us-east-1`;
    const database = await postgres.createDatabase();
    const back = `git+${repos.origin}#perf-gate-back`;
    const moves = [
      ['git-branch', bucket],
      [bucket, database],
      [database, back],
    ] as const;
    for (const [from, to] of moves) {
      const moved = await cli(['baseline', 'migrate', '--from', from, '--to', to], repos.checkout);
      expect(moved.stderr).toContain(`${total} record(s) of 2 gate(s) are in`);
      expect(moved.code).toBe(0);
    }
    // The S3 leg wrote objects, not nothing, and the password never reached an output.
    expect(s3.count('PutObject')).toBeGreaterThan(0);

    const paths = async (store: GitBranchStore) =>
      (await store.readStoredRecords()).records.map((r) => r.path);
    const copy = new GitBranchStore({
      repoDir: repos.checkout,
      branch: 'perf-gate-back',
      workDir: await mkdtemp(join(repos.root, 'read-')),
    });
    expect(await paths(copy)).toEqual(await paths(original));
    expect((await copy.readRecords('default', 'qwen')).records).toEqual(
      (await original.readRecords('default', 'qwen')).records,
    );

    const reads = await Promise.all(
      [[], ['--store', bucket], ['--store', database], ['--store', back]].map((store) =>
        cli(['history', '--json', ...store], repos.checkout),
      ),
    );
    for (const read of reads) expect(read.code).toBe(0);
    const [fromOriginal, ...copies] = reads.map((read) => historyOf(read.stdout));
    for (const history of copies) expect(history).toEqual(fromOriginal);
    expect((fromOriginal!.series as unknown[]).length).toBeGreaterThan(3);
    for (const read of reads) expect(read.stdout + read.stderr).not.toContain(postgres.password);
  });
});

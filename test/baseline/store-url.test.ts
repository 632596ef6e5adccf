import { describe, expect, it } from 'vitest';
import { openRecordBackend } from '../../src/baseline/open-backend.js';
import { parseStoreUrl } from '../../src/baseline/store-url.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { FolderBackend } from '../../src/baseline/folder-backend.js';
import { S3RecordStore } from '../../src/baseline/s3/s3-record-store.js';
import { PostgresRecordStore } from '../../src/baseline/postgres/postgres-record-store.js';

describe('parseStoreUrl', () => {
  it('reads an S3 bucket, prefix and options, with the perf-gate prefix by default', () => {
    expect(
      parseStoreUrl(
        's3://fleet-results/nightly/inf2?region=us-west-2&endpoint=http://127.0.0.1:9000&path-style=true',
        '/w',
      ),
    ).toEqual({
      kind: 's3',
      bucket: 'fleet-results',
      prefix: 'nightly/inf2',
      region: 'us-west-2',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
    });
    expect(parseStoreUrl('s3://fleet-results', '/w')).toEqual({
      kind: 's3',
      bucket: 'fleet-results',
      prefix: 'perf-gate',
    });
  });

  it('refuses S3 credentials in the URL and unknown options, naming the flag', () => {
    expect(() => parseStoreUrl('s3://key:secret@bucket/p', '/w', '--to')).toThrow(
      /--to s3:\/\/bucket…: .*credentials come from the AWS environment/,
    );
    expect(() => parseStoreUrl('s3://bucket/p?regoin=x', '/w')).toThrow(
      /--store: unknown S3 option 'regoin'/,
    );
  });

  it.each([
    [
      's3://Bad_Bucket/p',
      /--store s3:\/\/…: the bucket is not usable \(allowed: an S3 bucket name/,
    ],
    [`s3://${'b'.repeat(64)}`, /the bucket is not usable/],
    ['s3://bucket/team//perf', /the prefix is not usable \(allowed: a key prefix/],
    ['s3://bucket/p?region=US%20East', /region= is not usable \(allowed: an AWS region name/],
    [
      's3://bucket/p?endpoint=ftp://minio',
      /endpoint= is not usable \(allowed: an http:\/\/ or https:\/\//,
    ],
    [
      's3://bucket/p?endpoint=https://key:hunter2@minio.internal',
      /endpoint= is not usable .*without a user or password/,
    ],
  ])('refuses %s as the action input would, saying which part and what is allowed', (url, why) => {
    expect(() => parseStoreUrl(url, '/w')).toThrow(why);
    expect(() => parseStoreUrl(url, '/w')).not.toThrow(/hunter2/);
  });

  it('keeps a PostgreSQL connection string whole, and never echoes an unknown one', () => {
    const url = 'postgresql://gate:pw@db.internal:5432/perf';
    expect(parseStoreUrl(url, '/w')).toEqual({ kind: 'postgres', connectionString: url });
    expect(parseStoreUrl('postgres://h/db', '/w').kind).toBe('postgres');
    let message = '';
    try {
      parseStoreUrl('mysql://gate:hunter2@db/perf', '/w');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/'mysql:' is not a store this tool knows; give s3:\/\//);
    expect(message).not.toContain('hunter2');
  });

  it('reads a data branch of a remote, and a folder, relative to the working folder', () => {
    expect(parseStoreUrl('git+../origin.git#results', '/w/clone')).toEqual({
      kind: 'git-branch',
      remote: '/w/origin.git',
      branch: 'results',
    });
    expect(parseStoreUrl('git+https://github.com/o/r.git', '/w')).toEqual({
      kind: 'git-branch',
      remote: 'https://github.com/o/r.git',
      branch: 'perf-gate-data',
    });
    expect(parseStoreUrl('dir:records', '/w')).toEqual({ kind: 'folder', dir: '/w/records' });
    expect(() => parseStoreUrl('git+#x', '/w')).toThrow(/give the remote/);
    expect(() => parseStoreUrl('records', '/w')).toThrow(/--store: not a store URL/);
  });
});

describe('openRecordBackend', () => {
  it('opens the data branch, a folder, an S3 bucket and a PostgreSQL database', async () => {
    const git = await openRecordBackend({
      kind: 'git-branch',
      repoDir: '/w',
      workDir: '/tmp/none',
      branch: 'data',
    });
    expect(git).toBeInstanceOf(GitBranchStore);
    expect(git.description).toBe('branch data of the origin of /w');
    expect(await openRecordBackend({ kind: 'folder', dir: '/w/r' })).toBeInstanceOf(FolderBackend);
    const s3 = await openRecordBackend({ kind: 's3', bucket: 'fleet-perf', prefix: 'perf-gate' });
    expect(s3).toBeInstanceOf(S3RecordStore);
    expect(s3.description).toBe('s3://fleet-perf/perf-gate/');
    await s3.close?.();
    const postgres = await openRecordBackend({
      kind: 'postgres',
      connectionString: 'postgres://gate:s3cret-pw@db.example:5433/gates',
    });
    expect(postgres).toBeInstanceOf(PostgresRecordStore);
    expect(postgres.description).toContain("'gates' on db.example:5433");
    expect(postgres.description).not.toContain('s3cret-pw');
    await postgres.close?.();
  });
});

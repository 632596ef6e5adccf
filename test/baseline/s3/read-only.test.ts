// A pull request's run needs only to read the store (docs/security.md: "The record store's
// credentials on a pull request"): with an access key the bucket lets read only, the S3
// store reads the history and the baseline, and a write is refused whole, naming the
// bucket, the refusal and what the credentials need, with nothing stored.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { S3RecordStore } from '../../../src/baseline/s3/s3-record-store.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';
import { at, sampleRecord } from '../git/support.js';

const WRITER = 'AKIAGATEWRITER000001';
const READER = 'AKIAPULLREQUEST00001';

let s3: S3TestServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await s3?.close();
});

function storeSignedBy(accessKeyId: string, url: string): S3RecordStore {
  vi.stubEnv('AWS_ACCESS_KEY_ID', accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', `${accessKeyId}-secret`);
  vi.stubEnv('AWS_SESSION_TOKEN', '');
  return new S3RecordStore({
    bucket: 'test-bucket',
    prefix: 'perf',
    region: 'us-east-1',
    endpoint: url,
    forcePathStyle: true,
    sleep: () => Promise.resolve(),
  });
}

describe('S3RecordStore with read-only credentials', () => {
  it('reads history and baseline, and refuses a write whole with what the role needs', async () => {
    s3 = await startS3Server({ readOnlyAccessKeyIds: [READER] });
    const records = [1, 2, 3].map((n) => sampleRecord('chat', n, at(n * 86_400)));
    const writer = storeSignedBy(WRITER, s3.url);
    await writer.appendRecords(records);
    await writer.close();
    const keysBefore = [...s3.buckets.get('test-bucket')!.objects.keys()].sort();

    const reader = storeSignedBy(READER, s3.url);
    expect((await reader.readRecords('default')).records).toEqual([...records].reverse());
    expect((await reader.readStoredRecords('default', 'chat')).records).toHaveLength(3);
    const write = reader.appendRecords([sampleRecord('chat', 4, at(4 * 86_400))]);
    await expect(write).rejects.toThrow(
      /s3:\/\/test-bucket\/perf.*403 AccessDenied.*s3:PutObject/s,
    );
    await reader.close();
    expect([...s3.buckets.get('test-bucket')!.objects.keys()].sort()).toEqual(keysBefore);
  });
});

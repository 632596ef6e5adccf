// The record store contract against a real S3 bucket, when one is given:
//
//   PERF_GATE_TEST_S3_BUCKET=my-bucket AWS_REGION=us-east-1 npx vitest run test/baseline/contract
//
// with credentials the SDK's way (AWS_* variables, a profile, an instance role), and
// PERF_GATE_TEST_S3_ENDPOINT for an S3-compatible service (path-style). Each case
// writes under a prefix of its own and deletes it after. Without a bucket the suite is
// skipped, and the skipped case says how to run it.

import { randomUUID } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { describe, it } from 'vitest';
import { gateFolder } from '../../../src/baseline/record-paths.js';
import { S3RecordStore } from '../../../src/baseline/s3/s3-record-store.js';
import { at, sampleRecord } from '../git/support.js';
import { describeRecordBackendContract, FOREIGN_GATE } from './record-backend-contract.js';

const bucket = process.env.PERF_GATE_TEST_S3_BUCKET;
const endpoint = process.env.PERF_GATE_TEST_S3_ENDPOINT || undefined;
const where = endpoint ? { endpoint, forcePathStyle: true } : {};

/** Every key under `prefix`, page by page. */
async function keysUnder(client: S3Client, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

if (bucket) {
  describeRecordBackendContract(`real S3 (s3://${bucket})`, async () => {
    const prefix = `perf-gate-contract/${randomUUID()}`;
    const client = new S3Client(where);
    const open = () => new S3RecordStore({ bucket, prefix, ...where });
    return {
      backend: open(),
      reopen: () => Promise.resolve(open()),
      writesBlind: true,
      cleanup: async () => {
        for (const key of await keysUnder(client, `${prefix}/`)) {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
        }
        client.destroy();
      },
      // Another gate's batch, copied byte for byte under this gate's folder.
      plantForeign: async (gateKey) => {
        await open().appendRecords([sampleRecord('qwen', 77, at(77), { gateKey: FOREIGN_GATE })]);
        const [key] = await keysUnder(client, `${prefix}/${gateFolder(FOREIGN_GATE)}/runs/`);
        if (!key) throw new Error('the foreign batch was not written');
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const text = await object.Body!.transformToString();
        const planted = key.replace(`/${gateFolder(FOREIGN_GATE)}/`, `/${gateFolder(gateKey)}/`);
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: planted, Body: text }));
        return planted;
      },
    };
  });
} else {
  describe('RecordBackend contract: real S3', () => {
    it.skip('runs when PERF_GATE_TEST_S3_BUCKET names a bucket and AWS credentials are set (docs/stores.md)', () => {});
  });
}

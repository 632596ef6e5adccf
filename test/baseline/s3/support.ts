// The S3 store against the project's own S3 test server, credentials through the SDK's
// default chain (the AWS_* variables), SigV4 checked by the server.
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { vi } from 'vitest';
import {
  S3RecordStore,
  type S3RecordStoreOptions,
} from '../../../src/baseline/s3/s3-record-store.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';

export const BUCKET = 'test-bucket';
export const PREFIX = 'perf';
const ACCESS_KEY = 'AKIATESTSTORE0000001';
const SECRET_KEY = 'store-test-secret';

export interface StoreHarness {
  s3: S3TestServer;
  store(options?: Partial<S3RecordStoreOptions>): S3RecordStore;
  /** Writes an object as someone else would (no precondition). */
  put(key: string, body: string): Promise<void>;
  /** Keys in the bucket under the store's prefix. */
  keys(under?: string): string[];
  close(): Promise<void>;
}

export async function startHarness(): Promise<StoreHarness> {
  vi.stubEnv('AWS_ACCESS_KEY_ID', ACCESS_KEY);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', SECRET_KEY);
  vi.stubEnv('AWS_SESSION_TOKEN', '');
  const s3 = await startS3Server({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY });
  const stores: S3RecordStore[] = [];
  return {
    s3,
    store(options = {}) {
      const store = new S3RecordStore({
        bucket: BUCKET,
        prefix: PREFIX,
        region: 'us-east-1',
        endpoint: s3.url,
        forcePathStyle: true,
        // Retries at once: the faults are counted, not timed.
        sleep: () => Promise.resolve(),
        ...options,
      });
      stores.push(store);
      return store;
    },
    async put(key, body) {
      const client = new S3Client({ region: 'us-east-1', endpoint: s3.url, forcePathStyle: true });
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
      client.destroy();
    },
    keys(under = `${PREFIX}/`) {
      const objects = s3.buckets.get(BUCKET)?.objects;
      return [...(objects?.keys() ?? [])].filter((key) => key.startsWith(under)).sort();
    },
    async close() {
      for (const store of stores) await store.close();
      await s3.close();
      vi.unstubAllEnvs();
    },
  };
}

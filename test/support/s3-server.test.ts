// The S3 test server, driven by the real @aws-sdk/client-s3 the S3 store will use: what the
// SDK sees must be what it would see from S3, or the store's tests prove nothing.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSignature } from './s3/auth.js';
import { startS3Server, type S3RequestRecord, type S3TestServer } from './s3-server.js';

const BUCKET = 'test-bucket';
const ACCESS_KEY = 'AKIATESTSERVER000001';
const SECRET_KEY = 'test-secret';

let s3: S3TestServer;
const clients: S3Client[] = [];

function clientFor(server: S3TestServer, config: Partial<S3ClientConfig> = {}): S3Client {
  const client = new S3Client({
    endpoint: server.url,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    ...config,
  });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  s3 = await startS3Server({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY });
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await s3.close();
});

/** The HTTP status and S3 error code the SDK reports for a failed call. */
function failureOf(error: unknown): { status?: number; code: string } {
  if (!(error instanceof S3ServiceException)) throw error;
  return { status: error.$metadata.httpStatusCode, code: error.name };
}

async function failureOfCall(call: Promise<unknown>): Promise<{ status?: number; code: string }> {
  try {
    await call;
  } catch (error) {
    return failureOf(error);
  }
  throw new Error('the call succeeded');
}

const md5Etag = (text: string) => `"${createHash('md5').update(text).digest('hex')}"`;

describe('the S3 test server through @aws-sdk/client-s3', () => {
  it('puts, gets, heads, lists and deletes an object', async () => {
    const client = clientFor(s3);
    const key = 'gate/bench one/20261129T000000Z-abc1234-1.json';
    const put = await client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: key,
        Body: '{"value":1}',
        ContentType: 'application/json',
        Metadata: { runner: 'inf2-a' },
      }),
    );
    expect(put.ETag).toBe(md5Etag('{"value":1}'));

    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(await got.Body?.transformToString()).toBe('{"value":1}');
    expect(got.ETag).toBe(put.ETag);
    expect(got.ContentType).toBe('application/json');
    expect(got.Metadata).toEqual({ runner: 'inf2-a' });

    const part = await client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: 'bytes=1-7' }),
    );
    expect(await part.Body?.transformToString()).toBe('"value"');
    expect(part.ContentRange).toBe('bytes 1-7/11');

    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentLength).toBe(11);
    expect(head.ETag).toBe(put.ETag);

    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(
      await failureOfCall(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))),
    ).toEqual({
      status: 404,
      code: 'NotFound',
    });
    expect(
      await failureOfCall(client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))),
    ).toEqual({
      status: 404,
      code: 'NoSuchKey',
    });
    expect(s3.log.map((entry) => `${entry.operation} ${entry.status}`)).toEqual([
      'PutObject 200',
      'GetObject 200',
      'GetObject 206',
      'HeadObject 200',
      'DeleteObject 204',
      'HeadObject 404',
      'GetObject 404',
    ]);
  });

  it('pages a listing by prefix and delimiter, as S3 orders keys (UTF-8 bytes)', async () => {
    const client = clientFor(s3);
    const keys = ['g/a/1', 'g/a/2', 'g/b', 'g/c/1', 'g/d', 'g/\uE000', 'g/\u{1F600}', 'h/1'];
    for (const key of keys)
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));

    const seen = { keys: [] as string[], prefixes: [] as string[], pages: 0 };
    const pages = paginateListObjectsV2(
      { client, pageSize: 2 },
      { Bucket: BUCKET, Prefix: 'g/', Delimiter: '/' },
    );
    for await (const page of pages) {
      seen.pages += 1;
      expect(page.KeyCount).toBeLessThanOrEqual(2);
      seen.keys.push(...(page.Contents ?? []).map((item) => item.Key ?? ''));
      seen.prefixes.push(...(page.CommonPrefixes ?? []).map((item) => item.Prefix ?? ''));
    }
    // U+E000 sorts before U+1F600 in UTF-8 (EE 80 80 < F0 9F 98 80), after it in UTF-16.
    expect(seen).toEqual({
      keys: ['g/b', 'g/d', 'g/\uE000', 'g/\u{1F600}'],
      prefixes: ['g/a/', 'g/c/'],
      pages: 3,
    });

    const after: string[] = [];
    for await (const page of paginateListObjectsV2(
      { client },
      { Bucket: BUCKET, StartAfter: 'g/c/1' },
    )) {
      after.push(...(page.Contents ?? []).map((item) => item.Key ?? ''));
    }
    expect(after).toEqual(['g/d', 'g/\uE000', 'g/\u{1F600}', 'h/1']);
  });

  it('lets exactly one of 16 racing create-only writes to one key through', async () => {
    const client = clientFor(s3);
    const bodies = Array.from({ length: 16 }, (_, writer) => `writer ${writer}`);
    const results = await Promise.allSettled(
      bodies.map((body) =>
        client.send(
          new PutObjectCommand({ Bucket: BUCKET, Key: 'race', Body: body, IfNoneMatch: '*' }),
        ),
      ),
    );
    const winners = results.flatMap((result, writer) =>
      result.status === 'fulfilled' ? [writer] : [],
    );
    const refusals = results.flatMap((result) =>
      result.status === 'rejected' ? [failureOf(result.reason).status] : [],
    );
    // Seen here: 1 × 200 and 15 × 412 (on loopback each small upload is whole before the
    // next is read); with 1 MiB bodies the uploads overlap and one loser gets 409.
    expect(winners).toHaveLength(1);
    expect(refusals).toHaveLength(15);
    for (const status of refusals) expect([409, 412]).toContain(status);
    expect(s3.object(BUCKET, 'race')?.toString()).toBe(bodies[winners[0] as number]);
    // Neither 409 nor 412 is retried: one request a writer.
    expect(s3.count('PutObject')).toBe(16);
  });

  it('answers 409 ConditionalRequestConflict when another write lands during a conditional upload', async () => {
    const client = clientFor(s3);
    const slowBody = new PassThrough();
    const slow = client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'manifest',
        Body: slowBody,
        ContentLength: 10,
        IfNoneMatch: '*',
      }),
    );
    slowBody.write('12345');
    await s3.until((log) => log.some((entry) => entry.key === 'manifest' && entry.status === 0));
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'manifest', Body: 'first' }));
    slowBody.end('67890');
    expect(await failureOfCall(slow)).toEqual({ status: 409, code: 'ConditionalRequestConflict' });
    expect(s3.object(BUCKET, 'manifest')?.toString()).toBe('first');
  });

  it('takes If-Match with the current ETag and refuses a stale one with 412', async () => {
    const client = clientFor(s3);
    const first = await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'index.json', Body: 'v1' }),
    );
    const second = await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'index.json', Body: 'v2', IfMatch: first.ETag }),
    );
    expect(second.$metadata.httpStatusCode).toBe(200);
    expect(second.ETag).toBe(md5Etag('v2'));
    expect(second.ETag).not.toBe(first.ETag);

    const stale = client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'index.json', Body: 'v3', IfMatch: first.ETag }),
    );
    expect(await failureOfCall(stale)).toEqual({ status: 412, code: 'PreconditionFailed' });
    expect(s3.object(BUCKET, 'index.json')?.toString()).toBe('v2');

    const missing = client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'absent', Body: 'x', IfMatch: first.ETag }),
    );
    expect(await failureOfCall(missing)).toEqual({ status: 404, code: 'NoSuchKey' });
  });

  it('can answer If-Match on a missing key with 412 instead of 404, to test a store both ways', async () => {
    const strict = await startS3Server({ ifMatchOnMissingKey: 'PreconditionFailed' });
    try {
      const put = clientFor(strict).send(
        new PutObjectCommand({ Bucket: BUCKET, Key: 'absent', Body: 'x', IfMatch: '"0123"' }),
      );
      expect(await failureOfCall(put)).toEqual({ status: 412, code: 'PreconditionFailed' });
    } finally {
      await strict.close();
    }
  });

  it('deletes on If-Match only when the ETag is current', async () => {
    const client = clientFor(s3);
    const lease = await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'lease', Body: 'holder a' }),
    );
    const wrong = client.send(
      new DeleteObjectCommand({ Bucket: BUCKET, Key: 'lease', IfMatch: md5Etag('holder b') }),
    );
    expect(await failureOfCall(wrong)).toEqual({ status: 412, code: 'PreconditionFailed' });
    await client.send(
      new DeleteObjectCommand({ Bucket: BUCKET, Key: 'lease', IfMatch: lease.ETag }),
    );
    expect(s3.object(BUCKET, 'lease')).toBeUndefined();
  });

  it.each([
    ['aws-chunked with a trailing CRC32 (the SDK default)', 'WHEN_SUPPORTED'],
    ['a plain body', 'WHEN_REQUIRED'],
  ] as const)('writes nothing when the connection drops mid-upload: %s', async (_, checksum) => {
    // The writer goes away with half its body sent (a runner killed mid-upload): the SDK
    // aborts the request, which closes the connection.
    const client = clientFor(s3, { maxAttempts: 1, requestChecksumCalculation: checksum });
    const body = new PassThrough();
    const abort = new AbortController();
    const upload = client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'half', Body: body, ContentLength: 10 }),
      { abortSignal: abort.signal },
    );
    body.write('12345');
    await s3.until((log) => log.some((entry) => entry.key === 'half'));
    abort.abort();
    await expect(upload).rejects.toThrow();
    const settled = (entry: S3RequestRecord) => entry.status !== 0 || entry.note !== undefined;
    await s3.until((log) => log.some((entry) => entry.key === 'half' && settled(entry)));
    expect(s3.log.find((entry) => entry.key === 'half')?.note).toBe('client aborted mid-body');
    expect(s3.object(BUCKET, 'half')).toBeUndefined();
  });

  it('refuses unsigned requests, unknown access keys and wrong signatures', async () => {
    const unsigned = await fetch(`${s3.url}/${BUCKET}/x`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toMatch(
      /<Code>AccessDenied<\/Code>.*<RequestId>[0-9A-F]{16}<\/RequestId>/s,
    );
    const stranger = clientFor(s3, {
      credentials: { accessKeyId: 'AKIAOTHER', secretAccessKey: 'x' },
    });
    const put = stranger.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'x', Body: 'x' }));
    expect(await failureOfCall(put)).toEqual({ status: 403, code: 'InvalidAccessKeyId' });
    const forger = clientFor(s3, {
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: 'guess' },
    });
    const forged = forger.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'x', Body: 'x' }));
    expect(await failureOfCall(forged)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(s3.object(BUCKET, 'x')).toBeUndefined();
  });

  it("recomputes the signature of AWS's published SigV4 example for S3 (GET with a Range)", () => {
    // The example request of "Signature Calculations for the Authorization Header:
    // Transferring Payload in a Single Chunk" (S3 API reference, sig-v4-header-based-auth).
    const example = {
      method: 'GET',
      url: '/test.txt',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': createHash('sha256').update('').digest('hex'),
        'x-amz-date': '20130524T000000Z',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
          'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
          'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      },
    } as unknown as IncomingMessage;
    const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(checkSignature(example, { secretAccessKey })).toEqual({
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      region: 'us-east-1',
    });
    example.headers.range = 'bytes=0-8';
    expect(checkSignature(example, { secretAccessKey })).toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
  });
});

describe('faults the S3 test server injects, as the SDK sees them', () => {
  it('a 500 InternalError is retried by the SDK: two requests, one write', async () => {
    const rule = s3.fault({ method: 'PUT', key: 'run.json' }, { kind: 'InternalError' });
    await clientFor(s3).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'run.json', Body: 'x' }));
    expect(rule.fired).toBe(1);
    expect(s3.log.map((entry) => `${entry.status} ${entry.code ?? ''}`.trim())).toEqual([
      '500 InternalError',
      '200',
    ]);
  });

  it('503 SlowDown on every attempt fails the call after the SDK default of 3 attempts', async () => {
    await clientFor(s3).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'k', Body: 'x' }));
    s3.fault({ method: 'GET', key: 'k', times: 5 }, { kind: 'SlowDown' });
    const get = clientFor(s3).send(new GetObjectCommand({ Bucket: BUCKET, Key: 'k' }));
    expect(await failureOfCall(get)).toEqual({ status: 503, code: 'SlowDown' });
    expect(s3.count('GetObject')).toBe(3);
  });

  it('a 500 after the write landed turns the retried create-only write into 412', async () => {
    // The case a store must read back on: its own first attempt is what the 412 is about.
    s3.fault({ method: 'PUT', key: 'night.json' }, { kind: 'InternalError', applied: true });
    const put = clientFor(s3).send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'night.json', Body: 'mine', IfNoneMatch: '*' }),
    );
    expect(await failureOfCall(put)).toEqual({ status: 412, code: 'PreconditionFailed' });
    expect(s3.object(BUCKET, 'night.json')?.toString()).toBe('mine');
    expect(s3.log.map((entry) => entry.status)).toEqual([500, 412]);
  });

  it('a GET cut mid-body fails when the body is read, and is not retried', async () => {
    const client = clientFor(s3);
    await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'big', Body: 'x'.repeat(64 * 1024) }),
    );
    s3.fault({ method: 'GET', key: /^big$/ }, { kind: 'drop' });
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'big' }));
    await expect(got.Body?.transformToString()).rejects.toThrow();
    expect(s3.count('GetObject')).toBe(1);
  });

  it('a PUT whose answer is cut after it landed is retried by the SDK', async () => {
    s3.fault({ method: 'PUT', key: 'cut' }, { kind: 'drop' });
    await clientFor(s3).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'cut', Body: 'x' }));
    expect(s3.log.map((entry) => `${entry.status} ${entry.note ?? ''}`.trim())).toEqual([
      '0 dropped by fault',
      '200',
    ]);
  });

  it('a slow first byte holds the answer until the test releases it', async () => {
    const client = clientFor(s3);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'slow', Body: 'late' }));
    let release = () => {};
    s3.fault(
      { method: 'GET', key: 'slow' },
      { kind: 'slow-first-byte', release: new Promise<void>((done) => (release = done)) },
    );
    let settled = false;
    const get = client
      .send(new GetObjectCommand({ Bucket: BUCKET, Key: 'slow' }))
      .finally(() => (settled = true));
    await s3.until((log) => log.some((entry) => entry.operation === 'GetObject'));
    await new Promise((done) => setImmediate(done));
    expect(settled).toBe(false);
    release();
    expect(await (await get).Body?.transformToString()).toBe('late');
  });
});

// The S3 operations the test server carries out, each from a parsed request to an answer
// (status, headers, body) or an S3 failure. HTTP, faults and the log are the server's.
//
// References (S3 API reference): PutObject, GetObject (Range: RFC 9110 byte ranges, one
// range only, as S3), HeadObject, DeleteObject, ListObjectsV2, CreateBucket;
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_<Operation>.html
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { decodeUpload, readBody } from './body.js';
import { decodeToken, encodeToken, listPage, type ListMarker } from './listing.js';
import {
  BucketState,
  etagListMatches,
  noSuchKey,
  type MissingKeyAnswer,
  type StoredObject,
} from './objects.js';
import { listDocument, type S3Failure } from './xml.js';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: Buffer;
}

type Outcome = Answer | S3Failure;

export function isFailure(outcome: object): outcome is S3Failure {
  return 'code' in outcome;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function objectHeaders(object: StoredObject): Record<string, string> {
  const headers: Record<string, string> = {
    etag: object.etag,
    'last-modified': object.lastModified.toUTCString(),
    'content-type': object.contentType,
    'accept-ranges': 'bytes',
  };
  for (const [name, value] of Object.entries(object.metadata))
    headers[`x-amz-meta-${name}`] = value;
  return headers;
}

export async function putObject(
  request: IncomingMessage,
  bucket: BucketState,
  key: string,
  seenGeneration: number,
  onMissing: MissingKeyAnswer,
): Promise<Outcome> {
  const upload = decodeUpload(await readBody(request), request.headers);
  if (isFailure(upload)) return { ...upload, key };
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith('x-amz-meta-') && typeof value === 'string')
      metadata[name.slice(11)] = value;
  }
  const object: StoredObject = {
    body: upload.body,
    etag: `"${createHash('md5').update(upload.body).digest('hex')}"`,
    lastModified: new Date(),
    contentType: header(request, 'content-type') ?? 'binary/octet-stream',
    metadata,
    checksumCrc32: upload.checksumCrc32,
  };
  const conditions = {
    ifMatch: header(request, 'if-match'),
    ifNoneMatch: header(request, 'if-none-match'),
  };
  const failure = bucket.put(key, object, conditions, seenGeneration, onMissing);
  if (failure) return failure;
  const headers: Record<string, string> = { etag: object.etag };
  if (object.checksumCrc32) headers['x-amz-checksum-crc32'] = object.checksumCrc32;
  return { status: 200, headers };
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` → an inclusive span; 'unsatisfiable'; or whole. */
export function parseRange(
  value: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = value === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0
      ? 'unsatisfiable'
      : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** GetObject and HeadObject: conditional reads, one byte range. */
export function getObject(request: IncomingMessage, bucket: BucketState, key: string): Outcome {
  const object = bucket.objects.get(key);
  if (object === undefined) return noSuchKey(key);
  const ifMatch = header(request, 'if-match');
  if (ifMatch !== undefined && !etagListMatches(ifMatch, object.etag)) {
    return { status: 412, code: 'PreconditionFailed', message: 'If-Match did not hold.', key };
  }
  const ifNoneMatch = header(request, 'if-none-match');
  if (ifNoneMatch !== undefined && etagListMatches(ifNoneMatch, object.etag)) {
    return { status: 304, headers: { etag: object.etag } };
  }
  const headers = objectHeaders(object);
  const size = object.body.length;
  const range = parseRange(header(request, 'range'), size);
  if (range === 'unsatisfiable') {
    return {
      status: 416,
      code: 'InvalidRange',
      message: 'The requested range is not satisfiable',
      key,
    };
  }
  if (range === undefined) {
    if (object.checksumCrc32 && header(request, 'x-amz-checksum-mode') === 'ENABLED') {
      headers['x-amz-checksum-crc32'] = object.checksumCrc32;
    }
    return { status: 200, headers, body: object.body };
  }
  headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  return { status: 206, headers, body: object.body.subarray(range.start, range.end + 1) };
}

export function deleteObject(request: IncomingMessage, bucket: BucketState, key: string): Outcome {
  return bucket.delete(key, header(request, 'if-match')) ?? { status: 204, headers: {} };
}

const invalidArgument = (message: string): S3Failure => ({
  status: 400,
  code: 'InvalidArgument',
  message,
});

export function listObjectsV2(query: URLSearchParams, bucket: BucketState): Outcome {
  const maxKeysText = query.get('max-keys') ?? '1000';
  if (!/^\d+$/.test(maxKeysText))
    return invalidArgument('Provided max-keys not an integer or within integer range');
  const encodingType = query.get('encoding-type') ?? undefined;
  if (encodingType !== undefined && encodingType !== 'url')
    return invalidArgument('Invalid Encoding Method specified in Request');
  const token = query.get('continuation-token') ?? undefined;
  const startAfter = query.get('start-after') ?? undefined;
  let marker: ListMarker | undefined = startAfter
    ? { after: startAfter, isCommonPrefix: false }
    : undefined;
  if (token !== undefined) {
    marker = decodeToken(token);
    if (marker === undefined)
      return invalidArgument('The continuation token provided is incorrect');
  }
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') || undefined;
  const maxKeys = Math.min(Number(maxKeysText), 1000);
  const page = listPage(bucket.sortedKeys(), { prefix, delimiter, maxKeys, marker });
  const contents = page.keys.map((key) => {
    const object = bucket.objects.get(key) as StoredObject;
    return { key, lastModified: object.lastModified, etag: object.etag, size: object.body.length };
  });
  const xml = listDocument({
    bucket: bucket.name,
    prefix,
    delimiter,
    maxKeys,
    startAfter,
    continuationToken: token,
    nextContinuationToken: page.next && encodeToken(page.next),
    isTruncated: page.next !== undefined,
    contents,
    commonPrefixes: page.commonPrefixes,
    encodingType: encodingType === 'url' ? 'url' : undefined,
  });
  return { status: 200, headers: { 'content-type': 'application/xml' }, body: Buffer.from(xml) };
}

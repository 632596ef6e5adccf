// An upload's body as S3 takes it: read to the end (a connection that drops first gives no
// body at all, so nothing is written), decoded when the client streamed it `aws-chunked`,
// and checked against the digests the client sent.
//
// aws-chunked and trailing checksums:
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html and
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
// The JavaScript SDK v3 sends a CRC32 of every PutObject by default, as a header for a
// buffer and as a trailer of an aws-chunked body for a stream.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { crc32 } from 'node:zlib';
import type { S3Failure } from './xml.js';

/** The client went away before its body was complete. */
export class ClientAborted extends Error {}

export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (request.readableAborted || (request.destroyed && !request.complete)) {
      reject(new ClientAborted('the connection closed before the body was read'));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', () => reject(new ClientAborted('the request body did not arrive whole')));
    request.on('close', () => {
      if (!request.complete) reject(new ClientAborted('the connection closed mid-body'));
    });
  });
}

export interface Upload {
  body: Buffer;
  /** Base64 CRC32 the client sent (header or trailer), kept to answer with it. */
  checksumCrc32?: string;
}

type Headers = IncomingMessage['headers'];

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isAwsChunked(headers: Headers): boolean {
  return (
    (header(headers, 'content-encoding') ?? '').includes('aws-chunked') ||
    (header(headers, 'x-amz-content-sha256') ?? '').startsWith('STREAMING-')
  );
}

/** `<hex size>[;chunk-signature=…]\r\n<data>\r\n` … `0\r\n` then trailer lines. */
export function decodeAwsChunked(
  raw: Buffer,
): { data: Buffer; trailers: Record<string, string> } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const sizeText = raw.toString('latin1', at, lineEnd).split(';')[0] ?? '';
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) return undefined;
    const size = parseInt(sizeText, 16);
    at = lineEnd + 2;
    if (size === 0) break;
    if (at + size + 2 > raw.length || raw.toString('latin1', at + size, at + size + 2) !== '\r\n') {
      return undefined;
    }
    parts.push(raw.subarray(at, at + size));
    at += size + 2;
  }
  const trailers: Record<string, string> = {};
  for (const line of raw.toString('latin1', at).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { data: Buffer.concat(parts), trailers };
}

export function crc32Base64(data: Buffer): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc32(data) >>> 0);
  return bytes.toString('base64');
}

const badDigest = (what: string): S3Failure => ({
  status: 400,
  code: 'BadDigest',
  message: `The ${what} you specified did not match the calculated checksum.`,
});

/** The digests this server checks; others (CRC32C, CRC64NVME, SHA1) are taken on trust. */
function checkDigests(
  body: Buffer,
  headers: Headers,
  crc: string | undefined,
): S3Failure | undefined {
  const md5 = header(headers, 'content-md5');
  if (md5 !== undefined && createHash('md5').update(body).digest('base64') !== md5) {
    return badDigest('Content-MD5');
  }
  if (crc !== undefined && crc32Base64(body) !== crc) return badDigest('x-amz-checksum-crc32');
  const sha = header(headers, 'x-amz-content-sha256');
  if (
    sha &&
    /^[0-9a-f]{64}$/.test(sha) &&
    createHash('sha256').update(body).digest('hex') !== sha
  ) {
    return {
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  }
  return undefined;
}

/** The object's bytes, or the failure S3 would answer with. */
export function decodeUpload(raw: Buffer, headers: Headers): Upload | S3Failure {
  let body = raw;
  let crc = header(headers, 'x-amz-checksum-crc32');
  if (isAwsChunked(headers)) {
    const decoded = decodeAwsChunked(raw);
    if (decoded === undefined) {
      return { status: 400, code: 'IncompleteBody', message: 'The aws-chunked body is malformed.' };
    }
    body = decoded.data;
    crc = decoded.trailers['x-amz-checksum-crc32'] ?? crc;
    const declared = header(headers, 'x-amz-decoded-content-length');
    if (declared !== undefined && Number(declared) !== body.length) {
      return {
        status: 400,
        code: 'IncompleteBody',
        message:
          'You did not provide the number of bytes specified by the Content-Length HTTP header.',
      };
    }
  }
  const failure = checkDigests(body, headers, crc);
  return failure ?? { body, checksumCrc32: crc };
}

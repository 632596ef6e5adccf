// What the S3 test server checks of a request's SigV4 signature: that it is there and well
// formed (algorithm AWS4-HMAC-SHA256, a credential scope ending in s3/aws4_request, the
// signed headers including host, and a 64-hex signature, with x-amz-date and
// x-amz-content-sha256 beside it); when the server was given an access key, that it is
// that one; and when it was also given the secret key, the signature itself, recomputed
// from the canonical request (so a store that signs for the wrong region or mangles a key's
// encoding fails here as on S3). Chunk signatures of a signed aws-chunked body are not
// checked (the SDK v3 sends unsigned chunks with a trailing checksum).
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-auth-using-authorization-header.html
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
// (S3 also requires SigV4 for conditional writes: user guide, "How to prevent object
// overwrites with conditional writes".)
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { S3Failure } from './xml.js';

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/s3\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

export interface SignedBy {
  accessKeyId: string;
  region: string;
}

export interface Credentials {
  accessKeyId?: string;
  /** With it, the signature is recomputed and compared. */
  secretAccessKey?: string;
}

const malformed: S3Failure = {
  status: 400,
  code: 'AuthorizationHeaderMalformed',
  message: 'The authorization header is malformed.',
};

/** RFC 3986 encoding, as SigV4 wants for query names and values. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalRequest(request: IncomingMessage, signedHeaders: string[]): string {
  const [path = '/', query = ''] = (request.url ?? '/').split('?', 2);
  const pairs = [...new URLSearchParams(query)].map(([name, value]) => [
    uriEncode(name),
    uriEncode(value),
  ]);
  pairs.sort(([a = '', x = ''], [b = '', y = '']) =>
    a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0,
  );
  const headerLines = signedHeaders.map((name) => {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : (value ?? '');
    return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
  });
  return [
    request.method ?? 'GET',
    path,
    pairs.map(([name, value]) => `${name}=${value}`).join('&'),
    headerLines.join(''),
    signedHeaders.join(';'),
    String(request.headers['x-amz-content-sha256']),
  ].join('\n');
}

function expectedSignature(
  request: IncomingMessage,
  secret: string,
  scope: { date: string; region: string },
  signedHeaders: string[],
): string {
  const hmac = (key: Buffer | string, data: string) =>
    createHmac('sha256', key).update(data).digest();
  const credentialScope = `${scope.date}/${scope.region}/s3/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    String(request.headers['x-amz-date']),
    credentialScope,
    createHash('sha256').update(canonicalRequest(request, signedHeaders)).digest('hex'),
  ].join('\n');
  let key = hmac(`AWS4${secret}`, scope.date);
  for (const part of [scope.region, 's3', 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

export function checkSignature(
  request: IncomingMessage,
  credentials: Credentials,
): SignedBy | S3Failure {
  const headers: IncomingHttpHeaders = request.headers;
  const authorization = headers.authorization;
  if (authorization === undefined) {
    return { status: 403, code: 'AccessDenied', message: 'Access Denied' };
  }
  const match = AUTHORIZATION.exec(authorization);
  const signedHeaders = match?.[4]?.split(';') ?? [];
  if (
    !match ||
    !signedHeaders.includes('host') ||
    headers['x-amz-date'] === undefined ||
    headers['x-amz-content-sha256'] === undefined
  ) {
    return malformed;
  }
  const [, accessKeyId = '', date = '', region = '', , signature = ''] = match;
  if (credentials.accessKeyId !== undefined && accessKeyId !== credentials.accessKeyId) {
    return {
      status: 403,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    };
  }
  if (credentials.secretAccessKey !== undefined) {
    const expected = expectedSignature(
      request,
      credentials.secretAccessKey,
      { date, region },
      signedHeaders,
    );
    if (!timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
      return {
        status: 403,
        code: 'SignatureDoesNotMatch',
        message: 'The request signature we calculated does not match the signature you provided.',
      };
    }
  }
  return { accessKeyId, region };
}

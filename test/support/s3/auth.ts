// What the S3 test server checks of a request's SigV4 signature: that it is there and well
// formed (algorithm AWS4-HMAC-SHA256, a credential scope ending in s3/aws4_request, the
// signed headers and a 64-hex signature, with x-amz-date and x-amz-content-sha256 beside
// it), and, when the server was given one, that the access key is the expected one. It does
// NOT recompute the signature: the SDK signs, and the tests are about what the store does
// with S3's answers, not about the SDK's signer.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-auth-using-authorization-header.html
// (S3 also requires SigV4 for conditional writes: user guide, "How to prevent object
// overwrites with conditional writes".)
import type { IncomingHttpHeaders } from 'node:http';
import type { S3Failure } from './xml.js';

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/s3\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=[0-9a-f]{64}$/;

export interface SignedBy {
  accessKeyId: string;
  region: string;
}

export function checkSignature(
  headers: IncomingHttpHeaders,
  expectedAccessKeyId: string | undefined,
): SignedBy | S3Failure {
  const authorization = headers.authorization;
  if (authorization === undefined) {
    return { status: 403, code: 'AccessDenied', message: 'Access Denied' };
  }
  const match = AUTHORIZATION.exec(authorization);
  const signed = match?.[4]?.split(';') ?? [];
  if (
    !match ||
    !signed.includes('host') ||
    headers['x-amz-date'] === undefined ||
    headers['x-amz-content-sha256'] === undefined
  ) {
    return {
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: 'The authorization header is malformed.',
    };
  }
  const [, accessKeyId = '', , region = ''] = match;
  if (expectedAccessKeyId !== undefined && accessKeyId !== expectedAccessKeyId) {
    return {
      status: 403,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    };
  }
  return { accessKeyId, region };
}

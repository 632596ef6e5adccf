// What an S3 failure means to the store: try again, a precondition that did not hold,
// or a refusal to report.

import { S3ServiceException } from '@aws-sdk/client-s3';

/** The HTTP status of an S3 error answer; undefined for a failure with no answer. */
export function statusOf(error: unknown): number | undefined {
  if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode;
  const metadata = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return metadata?.httpStatusCode;
}

/** 412 on If-None-Match/If-Match, or 409 when another write landed during ours. */
export function isPreconditionFailure(error: unknown): boolean {
  const status = statusOf(error);
  return status === 412 || (status === 409 && nameOf(error) === 'ConditionalRequestConflict');
}

export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404 && nameOf(error) !== 'NoSuchBucket';
}

/** Network failures with no answer: the connection refused, reset, cut or timed out. */
const CONNECTION_FAILURE =
  /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|socket hang up|aborted|premature close|terminated|other side closed/i;

/**
 * Worth another try: S3's retryable errors (500 InternalError, 503 SlowDown, 502, 504,
 * 429, RequestTimeout) and a connection that failed without a whole answer.
 */
export function isTransient(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined && status !== 200) {
    return status >= 500 || status === 429 || nameOf(error) === 'RequestTimeout';
  }
  if (nameOf(error) === 'CredentialsProviderError') return false;
  const code = (error as { code?: unknown } | null)?.code;
  const text = `${typeof code === 'string' ? code : ''} ${nameOf(error)} ${messageOf(error)}`;
  return nameOf(error) === 'TimeoutError' || CONNECTION_FAILURE.test(text);
}

/** What to tell the user to check, by the kind of failure. */
export function adviceFor(error: unknown): string {
  const status = statusOf(error);
  const name = nameOf(error);
  if (name === 'CredentialsProviderError' || /credential/i.test(messageOf(error))) {
    return 'check that the job has AWS credentials: an instance role, OIDC web identity (aws-actions/configure-aws-credentials) or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY';
  }
  if (status === 403) {
    return 'check that the credentials may s3:GetObject, s3:PutObject and s3:ListBucket on the bucket and prefix';
  }
  if (name === 'NoSuchBucket') return 'check the bucket name and region';
  if (
    status === 501 ||
    (status === 400 && /conditional|If-None-Match|If-Match/i.test(messageOf(error)))
  ) {
    return 'check that the S3 service supports conditional writes (If-None-Match / If-Match); AWS S3 does';
  }
  return 'check the bucket, region and endpoint, and that S3 can be reached from the runner';
}

export function describeError(error: unknown): string {
  const status = statusOf(error);
  const name = nameOf(error);
  const message = messageOf(error);
  const head = status !== undefined ? `${status} ${name}` : name;
  return message && message !== name ? `${head}: ${message}` : head;
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

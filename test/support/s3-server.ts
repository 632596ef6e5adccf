// The project's own S3 test server: loopback HTTP speaking the part of the S3 REST API a
// baseline store needs, with S3's preconditions, so the S3 store's tests fail where S3
// would lose or refuse a write.
//
// Why our own: no S3-compatible server installs on these machines, and the npm `s3rver`
// fake ignores If-None-Match and If-Match (16 of 16 racing create-only writes to one key
// succeed there; S3 lets one through). Tests against it would pass a store that loses data.
//
// What it speaks (path style `/bucket/key`, and virtual-host style `bucket.<host>/key` for
// a bucket it knows): PutObject (If-None-Match: *, If-Match, Content-MD5 and CRC32 checked,
// aws-chunked bodies decoded, an upload applied only once its whole body arrived),
// GetObject (one byte range, If-Match / If-None-Match), HeadObject, DeleteObject (If-Match),
// ListObjectsV2 (prefix, delimiter, max-keys, continuation-token, start-after,
// encoding-type=url), CreateBucket. Anything else: 501 NotImplemented. Answers carry
// x-amz-request-id; errors are S3's XML error document. Requests must carry a well-formed
// SigV4 Authorization header; given the access key it checks it, given the secret key too
// it recomputes the signature (s3/auth.ts). The precondition rules and their sources:
// s3/objects.ts.
//
// For tests: faults by method, key and count (`fault`: 500 InternalError, 503 SlowDown,
// either before or after the write lands, a connection dropped mid-answer, a first byte
// held until a promise settles); a log of every request (operation, key, the headers that
// matter, status) and counts, so a bench can report how many requests a store made.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkSignature } from './s3/auth.js';
import { ClientAborted, readBody } from './s3/body.js';
import { FaultPlan, type FaultMatch, type FaultRule, type S3Fault } from './s3/faults.js';
import { BucketState, type MissingKeyAnswer } from './s3/objects.js';
import {
  deleteObject,
  getObject,
  isFailure,
  listObjectsV2,
  putObject,
  type Answer,
} from './s3/operations.js';
import { errorDocument, type S3Failure } from './s3/xml.js';

export type { S3Fault, FaultMatch } from './s3/faults.js';

export type S3Operation =
  | 'PutObject'
  | 'GetObject'
  | 'HeadObject'
  | 'DeleteObject'
  | 'ListObjectsV2'
  | 'CreateBucket'
  | 'HeadBucket'
  | 'Unsupported';

export interface S3RequestRecord {
  requestId: string;
  method: string;
  operation: S3Operation;
  bucket?: string;
  key?: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  range?: string;
  contentLength?: number;
  /** 0 until answered, and when no answer went out (client or fault cut the connection). */
  status: number;
  /** The error code sent, e.g. PreconditionFailed. */
  code?: string;
  fault?: S3Fault['kind'];
  /** 'client aborted mid-body', 'dropped by fault'. */
  note?: string;
}

export interface S3ServerOptions {
  /** Buckets that exist from the start (default ['test-bucket']); CreateBucket adds more. */
  buckets?: string[];
  /** When set, a request signed with another access key gets 403 InvalidAccessKeyId. */
  accessKeyId?: string;
  /** When set, each signature is recomputed: a wrong one gets 403 SignatureDoesNotMatch. */
  secretAccessKey?: string;
  /**
   * Access keys allowed to read only (a pull request's role): anything but GET and HEAD
   * signed with one gets 403 AccessDenied, as a policy without s3:PutObject answers.
   */
  readOnlyAccessKeyIds?: string[];
  /** PutObject with If-Match on a missing key: S3's 404 NoSuchKey (default) or 412. */
  ifMatchOnMissingKey?: MissingKeyAnswer;
  /** Keep each request's record (default true); counts are kept either way. */
  keepLog?: boolean;
}

export interface S3TestServer {
  /** http://127.0.0.1:<port>: the SDK's endpoint, with forcePathStyle. */
  url: string;
  port: number;
  buckets: Map<string, BucketState>;
  /** Every request, in order of arrival (empty when keepLog is false). */
  log: readonly S3RequestRecord[];
  /** Requests received, in all. */
  readonly requestCount: number;
  /** Requests received for one operation. */
  count(operation: S3Operation): number;
  /** Programs a fault; the rule's `fired` says how often it has fired. */
  fault(match: FaultMatch, fault: S3Fault): FaultRule;
  clearFaults(): void;
  /** Settles once `check` holds of the log (checked on every arrival and every answer). */
  until(check: (log: readonly S3RequestRecord[]) => boolean): Promise<void>;
  /** An object's bytes, or undefined. */
  object(bucket: string, key: string): Buffer | undefined;
  close(): Promise<void>;
}

interface Target {
  bucket?: string;
  key?: string;
  query: URLSearchParams;
  operation: S3Operation;
}

const IP_ADDRESS = /^(\d{1,3}\.){3}\d{1,3}$|^\[/;

function operationOf(
  request: IncomingMessage,
  key: string | undefined,
  query: URLSearchParams,
): S3Operation {
  const method = request.method ?? 'GET';
  if (key === undefined) {
    if (method === 'PUT') return 'CreateBucket';
    if (method === 'HEAD') return 'HeadBucket';
    return method === 'GET' && query.get('list-type') === '2' ? 'ListObjectsV2' : 'Unsupported';
  }
  const multipartOrCopy =
    query.has('uploads') ||
    query.has('uploadId') ||
    request.headers['x-amz-copy-source'] !== undefined;
  if (multipartOrCopy) return 'Unsupported';
  const byMethod: Record<string, S3Operation> = {
    PUT: 'PutObject',
    GET: 'GetObject',
    HEAD: 'HeadObject',
    DELETE: 'DeleteObject',
  };
  return byMethod[method] ?? 'Unsupported';
}

class LoopbackS3 implements S3TestServer {
  readonly buckets = new Map<string, BucketState>();
  readonly log: S3RequestRecord[] = [];
  private readonly faults = new FaultPlan();
  private readonly counts = new Map<S3Operation, number>();
  private readonly waiters = new Set<() => void>();
  private received = 0;
  url = '';
  port = 0;

  constructor(
    private readonly server: Server,
    private readonly options: S3ServerOptions,
  ) {
    for (const name of options.buckets ?? ['test-bucket'])
      this.buckets.set(name, new BucketState(name));
  }

  get requestCount(): number {
    return this.received;
  }

  count(operation: S3Operation): number {
    return this.counts.get(operation) ?? 0;
  }

  fault(match: FaultMatch, fault: S3Fault): FaultRule {
    return this.faults.add(match, fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  until(check: (log: readonly S3RequestRecord[]) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check(this.log)) return;
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
      waiter();
    });
  }

  object(bucket: string, key: string): Buffer | undefined {
    return this.buckets.get(bucket)?.objects.get(key)?.body;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Bucket and key from the path, or from the Host header for a virtual-host request. */
  private target(request: IncomingMessage): Target | S3Failure {
    const url = new URL(request.url ?? '/', 'http://s3.test');
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const label = host.split('.')[0] ?? '';
    const virtual = host.includes('.') && !IP_ADDRESS.test(host) && this.buckets.has(label);
    const path = url.pathname.slice(1);
    const slash = path.indexOf('/');
    try {
      const bucket = virtual
        ? label
        : decodeURIComponent(slash < 0 ? path : path.slice(0, slash)) || undefined;
      const rawKey = virtual ? path : slash < 0 ? '' : path.slice(slash + 1);
      const key = rawKey === '' ? undefined : decodeURIComponent(rawKey);
      return {
        bucket,
        key,
        query: url.searchParams,
        operation: operationOf(request, key, url.searchParams),
      };
    } catch {
      return { status: 400, code: 'InvalidURI', message: "Couldn't parse the specified URI." };
    }
  }

  private record(
    request: IncomingMessage,
    requestId: string,
    target: Partial<Target>,
  ): S3RequestRecord {
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    };
    const length = header('content-length');
    const operation = target.operation ?? 'Unsupported';
    const entry: S3RequestRecord = {
      requestId,
      method: request.method ?? 'GET',
      operation,
      bucket: target.bucket,
      key: target.key,
      ifMatch: header('if-match'),
      ifNoneMatch: header('if-none-match'),
      range: header('range'),
      contentLength: length === undefined ? undefined : Number(length),
      status: 0,
    };
    this.received += 1;
    this.counts.set(operation, this.count(operation) + 1);
    if (this.options.keepLog !== false) this.log.push(entry);
    this.changed();
    return entry;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    response.setHeader('x-amz-request-id', requestId);
    response.setHeader('x-amz-id-2', randomBytes(24).toString('base64'));
    const target = this.target(request);
    const entry = this.record(request, requestId, isFailure(target) ? {} : target);
    try {
      const answer = isFailure(target)
        ? target
        : await this.answer(request, response, target, entry);
      if (answer !== undefined) this.send(request, response, entry, answer);
    } catch (error) {
      if (!(error instanceof ClientAborted)) throw error;
      entry.note = 'client aborted mid-body';
    }
    this.changed();
  }

  private refusesWrite(request: IncomingMessage, accessKeyId: string): boolean {
    const reads = request.method === 'GET' || request.method === 'HEAD';
    return !reads && (this.options.readOnlyAccessKeyIds ?? []).includes(accessKeyId);
  }

  /** The answer to send, or undefined when a fault cut the connection instead. */
  private async answer(
    request: IncomingMessage,
    response: ServerResponse,
    target: Target,
    entry: S3RequestRecord,
  ): Promise<Answer | S3Failure | undefined> {
    const signed = checkSignature(request, this.options);
    if (isFailure(signed)) return signed;
    if (this.refusesWrite(request, signed.accessKeyId)) {
      await readBody(request);
      return { status: 403, code: 'AccessDenied', message: 'Access Denied' };
    }
    // Taken before the body arrives: a conditional write is checked against what happened
    // to its key while it was uploading.
    const seenGeneration =
      target.key === undefined
        ? 0
        : (this.buckets.get(target.bucket ?? '')?.generation(target.key) ?? 0);
    const fault = this.faults.take(entry.method, target.key);
    entry.fault = fault?.kind;
    if (fault?.kind === 'slow-first-byte') await fault.release;
    const serverError =
      fault?.kind === 'InternalError' || fault?.kind === 'SlowDown' ? fault : undefined;
    if (serverError && !serverError.applied) {
      await readBody(request);
      return injectedError(serverError.kind);
    }
    const outcome = await this.perform(request, target, seenGeneration);
    if (serverError) return injectedError(serverError.kind);
    if (fault?.kind === 'drop') {
      entry.note = 'dropped by fault';
      entry.status = dropMidAnswer(request, response, outcome);
      return undefined;
    }
    return outcome;
  }

  private async perform(
    request: IncomingMessage,
    target: Target,
    seenGeneration: number,
  ): Promise<Answer | S3Failure> {
    const { operation, key } = target;
    if (operation === 'Unsupported' || target.bucket === undefined) {
      return {
        status: 501,
        code: 'NotImplemented',
        message: 'The S3 test server does not speak this request.',
      };
    }
    if (operation === 'CreateBucket') return this.createBucket(target.bucket);
    const bucket = this.buckets.get(target.bucket);
    if (bucket === undefined) {
      return {
        status: 404,
        code: 'NoSuchBucket',
        message: 'The specified bucket does not exist',
        bucket: target.bucket,
      };
    }
    if (operation === 'HeadBucket') return { status: 200, headers: {} };
    if (operation === 'ListObjectsV2') return listObjectsV2(target.query, bucket);
    const objectKey = key as string;
    if (operation === 'PutObject') {
      return putObject(
        request,
        bucket,
        objectKey,
        seenGeneration,
        this.options.ifMatchOnMissingKey ?? 'NoSuchKey',
      );
    }
    if (operation === 'DeleteObject') return deleteObject(request, bucket, objectKey);
    return getObject(request, bucket, objectKey);
  }

  private createBucket(name: string): Answer | S3Failure {
    if (this.buckets.has(name)) {
      return {
        status: 409,
        code: 'BucketAlreadyOwnedByYou',
        message:
          'Your previous request to create the named bucket succeeded and you already own it.',
        bucket: name,
      };
    }
    this.buckets.set(name, new BucketState(name));
    return { status: 200, headers: { location: `/${name}` } };
  }

  private send(
    request: IncomingMessage,
    response: ServerResponse,
    entry: S3RequestRecord,
    outcome: Answer | S3Failure,
  ): void {
    const answer = isFailure(outcome) ? this.errorAnswer(request, entry, outcome) : outcome;
    entry.status = answer.status;
    if (isFailure(outcome)) entry.code = outcome.code;
    const body = answer.body ?? Buffer.alloc(0);
    response.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  private errorAnswer(
    request: IncomingMessage,
    entry: S3RequestRecord,
    failure: S3Failure,
  ): Answer {
    const resource = new URL(request.url ?? '/', 'http://s3.test').pathname;
    const xml = errorDocument(failure, resource, entry.requestId);
    return {
      status: failure.status,
      headers: { 'content-type': 'application/xml' },
      body: Buffer.from(xml),
    };
  }
}

function injectedError(kind: 'InternalError' | 'SlowDown'): S3Failure {
  return kind === 'SlowDown'
    ? { status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' }
    : {
        status: 500,
        code: 'InternalError',
        message: 'We encountered an internal error. Please try again.',
      };
}

/** A GET's headers and half its body, then the connection cut; otherwise cut at once. */
function dropMidAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  outcome: Answer | S3Failure,
): number {
  const socket = request.socket;
  const body = isFailure(outcome) ? undefined : outcome.body;
  if (request.method !== 'GET' || isFailure(outcome) || body === undefined || body.length < 2) {
    socket.destroy();
    return 0;
  }
  response.writeHead(outcome.status, { ...outcome.headers, 'content-length': String(body.length) });
  response.write(body.subarray(0, body.length >> 1), () => socket.destroy());
  return outcome.status;
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3TestServer> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const s3 = new LoopbackS3(server, options);
  s3.port = (server.address() as AddressInfo).port;
  s3.url = `http://127.0.0.1:${s3.port}`;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    s3.handle(request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  return s3;
}

// A loopback stand-in for GitHub's Actions results service, speaking the protocol that
// `@actions/artifact` (v2+) uses to upload an artifact:
//
// 1. POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact
//    JSON body with proto field names: workflow_run_backend_id, workflow_job_run_backend_id,
//    name, version, mime_type, expires_at. Bearer auth with ACTIONS_RUNTIME_TOKEN, a JWT
//    whose `scp` claim holds `Actions.Results:<runBackendId>:<jobBackendId>`.
//    Answer: { ok, signed_upload_url } — a SAS-style blob URL back on this server.
// 2. Azure Blob "Put Block" (PUT <blob url>&comp=block&blockid=<base64>) for each chunk of
//    the zip, then "Put Block List" (PUT <blob url>&comp=blocklist, an XML <BlockList>),
//    which commits the blob; a single "Put Blob" (PUT with x-ms-blob-type: BlockBlob) is
//    accepted too.
// 3. POST .../FinalizeArtifact { workflow_run_backend_id, workflow_job_run_backend_id,
//    name, size, hash: "sha256:<hex>" } → { ok, artifact_id }.
//
// Errors follow the real peers: twirp errors are JSON { code, msg } with the matching
// HTTP status, blob errors are XML <Error><Code/><Message/></Error> with x-ms-error-code.
// Tests can make the next N calls of one operation fail with a status and message.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

const TWIRP_PREFIX = '/twirp/github.actions.results.api.v1.ArtifactService/';
const BLOB_PREFIX = '/blob/actions-results/';
const STORAGE_VERSION = '2025-01-05';

export type TwirpMethod =
  | 'CreateArtifact'
  | 'FinalizeArtifact'
  | 'ListArtifacts'
  | 'GetSignedArtifactURL'
  | 'DeleteArtifact';
export type BlobOperation = 'PutBlock' | 'PutBlockList' | 'PutBlob';
export type Operation = TwirpMethod | BlobOperation;

export interface InjectedFailure {
  status: number;
  /** Twirp error code, or the blob error code; derived from the status when left out. */
  code?: string;
  msg?: string;
  /** How many calls in a row fail before the operation works again (default 1). */
  times?: number;
}

export interface RecordedRequest {
  operation: Operation | 'unknown';
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  bodyLength: number;
  /** Parsed body of a twirp call. */
  json?: unknown;
  status: number;
}

export interface StoredArtifact {
  id: number;
  name: string;
  workflowRunBackendId: string;
  workflowJobRunBackendId: string;
  version: number;
  mimeType?: string;
  expiresAt?: string;
  /** The committed blob: the zip as it arrived. */
  blob?: Buffer;
  blobContentType?: string;
  /** Block ids in the order the committed block list named them. */
  blockIds: string[];
  uncommitted: Map<string, Buffer>;
  finalized: boolean;
  size?: number;
  hash?: string;
}

interface Backend {
  workflowRunBackendId: string;
  workflowJobRunBackendId: string;
}

export class ResultsService {
  readonly requests: RecordedRequest[] = [];
  readonly artifacts = new Map<string, StoredArtifact>();
  /** The ACTIONS_RUNTIME_TOKEN this server accepts. */
  readonly runtimeToken: string;
  readonly backend: Backend = {
    workflowRunBackendId: randomUUID(),
    workflowJobRunBackendId: randomUUID(),
  };
  private readonly secret = randomBytes(32);
  private readonly failures = new Map<Operation, InjectedFailure & { times: number }>();
  private nextId = 4101;

  private constructor(
    private readonly server: Server,
    /** Base URL, e.g. http://127.0.0.1:40123 — the value for ACTIONS_RESULTS_URL. */
    readonly url: string,
  ) {
    this.runtimeToken = this.signJwt({
      scp: `Actions.ExampleScope Actions.Results:${this.backend.workflowRunBackendId}:${this.backend.workflowJobRunBackendId}`,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
  }

  static async start(): Promise<ResultsService> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const service = new ResultsService(server, `http://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void service.handle(req, res);
    });
    return service;
  }

  /** Makes the next `times` calls of `operation` answer with this failure. */
  failNext(operation: Operation, failure: InjectedFailure): void {
    this.failures.set(operation, { ...failure, times: failure.times ?? 1 });
  }

  /** The requests of one operation, in arrival order. */
  calls(operation: Operation): RecordedRequest[] {
    return this.requests.filter((r) => r.operation === operation);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', this.url);
    const record: RecordedRequest = {
      operation: 'unknown',
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      bodyLength: body.length,
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, headers: Record<string, string>, payload: string | Buffer) => {
      record.status = status;
      res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(payload)) });
      res.end(payload);
    };
    try {
      if (url.pathname.startsWith(TWIRP_PREFIX)) {
        this.handleTwirp(req, url, body, record, send);
      } else if (url.pathname.startsWith(BLOB_PREFIX)) {
        this.handleBlob(req, url, body, record, send);
      } else {
        send(404, { 'content-type': 'text/plain' }, 'not found');
      }
    } catch (error) {
      send(500, { 'content-type': 'application/json' }, twirpError('internal', String(error)));
    }
  }

  // --- twirp ---------------------------------------------------------------------------

  private handleTwirp(
    req: IncomingMessage,
    url: URL,
    body: Buffer,
    record: RecordedRequest,
    send: Send,
  ): void {
    const method = url.pathname.slice(TWIRP_PREFIX.length);
    const json = (status: number, payload: unknown) =>
      send(status, { 'content-type': 'application/json' }, JSON.stringify(payload));
    const fail = (status: number, code: string, msg: string) =>
      send(status, { 'content-type': 'application/json' }, twirpError(code, msg));

    if (!isTwirpMethod(method))
      return fail(404, 'bad_route', `no handler for path ${url.pathname}`);
    record.operation = method;
    if (req.method !== 'POST') return fail(404, 'bad_route', `unsupported method ${req.method}`);
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      return fail(404, 'bad_route', 'unexpected Content-Type');
    }
    const backend = this.authenticate(req.headers.authorization);
    if (!backend) return fail(401, 'unauthenticated', 'invalid or missing runtime token');
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return fail(400, 'malformed', 'the request body is not JSON');
    }
    record.json = request;

    const injected = this.takeFailure(method);
    if (injected) {
      return fail(injected.status, injected.code ?? twirpCode(injected.status), injected.msg ?? '');
    }

    if (
      request.workflow_run_backend_id !== backend.workflowRunBackendId ||
      request.workflow_job_run_backend_id !== backend.workflowJobRunBackendId
    ) {
      return fail(403, 'permission_denied', 'the backend ids do not match the runtime token');
    }
    const name = typeof request.name === 'string' ? request.name : '';

    if (method === 'CreateArtifact') {
      if (!name) return fail(400, 'invalid_argument', 'name is required');
      if (/[":<>|*?\r\n\\/]/.test(name)) {
        return fail(400, 'invalid_argument', `invalid artifact name: ${name}`);
      }
      if (this.artifacts.has(name)) {
        return fail(
          409,
          'already_exists',
          'an artifact with this name already exists on the workflow run',
        );
      }
      const artifact: StoredArtifact = {
        id: this.nextId++,
        name,
        workflowRunBackendId: backend.workflowRunBackendId,
        workflowJobRunBackendId: backend.workflowJobRunBackendId,
        version: Number(request.version ?? 0),
        ...(typeof request.mime_type === 'string' ? { mimeType: request.mime_type } : {}),
        ...(typeof request.expires_at === 'string' ? { expiresAt: request.expires_at } : {}),
        blockIds: [],
        uncommitted: new Map(),
        finalized: false,
      };
      this.artifacts.set(name, artifact);
      return json(200, { ok: true, signed_upload_url: this.signedUploadUrl(artifact) });
    }

    if (method === 'FinalizeArtifact') {
      const artifact = this.artifacts.get(name);
      if (!artifact) return fail(404, 'not_found', `artifact ${name} was not created`);
      if (!artifact.blob) {
        return fail(400, 'failed_precondition', `no blob was committed for artifact ${name}`);
      }
      const size = Number(request.size);
      if (size !== artifact.blob.length) {
        return fail(
          400,
          'invalid_argument',
          `size ${request.size} does not match the uploaded ${artifact.blob.length} bytes`,
        );
      }
      if (request.hash !== undefined) {
        const expected = `sha256:${createHash('sha256').update(artifact.blob).digest('hex')}`;
        if (request.hash !== expected) {
          return fail(400, 'invalid_argument', `hash ${String(request.hash)} does not match`);
        }
        artifact.hash = expected;
      }
      artifact.size = size;
      artifact.finalized = true;
      return json(200, { ok: true, artifact_id: String(artifact.id) });
    }

    return fail(501, 'unimplemented', `${method} is not implemented by this test server`);
  }

  private authenticate(authorization: string | undefined): Backend | undefined {
    if (authorization !== `Bearer ${this.runtimeToken}`) return undefined;
    return this.backend;
  }

  private signedUploadUrl(artifact: StoredArtifact): string {
    const path =
      `${BLOB_PREFIX}${artifact.workflowRunBackendId}/${artifact.workflowJobRunBackendId}/` +
      encodeURIComponent(`${artifact.name}.zip`);
    const query = new URLSearchParams({
      sv: STORAGE_VERSION,
      sr: 'b',
      sp: 'cw',
      se: new Date(Date.now() + 3600_000).toISOString(),
    });
    query.set('sig', this.sign(`${path}?${query.toString()}`));
    return `${this.url}${path}?${query.toString()}`;
  }

  // --- blob storage --------------------------------------------------------------------

  private handleBlob(
    req: IncomingMessage,
    url: URL,
    body: Buffer,
    record: RecordedRequest,
    send: Send,
  ): void {
    const comp = url.searchParams.get('comp');
    const operation: BlobOperation =
      comp === 'block' ? 'PutBlock' : comp === 'blocklist' ? 'PutBlockList' : 'PutBlob';
    record.operation = operation;
    const fail = (status: number, code: string, message: string) =>
      send(
        status,
        { 'content-type': 'application/xml', 'x-ms-error-code': code, ...this.msHeaders() },
        `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`,
      );

    const artifact = this.artifactForBlobUrl(url);
    if (!artifact) {
      return fail(403, 'AuthenticationFailed', 'Signature did not match or blob is unknown.');
    }
    if (req.method !== 'PUT') {
      return fail(405, 'UnsupportedHttpVerb', `${req.method} is not supported here.`);
    }
    const injected = this.takeFailure(operation);
    if (injected) {
      return fail(
        injected.status,
        injected.code ?? (injected.status >= 500 ? 'InternalError' : 'InvalidInput'),
        injected.msg ?? 'Injected failure.',
      );
    }
    if (Number(req.headers['content-length'] ?? -1) !== body.length) {
      return fail(400, 'InvalidHeaderValue', 'Content-Length does not match the body.');
    }
    if (artifact.finalized) {
      return fail(409, 'BlobImmutableDueToPolicy', 'The artifact is already finalized.');
    }

    if (operation === 'PutBlock') {
      const blockId = url.searchParams.get('blockid');
      if (!blockId || Buffer.from(blockId, 'base64').toString('base64') !== blockId) {
        return fail(400, 'InvalidQueryParameterValue', 'blockid must be base64.');
      }
      artifact.uncommitted.set(blockId, body);
      return send(201, { ...this.msHeaders(), 'x-ms-request-server-encrypted': 'true' }, '');
    }

    if (operation === 'PutBlockList') {
      const ids = [
        ...body.toString('utf8').matchAll(/<(Latest|Uncommitted|Committed)>([^<]*)<\/\1>/g),
      ].map((m) => m[2]!);
      if (!/<BlockList>/.test(body.toString('utf8'))) {
        return fail(400, 'InvalidXmlDocument', 'The block list is not a <BlockList>.');
      }
      const blocks: Buffer[] = [];
      for (const id of ids) {
        const block = artifact.uncommitted.get(id);
        if (!block) return fail(400, 'InvalidBlockList', `Block ${id} was not uploaded.`);
        blocks.push(block);
      }
      this.commit(artifact, Buffer.concat(blocks), ids, req.headers['x-ms-blob-content-type']);
      return send(201, this.committedHeaders(artifact), '');
    }

    if (req.headers['x-ms-blob-type'] !== 'BlockBlob') {
      return fail(400, 'MissingRequiredHeader', 'x-ms-blob-type is required.');
    }
    this.commit(artifact, body, [], req.headers['content-type']);
    return send(201, this.committedHeaders(artifact), '');
  }

  private commit(
    artifact: StoredArtifact,
    blob: Buffer,
    blockIds: string[],
    contentType: string | string[] | undefined,
  ): void {
    artifact.blob = blob;
    artifact.blockIds = blockIds;
    artifact.uncommitted.clear();
    if (typeof contentType === 'string') artifact.blobContentType = contentType;
  }

  private artifactForBlobUrl(url: URL): StoredArtifact | undefined {
    const sig = url.searchParams.get('sig');
    const signed = new URLSearchParams();
    for (const key of ['sv', 'sr', 'sp', 'se']) {
      const value = url.searchParams.get(key);
      if (value !== null) signed.set(key, value);
    }
    if (!sig || sig !== this.sign(`${url.pathname}?${signed.toString()}`)) return undefined;
    if (Date.parse(signed.get('se') ?? '') < Date.now()) return undefined;
    const fileName = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    return this.artifacts.get(fileName.replace(/\.zip$/, ''));
  }

  private msHeaders(): Record<string, string> {
    return {
      'x-ms-request-id': randomUUID(),
      'x-ms-version': STORAGE_VERSION,
      date: new Date().toUTCString(),
    };
  }

  private committedHeaders(artifact: StoredArtifact): Record<string, string> {
    return {
      ...this.msHeaders(),
      etag: `"0x${createHash('sha256').update(artifact.blob!).digest('hex').slice(0, 16).toUpperCase()}"`,
      'last-modified': new Date().toUTCString(),
      'x-ms-request-server-encrypted': 'true',
    };
  }

  // --- helpers -------------------------------------------------------------------------

  private takeFailure(operation: Operation): InjectedFailure | undefined {
    const failure = this.failures.get(operation);
    if (!failure) return undefined;
    failure.times -= 1;
    if (failure.times <= 0) this.failures.delete(operation);
    return failure;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64');
  }

  private signJwt(claims: Record<string, unknown>): string {
    const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = base64url(JSON.stringify(claims));
    const signature = createHmac('sha256', this.secret)
      .update(`${header}.${payload}`)
      .digest('base64url');
    return `${header}.${payload}.${signature}`;
  }
}

type Send = (status: number, headers: Record<string, string>, payload: string | Buffer) => void;

function isTwirpMethod(method: string): method is TwirpMethod {
  return [
    'CreateArtifact',
    'FinalizeArtifact',
    'ListArtifacts',
    'GetSignedArtifactURL',
    'DeleteArtifact',
  ].includes(method);
}

/** Twirp's error code for an HTTP status, as its servers map them. */
function twirpCode(status: number): string {
  const codes: Record<number, string> = {
    400: 'invalid_argument',
    401: 'unauthenticated',
    403: 'permission_denied',
    404: 'not_found',
    409: 'already_exists',
    412: 'failed_precondition',
    429: 'resource_exhausted',
    500: 'internal',
    501: 'unimplemented',
    503: 'unavailable',
    504: 'deadline_exceeded',
  };
  return codes[status] ?? (status >= 500 ? 'internal' : 'unknown');
}

function twirpError(code: string, msg: string): string {
  return JSON.stringify({ code, msg });
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

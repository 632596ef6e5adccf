// A loopback stand-in for GitHub's REST API, for tests of the code that talks to GitHub.
//
// It answers the operations the gate uses (issue comments, issues, labels, commit statuses,
// the repository, workflow runs and their artifacts) from an in-memory `GitHubState`, with
// bodies shaped like GitHub's: ids, node ids, urls, users and timestamps, and the headers
// octokit looks at (Link for pagination, x-ratelimit-*). Every request is recorded, and
// checked against GitHub's published OpenAPI description: an unknown operation, a parameter
// GitHub does not take or a body that does not fit the operation's schema is written to
// `violations`, one line per request, so a test can assert there are none.
//
// Tests change behaviour three ways: seed `state` (or flip `state.readOnly` to act like a
// read-only GITHUB_TOKEN), queue canned answers with `failNext` (a 502, a rate limit) that
// come before the real handler, or replace a route with `route`.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { compareSpecificity, matchTemplate, requestProblems } from './openapi.js';
import { zipOf } from './zip-writer.js';

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the text when it is not JSON; `undefined` when there is none. */
  body: unknown;
}

export interface ApiResponse {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as is instead of `body`. */
  raw?: Buffer;
}

export type RouteHandler = (
  request: ApiRequest,
  params: Record<string, string>,
) => ApiResponse | Promise<ApiResponse>;

export interface GitHubApi {
  /** http://127.0.0.1:<port>: the baseUrl, or GITHUB_API_URL. */
  url: string;
  /** Every request received, in order. */
  requests: ApiRequest[];
  /** One line per request that does not match GitHub's OpenAPI description. */
  violations: string[];
  /** Answers `method template` with `handler`; a later route wins over earlier and built-in ones. */
  route(method: string, template: string, handler: RouteHandler): void;
  /** The next requests to `method template` get these answers, in order, before the handler. */
  failNext(method: string, template: string, responses: ApiResponse[]): void;
  state: GitHubState;
  close(): Promise<void>;
}

export interface StartOptions {
  owner?: string;
  repo?: string;
  /** Check requests against the OpenAPI description (default true). */
  validate?: boolean;
}

export async function startGitHubApi(options: StartOptions = {}): Promise<GitHubApi> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const api = new LoopbackGitHub(server, url, options);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => void api.handle(req, res));
  return api;
}

// --- canned answers ------------------------------------------------------------------------

/** A 5xx as GitHub's front end sends it. */
export function serverError(status = 502): ApiResponse {
  return { status, body: { message: STATUS_CODES[status] ?? 'Server Error' } };
}

/** GitHub's secondary rate limit: 403 (or 429) with a retry-after header. */
export function secondaryRateLimit(
  options: { status?: 403 | 429; retryAfter?: number } = {},
): ApiResponse {
  return {
    status: options.status ?? 403,
    headers: options.retryAfter === undefined ? {} : { 'retry-after': String(options.retryAfter) },
    body: {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try ' +
        'again. If you reach out to GitHub Support for help, please include the request ID.',
      documentation_url:
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      status: String(options.status ?? 403),
    },
  };
}

/** GitHub's primary rate limit: the hour's quota is used up until `resetInSeconds` from now. */
export function primaryRateLimit(
  options: { status?: 403 | 429; resetInSeconds?: number } = {},
): ApiResponse {
  const reset = Math.floor(Date.now() / 1000) + (options.resetInSeconds ?? 1);
  return {
    status: options.status ?? 403,
    headers: {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '5000',
      'x-ratelimit-reset': String(reset),
      'x-ratelimit-resource': 'core',
    },
    body: {
      message: 'API rate limit exceeded for installation ID 1.',
      documentation_url:
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit',
      status: String(options.status ?? 403),
    },
  };
}

// --- the repository's state ----------------------------------------------------------------

export interface IssueRecord {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: string | null;
  labels: string[];
  /** Login of the author. */
  user: string;
  isPullRequest: boolean;
  /** A pull request's head: branch, commit and `owner/name` of its repository. */
  head?: { ref: string; sha: string; repo: string };
  locked: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface CommentRecord {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface LabelRecord {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

export interface StatusRecord {
  id: number;
  sha: string;
  state: string;
  description: string | null;
  targetUrl: string | null;
  context: string;
  creator: string;
  createdAt: string;
}

export interface WorkflowRecord {
  id: number;
  name: string;
  /** e.g. `.github/workflows/perf.yml` */
  path: string;
}

export interface WorkflowRunRecord {
  id: number;
  workflowId: number;
  name: string;
  displayTitle: string;
  headBranch: string;
  headSha: string;
  event: string;
  status: string;
  conclusion: string | null;
  runNumber: number;
  runAttempt: number;
  actor: string;
  pullRequests: number[];
  /** `owner/name` of the repository the run's code came from; this one by default. */
  headRepository?: string;
  createdAt: string;
  updatedAt: string;
}

export interface ArtifactRecord {
  id: number;
  runId: number;
  name: string;
  zip: Buffer;
  expired: boolean;
  createdAt: string;
  expiresAt: string;
}

export interface SeedWorkflowRun {
  /** Workflow file name or path; `perf.yml` by default. */
  workflow?: string;
  name?: string;
  displayTitle?: string;
  headBranch?: string;
  headSha?: string;
  event?: string;
  status?: string;
  conclusion?: string | null;
  runAttempt?: number;
  actor?: string;
  pullRequests?: number[];
  headRepository?: string;
}

export interface SeedArtifact {
  runId: number;
  name: string;
  /** The files of the zip (written with `zipOf`), or the zip itself. */
  files?: Record<string, string | Buffer>;
  zip?: Buffer;
  expired?: boolean;
}

/** What the built-in routes read and change; tests seed it and look at it. */
export class GitHubState {
  defaultBranch = 'main';
  /** Writes answer 403 "Resource not accessible by integration", like a read-only token. */
  readOnly = false;
  /** The login every token acts as; GITHUB_TOKEN writes as github-actions[bot]. */
  actor = 'github-actions[bot]';
  readonly repositoryId = 700_000_001;
  readonly issues: IssueRecord[] = [];
  readonly comments: CommentRecord[] = [];
  readonly labels: LabelRecord[] = [];
  readonly statuses: StatusRecord[] = [];
  readonly workflows: WorkflowRecord[] = [];
  readonly workflowRuns: WorkflowRunRecord[] = [];
  readonly artifacts: ArtifactRecord[] = [];
  private lastId = 1_000_000_000;
  private lastNumber = 0;
  // Each event is a second later than the one before, so "newest" is never a tie.
  private clock = Math.floor(Date.now() / 1000) * 1000;

  constructor(
    readonly owner: string,
    readonly repo: string,
    /** The API's base URL, for the `url` fields. */
    readonly apiUrl: string,
  ) {}

  get fullName(): string {
    return `${this.owner}/${this.repo}`;
  }

  nextId(): number {
    return ++this.lastId;
  }

  /** An ISO timestamp one second after the previous one, as GitHub writes them. */
  stamp(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  addIssue(fields: Partial<Omit<IssueRecord, 'id' | 'createdAt' | 'updatedAt'>> = {}): IssueRecord {
    const createdAt = this.stamp();
    const issue: IssueRecord = {
      id: this.nextId(),
      number: fields.number ?? ++this.lastNumber,
      title: fields.title ?? 'An issue',
      body: fields.body ?? null,
      state: fields.state ?? 'open',
      stateReason: fields.stateReason ?? null,
      labels: fields.labels ?? [],
      user: fields.user ?? 'octocat',
      isPullRequest: fields.isPullRequest ?? false,
      ...(fields.head ? { head: fields.head } : {}),
      locked: fields.locked ?? false,
      createdAt,
      updatedAt: createdAt,
      closedAt: fields.closedAt ?? (fields.state === 'closed' ? createdAt : null),
    };
    this.lastNumber = Math.max(this.lastNumber, issue.number);
    for (const label of issue.labels) this.label(label);
    this.issues.push(issue);
    return issue;
  }

  /** A pull request: for the comment routes, an issue with `pull_request` set. */
  addPullRequest(fields: Partial<Omit<IssueRecord, 'id' | 'isPullRequest'>> = {}): IssueRecord {
    return this.addIssue({ title: 'A pull request', ...fields, isPullRequest: true });
  }

  addComment(fields: { issueNumber: number; body: string; user?: string }): CommentRecord {
    if (!this.issue(fields.issueNumber)) {
      throw new Error(`seed issue #${fields.issueNumber} before commenting on it`);
    }
    const createdAt = this.stamp();
    const comment: CommentRecord = {
      id: this.nextId(),
      issueNumber: fields.issueNumber,
      body: fields.body,
      user: fields.user ?? this.actor,
      createdAt,
      updatedAt: createdAt,
    };
    this.comments.push(comment);
    return comment;
  }

  /** The label with this name (case-insensitive), created with GitHub's default colour. */
  label(name: string, fields: { color?: string; description?: string } = {}): LabelRecord {
    const found = this.labels.find((l) => l.name.toLowerCase() === name.toLowerCase());
    if (found) return found;
    const label: LabelRecord = {
      id: this.nextId(),
      name,
      color: fields.color ?? 'ededed',
      description: fields.description ?? null,
    };
    this.labels.push(label);
    return label;
  }

  /** The workflow with this file name or path, registered on first use. */
  workflow(file: string): WorkflowRecord {
    const path = file.includes('/') ? file : `.github/workflows/${file}`;
    const found = this.workflows.find((w) => w.path === path);
    if (found) return found;
    const name = path.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
    const workflow: WorkflowRecord = { id: this.nextId(), name, path };
    this.workflows.push(workflow);
    return workflow;
  }

  addWorkflowRun(fields: SeedWorkflowRun = {}): WorkflowRunRecord {
    const workflow = this.workflow(fields.workflow ?? 'perf.yml');
    const createdAt = this.stamp();
    const previous = this.workflowRuns.filter((r) => r.workflowId === workflow.id);
    const run: WorkflowRunRecord = {
      id: this.nextId(),
      workflowId: workflow.id,
      name: fields.name ?? workflow.name,
      displayTitle: fields.displayTitle ?? fields.name ?? workflow.name,
      headBranch: fields.headBranch ?? this.defaultBranch,
      headSha: fields.headSha ?? randomBytes(20).toString('hex'),
      event: fields.event ?? 'push',
      status: fields.status ?? 'completed',
      conclusion:
        fields.conclusion !== undefined
          ? fields.conclusion
          : (fields.status ?? 'completed') === 'completed'
            ? 'success'
            : null,
      runNumber: previous.length + 1,
      runAttempt: fields.runAttempt ?? 1,
      actor: fields.actor ?? 'octocat',
      pullRequests: fields.pullRequests ?? [],
      ...(fields.headRepository ? { headRepository: fields.headRepository } : {}),
      createdAt,
      updatedAt: createdAt,
    };
    this.workflowRuns.push(run);
    return run;
  }

  addArtifact(fields: SeedArtifact): ArtifactRecord {
    if (!this.workflowRuns.some((r) => r.id === fields.runId)) {
      throw new Error(`seed workflow run ${fields.runId} before its artifacts`);
    }
    const createdAt = this.stamp();
    const artifact: ArtifactRecord = {
      id: this.nextId(),
      runId: fields.runId,
      name: fields.name,
      zip: fields.zip ?? zipOf(fields.files ?? {}),
      expired: fields.expired ?? false,
      createdAt,
      expiresAt: new Date(Date.parse(createdAt) + 90 * 86_400_000)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    };
    this.artifacts.push(artifact);
    return artifact;
  }

  issue(number: number): IssueRecord | undefined {
    return this.issues.find((i) => i.number === number);
  }

  comment(id: number): CommentRecord | undefined {
    return this.comments.find((c) => c.id === id);
  }

  artifact(id: number): ArtifactRecord | undefined {
    return this.artifacts.find((a) => a.id === id);
  }

  /** Comments on one issue or pull request, oldest first. */
  commentsOn(issueNumber: number): CommentRecord[] {
    return this.comments.filter((c) => c.issueNumber === issueNumber);
  }
}

// --- the server ----------------------------------------------------------------------------

interface Route {
  method: string;
  template: string;
  handler: RouteHandler;
  order: number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BLOB_PREFIX = '/_blob/artifacts/';

class LoopbackGitHub implements GitHubApi {
  readonly requests: ApiRequest[] = [];
  readonly violations: string[] = [];
  readonly state: GitHubState;
  private readonly routes: Route[] = [];
  private readonly canned = new Map<string, ApiResponse[]>();
  private readonly blobSecret = randomBytes(16);
  private readonly validate: boolean;
  private requestCount = 0;

  constructor(
    private readonly server: Server,
    readonly url: string,
    options: StartOptions,
  ) {
    this.state = new GitHubState(options.owner ?? 'octo-org', options.repo ?? 'inf2-bench', url);
    this.validate = options.validate ?? true;
    for (const [method, template, handler] of builtInRoutes(this.state, this.blobSigner())) {
      this.route(method, template, handler);
    }
  }

  route(method: string, template: string, handler: RouteHandler): void {
    this.routes.push({
      method: method.toUpperCase(),
      template,
      handler,
      order: this.routes.length,
    });
  }

  failNext(method: string, template: string, responses: ApiResponse[]): void {
    const key = `${method.toUpperCase()} ${template}`;
    this.canned.set(key, [...(this.canned.get(key) ?? []), ...responses]);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let response: ApiResponse;
    try {
      response = await this.answer(req);
    } catch (error) {
      response = { status: 500, body: { message: `test server: ${String(error)}` } };
    }
    this.send(res, response);
  }

  private async answer(req: IncomingMessage): Promise<ApiResponse> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', this.url);
    const method = (req.method ?? 'GET').toUpperCase();
    const parsed = parseBody(raw, req.headers['content-type']);
    const request: ApiRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: parsed.body,
    };
    this.requests.push(request);

    if (url.pathname.startsWith(BLOB_PREFIX)) return this.blob(url);
    if (url.pathname === '/graphql') return this.graphql(method, req.headers.authorization, parsed);

    if (this.validate) {
      const problems = parsed.error ? [parsed.error] : requestProblems(request);
      if (problems.length > 0) {
        this.violations.push(`${method} ${url.pathname}${url.search}: ${problems.join('; ')}`);
      }
    }
    if (parsed.error) return githubError(400, 'Problems parsing JSON');

    const canned = this.takeCanned(method, url.pathname);
    if (canned) return withDefaultBody(canned);

    const isWrite = WRITE_METHODS.has(method);
    const authorization = req.headers.authorization;
    if (authorization !== undefined && !/^(token|bearer) \S+$/i.test(authorization)) {
      return githubError(401, 'Bad credentials');
    }
    if (isWrite && authorization === undefined) {
      return githubError(401, 'Requires authentication');
    }

    const route = this.findRoute(method, url.pathname);
    if (!route) return githubError(404, 'Not Found');
    if (isWrite && this.state.readOnly) return forbiddenForIntegration(route.template);
    return route.handler(request, route.params);
  }

  /**
   * GitHub's GraphQL endpoint, for the one query the gate asks: who the token is
   * (`viewer { login }`), which an installation token may ask where `GET /user` refuses it.
   * Anything else is a violation, answered the way GitHub answers a bad query.
   */
  private graphql(
    method: string,
    authorization: string | undefined,
    parsed: { body?: unknown; error?: string },
  ): ApiResponse {
    if (method !== 'POST') return githubError(404, 'Not Found');
    if (authorization === undefined || !/^(token|bearer) \S+$/i.test(authorization)) {
      return githubError(401, 'This endpoint requires you to be authenticated.');
    }
    const query = (parsed.body as { query?: unknown } | undefined)?.query;
    if (
      typeof query !== 'string' ||
      !/^\s*(query\s*)?\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query)
    ) {
      this.violations.push(`POST /graphql: a query this fake does not answer: ${String(query)}`);
      return ok({ errors: [{ message: 'Parse error on the query' }] });
    }
    return ok({ data: { viewer: { login: this.state.actor } } });
  }

  private findRoute(
    method: string,
    path: string,
  ): { template: string; handler: RouteHandler; params: Record<string, string> } | undefined {
    const candidates = this.routes
      .filter((r) => r.method === method)
      .map((r) => ({ ...r, params: matchTemplate(r.template, path) }))
      .filter((r): r is Route & { params: Record<string, string> } => r.params !== undefined)
      .sort((a, b) => compareSpecificity(a.template, b.template) || b.order - a.order);
    return candidates[0];
  }

  private takeCanned(method: string, path: string): ApiResponse | undefined {
    const keys = [...this.canned.keys()]
      .map((key) => ({ key, template: key.slice(key.indexOf(' ') + 1) }))
      .filter(({ key, template }) => key.startsWith(`${method} `) && matchTemplate(template, path))
      .sort((a, b) => compareSpecificity(a.template, b.template));
    for (const { key } of keys) {
      const queue = this.canned.get(key)!;
      const next = queue.shift();
      if (queue.length === 0) this.canned.delete(key);
      if (next) return next;
    }
    return undefined;
  }

  /** The artifact's zip, behind a signed URL like blob storage's. */
  private blob(url: URL): ApiResponse {
    const id = Number(url.pathname.slice(BLOB_PREFIX.length).split('/')[0]);
    const artifact = this.state.artifacts.find((a) => a.id === id);
    if (!artifact || url.searchParams.get('sig') !== this.blobSigner()(artifact.id)) {
      return {
        status: 403,
        headers: { 'content-type': 'application/xml' },
        raw: Buffer.from(
          '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code>' +
            '<Message>Signature did not match.</Message></Error>',
        ),
      };
    }
    return {
      status: 200,
      headers: {
        'content-type': 'application/zip',
        'content-disposition': `attachment; filename=${artifact.name}.zip`,
      },
      raw: artifact.zip,
    };
  }

  private blobSigner(): (id: number) => string {
    return (id) => createHmac('sha256', this.blobSecret).update(String(id)).digest('hex');
  }

  private send(res: ServerResponse, response: ApiResponse): void {
    const payload =
      response.raw ??
      (response.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(response.body)));
    const headers: Record<string, string> = {
      ...(response.raw || response.body === undefined
        ? {}
        : { 'content-type': 'application/json; charset=utf-8' }),
      ...this.rateLimitHeaders(),
      'x-github-api-version-selected': '2022-11-28',
      'x-github-request-id': randomUUID().toUpperCase(),
      ...response.headers,
      'content-length': String(payload.length),
    };
    res.writeHead(response.status, headers);
    res.end(payload);
  }

  private rateLimitHeaders(): Record<string, string> {
    this.requestCount += 1;
    return {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(Math.max(0, 5000 - this.requestCount)),
      'x-ratelimit-used': String(this.requestCount),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
    };
  }
}

// --- built-in routes -----------------------------------------------------------------------

type RouteEntry = [method: string, template: string, handler: RouteHandler];

/** The permissions a write needs, as GitHub names them in x-accepted-github-permissions. */
const WRITE_PERMISSIONS: Record<string, string> = {
  '/repos/{owner}/{repo}/issues/{issue_number}/comments': 'issues=write; pull_requests=write',
  '/repos/{owner}/{repo}/issues/comments/{comment_id}': 'issues=write; pull_requests=write',
  '/repos/{owner}/{repo}/issues': 'issues=write',
  '/repos/{owner}/{repo}/issues/{issue_number}': 'issues=write; pull_requests=write',
  '/repos/{owner}/{repo}/issues/{issue_number}/labels': 'issues=write; pull_requests=write',
  '/repos/{owner}/{repo}/labels': 'issues=write; pull_requests=write',
  '/repos/{owner}/{repo}/statuses/{sha}': 'statuses=write',
};

function builtInRoutes(state: GitHubState, sign: (id: number) => string): RouteEntry[] {
  const json = new JsonShapes(state);
  const repoRoute = (handler: RouteHandler): RouteHandler => {
    return (request, params) =>
      params.owner === undefined ||
      (sameName(params.owner, state.owner) && sameName(params.repo, state.repo))
        ? handler(request, params)
        : githubError(404, 'Not Found');
  };
  /** A page of the artifacts `keep` picks, newest first, only those named ?name= if given. */
  const artifactList = (request: ApiRequest, keep: (artifact: ArtifactRecord) => boolean) => {
    const name = request.query.get('name');
    const artifacts = state.artifacts
      .filter((a) => keep(a) && (!name || a.name === name))
      .sort((a, b) => b.id - a.id);
    return paginated(state, request, artifacts, (page) => ({
      total_count: artifacts.length,
      artifacts: page.map((a) => json.artifact(a)),
    }));
  };
  const routes: RouteEntry[] = [
    ['GET', '/repos/{owner}/{repo}', () => ok(json.repository())],

    // issues
    [
      'GET',
      '/repos/{owner}/{repo}/issues',
      (request) => {
        const query = request.query;
        const wantedState = query.get('state') ?? 'open';
        const labels = splitList(query.get('labels'));
        const creator = query.get('creator');
        const ascending = query.get('direction') === 'asc';
        const issues = state.issues
          .filter((i) => wantedState === 'all' || i.state === wantedState)
          .filter((i) => labels.every((l) => i.labels.some((m) => sameName(l, m))))
          .filter((i) => !creator || sameName(i.user, creator))
          .sort((a, b) => (ascending ? a.id - b.id : b.id - a.id));
        return paginated(state, request, issues, (page) => page.map((i) => json.issue(i)));
      },
    ],
    [
      'POST',
      '/repos/{owner}/{repo}/issues',
      (request) => {
        const body = bodyObject(request);
        if (typeof body.title !== 'string' && typeof body.title !== 'number') {
          return validationFailed('Issue', 'title', 'missing_field');
        }
        const issue = state.addIssue({
          title: String(body.title),
          body: typeof body.body === 'string' ? body.body : null,
          labels: labelNames(body.labels).map((name) => state.label(name).name),
          user: state.actor,
        });
        return created(json.issue(issue), json.issueUrl(issue));
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/issues/{issue_number}',
      (_request, params) => {
        const issue = state.issue(Number(params.issue_number));
        return issue ? ok(json.issue(issue)) : githubError(404, 'Not Found');
      },
    ],
    [
      'PATCH',
      '/repos/{owner}/{repo}/issues/{issue_number}',
      (request, params) => {
        const issue = state.issue(Number(params.issue_number));
        if (!issue) return githubError(404, 'Not Found');
        const body = bodyObject(request);
        if (body.title !== undefined) issue.title = String(body.title);
        if (body.body !== undefined) issue.body = body.body === null ? null : String(body.body);
        if (body.labels !== undefined) {
          issue.labels = labelNames(body.labels).map((name) => state.label(name).name);
        }
        const stamp = state.stamp();
        if (body.state === 'closed' && issue.state === 'open') {
          issue.state = 'closed';
          issue.closedAt = stamp;
          issue.stateReason =
            typeof body.state_reason === 'string' ? body.state_reason : 'completed';
        } else if (body.state === 'open' && issue.state === 'closed') {
          issue.state = 'open';
          issue.closedAt = null;
          issue.stateReason = 'reopened';
        }
        issue.updatedAt = stamp;
        return ok(json.issue(issue));
      },
    ],
    [
      'POST',
      '/repos/{owner}/{repo}/issues/{issue_number}/labels',
      (request, params) => {
        const issue = state.issue(Number(params.issue_number));
        if (!issue) return githubError(404, 'Not Found');
        const body = request.body;
        const names = labelNames(Array.isArray(body) ? body : bodyObject(request).labels);
        for (const name of names) {
          const label = state.label(name);
          if (!issue.labels.some((l) => sameName(l, label.name))) issue.labels.push(label.name);
        }
        issue.updatedAt = state.stamp();
        return ok(issue.labels.map((name) => json.label(state.label(name))));
      },
    ],

    // labels
    [
      'GET',
      '/repos/{owner}/{repo}/labels',
      (request) => paginated(state, request, state.labels, (page) => page.map(json.label)),
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/labels/{name}',
      (_request, params) => {
        const label = state.labels.find((l) => sameName(l.name, params.name!));
        return label ? ok(json.label(label)) : githubError(404, 'Not Found');
      },
    ],
    [
      'POST',
      '/repos/{owner}/{repo}/labels',
      (request) => {
        const body = bodyObject(request);
        if (typeof body.name !== 'string')
          return validationFailed('Label', 'name', 'missing_field');
        if (state.labels.some((l) => sameName(l.name, String(body.name)))) {
          return validationFailed('Label', 'name', 'already_exists');
        }
        const label = state.label(body.name, {
          ...(typeof body.color === 'string' ? { color: body.color.replace(/^#/, '') } : {}),
          ...(typeof body.description === 'string' ? { description: body.description } : {}),
        });
        return created(json.label(label), json.labelUrl(label));
      },
    ],

    // issue comments
    [
      'GET',
      '/repos/{owner}/{repo}/issues/{issue_number}/comments',
      (request, params) => {
        const number = Number(params.issue_number);
        if (!state.issue(number)) return githubError(404, 'Not Found');
        const since = request.query.get('since');
        const comments = state
          .commentsOn(number)
          .filter((c) => !since || Date.parse(c.updatedAt) >= Date.parse(since));
        return paginated(state, request, comments, (page) => page.map((c) => json.comment(c)));
      },
    ],
    [
      'POST',
      '/repos/{owner}/{repo}/issues/{issue_number}/comments',
      (request, params) => {
        const issue = state.issue(Number(params.issue_number));
        if (!issue) return githubError(404, 'Not Found');
        if (issue.locked)
          return githubError(403, 'Unable to create comment because issue is locked.');
        const body = commentBody(request);
        if (typeof body !== 'string') return body;
        const comment = state.addComment({ issueNumber: issue.number, body, user: state.actor });
        issue.updatedAt = comment.createdAt;
        return created(json.comment(comment), json.commentUrl(comment));
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/issues/comments/{comment_id}',
      (_request, params) => {
        const comment = state.comment(Number(params.comment_id));
        return comment ? ok(json.comment(comment)) : githubError(404, 'Not Found');
      },
    ],
    [
      'PATCH',
      '/repos/{owner}/{repo}/issues/comments/{comment_id}',
      (request, params) => {
        const comment = state.comment(Number(params.comment_id));
        if (!comment) return githubError(404, 'Not Found');
        const body = commentBody(request);
        if (typeof body !== 'string') return body;
        comment.body = body;
        comment.updatedAt = state.stamp();
        return ok(json.comment(comment));
      },
    ],

    // commit statuses
    [
      'POST',
      '/repos/{owner}/{repo}/statuses/{sha}',
      (request, params) => {
        const sha = params.sha!;
        if (!/^[0-9a-f]{40}$/i.test(sha)) {
          return githubError(422, `No commit found for SHA: ${sha}`);
        }
        const body = bodyObject(request);
        const description = typeof body.description === 'string' ? body.description : null;
        if (description !== null && [...description].length > 140) {
          return validationFailed(
            'Status',
            'description',
            'custom',
            'description is too long (maximum is 140 characters)',
          );
        }
        const status: StatusRecord = {
          id: state.nextId(),
          sha: sha.toLowerCase(),
          state: String(body.state),
          description,
          targetUrl: typeof body.target_url === 'string' ? body.target_url : null,
          context: typeof body.context === 'string' ? body.context : 'default',
          creator: state.actor,
          createdAt: state.stamp(),
        };
        state.statuses.push(status);
        return created(json.status(status), json.statusUrl(status));
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/commits/{ref}/statuses',
      (request, params) => {
        const statuses = state.statuses
          .filter((s) => s.sha === params.ref!.toLowerCase())
          .sort((a, b) => b.id - a.id);
        return paginated(state, request, statuses, (page) => page.map((s) => json.status(s)));
      },
    ],

    // actions: workflow runs and artifacts
    [
      'GET',
      '/user',
      () =>
        // An installation token (GITHUB_TOKEN) may not ask who it is; a personal one may.
        state.actor.endsWith('[bot]')
          ? forbiddenForIntegration('/user')
          : ok(json.user(state.actor)),
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/pulls/{pull_number}',
      (_request, params) => {
        const issue = state.issue(Number(params.pull_number));
        return issue?.isPullRequest ? ok(json.pull(issue)) : githubError(404, 'Not Found');
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/pulls',
      (request) => {
        const wanted = request.query.get('state') ?? 'open';
        const head = request.query.get('head');
        const pulls = state.issues
          .filter((i) => i.isPullRequest && (wanted === 'all' || i.state === wanted))
          .map((i) => json.pull(i))
          .filter((p) => !head || (p.head as { label: string }).label === head);
        return ok(pulls);
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/actions/runs/{run_id}',
      (_request, params) => {
        const run = state.workflowRuns.find((r) => r.id === Number(params.run_id));
        return run ? ok(json.workflowRun(run)) : githubError(404, 'Not Found');
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
      (request, params) => {
        const id = params.workflow_id!;
        const workflow = state.workflows.find(
          (w) => String(w.id) === id || w.path === `.github/workflows/${id}`,
        );
        if (!workflow) return githubError(404, 'Not Found');
        const query = request.query;
        const branch = query.get('branch');
        const event = query.get('event');
        const status = query.get('status');
        const headSha = query.get('head_sha');
        const runs = state.workflowRuns
          .filter((r) => r.workflowId === workflow.id)
          .filter((r) => !branch || r.headBranch === branch)
          .filter((r) => !event || r.event === event)
          .filter((r) => !status || r.status === status || r.conclusion === status)
          .filter((r) => !headSha || r.headSha === headSha)
          .sort((a, b) => b.id - a.id);
        return paginated(state, request, runs, (page) => ({
          total_count: runs.length,
          workflow_runs: page.map((r) => json.workflowRun(r)),
        }));
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts',
      (request, params) => {
        const runId = Number(params.run_id);
        if (!state.workflowRuns.some((r) => r.id === runId)) return githubError(404, 'Not Found');
        return artifactList(request, (a) => a.runId === runId);
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/actions/artifacts',
      (request) => artifactList(request, () => true),
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}',
      (_request, params) => {
        const artifact = state.artifact(Number(params.artifact_id));
        return artifact ? ok(json.artifact(artifact)) : githubError(404, 'Not Found');
      },
    ],
    [
      'GET',
      '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
      (_request, params) => {
        const artifact = state.artifact(Number(params.artifact_id));
        if (!artifact || params.archive_format !== 'zip') return githubError(404, 'Not Found');
        if (artifact.expired) return githubError(410, 'Artifact has expired');
        const file = encodeURIComponent(`${artifact.name}.zip`);
        const location = `${state.apiUrl}${BLOB_PREFIX}${artifact.id}/${file}?sig=${sign(artifact.id)}`;
        return { status: 302, headers: { location } };
      },
    ],
  ];
  return routes.map(([method, template, handler]) => [method, template, repoRoute(handler)]);
}

// --- response bodies shaped like GitHub's --------------------------------------------------

const HTML = 'https://github.com';
const KNOWN_USER_IDS: Record<string, number> = { 'github-actions[bot]': 41898282 };

class JsonShapes {
  constructor(private readonly state: GitHubState) {}

  private get repoApi(): string {
    return `${this.state.apiUrl}/repos/${this.state.fullName}`;
  }

  private get repoHtml(): string {
    return `${HTML}/${this.state.fullName}`;
  }

  user(login: string): Record<string, unknown> {
    const id = KNOWN_USER_IDS[login] ?? userId(login);
    const api = `${this.state.apiUrl}/users/${encodeURIComponent(login)}`;
    return {
      login,
      id,
      node_id: nodeId(login.endsWith('[bot]') ? 'BOT' : 'U', id),
      avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
      gravatar_id: '',
      url: api,
      html_url: login.endsWith('[bot]')
        ? `${HTML}/apps/${login.replace(/\[bot\]$/, '')}`
        : `${HTML}/${login}`,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: login.endsWith('[bot]') ? 'Bot' : 'User',
      user_view_type: 'public',
      site_admin: false,
    };
  }

  repository(): Record<string, unknown> {
    const created = '2024-03-01T09:00:00Z';
    return {
      ...this.minimalRepository(),
      clone_url: `${this.repoHtml}.git`,
      git_url: `git://github.com/${this.state.fullName}.git`,
      ssh_url: `git@github.com:${this.state.fullName}.git`,
      svn_url: this.repoHtml,
      mirror_url: null,
      homepage: null,
      language: 'Python',
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      size: 1024,
      default_branch: this.state.defaultBranch,
      open_issues: this.state.issues.filter((i) => i.state === 'open').length,
      open_issues_count: this.state.issues.filter((i) => i.state === 'open').length,
      is_template: false,
      topics: [],
      has_issues: true,
      has_projects: true,
      has_wiki: false,
      has_pages: false,
      has_downloads: true,
      has_discussions: false,
      archived: false,
      disabled: false,
      visibility: 'private',
      license: null,
      pushed_at: created,
      created_at: created,
      updated_at: created,
      permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
      allow_forking: false,
      web_commit_signoff_required: false,
      network_count: 0,
      subscribers_count: 1,
    };
  }

  minimalRepository(): Record<string, unknown> {
    const api = this.repoApi;
    const urls: Record<string, string> = {};
    const templates: Record<string, string> = {
      archive_url: '/{archive_format}{/ref}',
      assignees_url: '/assignees{/user}',
      blobs_url: '/git/blobs{/sha}',
      branches_url: '/branches{/branch}',
      collaborators_url: '/collaborators{/collaborator}',
      comments_url: '/comments{/number}',
      commits_url: '/commits{/sha}',
      compare_url: '/compare/{base}...{head}',
      contents_url: '/contents/{+path}',
      contributors_url: '/contributors',
      deployments_url: '/deployments',
      downloads_url: '/downloads',
      events_url: '/events',
      forks_url: '/forks',
      git_commits_url: '/git/commits{/sha}',
      git_refs_url: '/git/refs{/sha}',
      git_tags_url: '/git/tags{/sha}',
      hooks_url: '/hooks',
      issue_comment_url: '/issues/comments{/number}',
      issue_events_url: '/issues/events{/number}',
      issues_url: '/issues{/number}',
      keys_url: '/keys{/key_id}',
      labels_url: '/labels{/name}',
      languages_url: '/languages',
      merges_url: '/merges',
      milestones_url: '/milestones{/number}',
      notifications_url: '/notifications{?since,all,participating}',
      pulls_url: '/pulls{/number}',
      releases_url: '/releases{/id}',
      stargazers_url: '/stargazers',
      statuses_url: '/statuses/{sha}',
      subscribers_url: '/subscribers',
      subscription_url: '/subscription',
      tags_url: '/tags',
      teams_url: '/teams',
      trees_url: '/git/trees{/sha}',
    };
    for (const [field, suffix] of Object.entries(templates)) urls[field] = `${api}${suffix}`;
    return {
      id: this.state.repositoryId,
      node_id: nodeId('R', this.state.repositoryId),
      name: this.state.repo,
      full_name: this.state.fullName,
      owner: { ...this.user(this.state.owner), type: 'Organization' },
      private: true,
      html_url: this.repoHtml,
      description: 'vllm-neuron benchmarks on inf2',
      fork: false,
      url: api,
      ...urls,
    };
  }

  issueUrl(issue: IssueRecord): string {
    return `${this.repoApi}/issues/${issue.number}`;
  }

  issue(issue: IssueRecord): Record<string, unknown> {
    const url = this.issueUrl(issue);
    const kind = issue.isPullRequest ? 'pull' : 'issues';
    return {
      url,
      repository_url: this.repoApi,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: `${this.repoHtml}/${kind}/${issue.number}`,
      id: issue.id,
      node_id: nodeId(issue.isPullRequest ? 'PR' : 'I', issue.id),
      number: issue.number,
      title: issue.title,
      user: this.user(issue.user),
      labels: issue.labels.map((name) => this.label(this.state.label(name))),
      state: issue.state,
      locked: issue.locked,
      assignee: null,
      assignees: [],
      milestone: null,
      comments: this.state.commentsOn(issue.number).length,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      author_association: 'NONE',
      active_lock_reason: null,
      ...(issue.isPullRequest
        ? {
            draft: false,
            pull_request: {
              url: `${this.repoApi}/pulls/${issue.number}`,
              html_url: `${this.repoHtml}/pull/${issue.number}`,
              diff_url: `${this.repoHtml}/pull/${issue.number}.diff`,
              patch_url: `${this.repoHtml}/pull/${issue.number}.patch`,
              merged_at: null,
            },
          }
        : {}),
      body: issue.body,
      reactions: this.reactions(`${url}/reactions`),
      timeline_url: `${url}/timeline`,
      performed_via_github_app: null,
      state_reason: issue.stateReason,
    };
  }

  commentUrl(comment: CommentRecord): string {
    return `${this.repoApi}/issues/comments/${comment.id}`;
  }

  comment(comment: CommentRecord): Record<string, unknown> {
    const issue = this.state.issue(comment.issueNumber)!;
    const kind = issue.isPullRequest ? 'pull' : 'issues';
    return {
      url: this.commentUrl(comment),
      html_url: `${this.repoHtml}/${kind}/${issue.number}#issuecomment-${comment.id}`,
      issue_url: this.issueUrl(issue),
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      user: this.user(comment.user),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: comment.user === this.state.actor ? 'NONE' : 'MEMBER',
      body: comment.body,
      reactions: this.reactions(`${this.commentUrl(comment)}/reactions`),
      performed_via_github_app: null,
    };
  }

  labelUrl(label: LabelRecord): string {
    return `${this.repoApi}/labels/${encodeURIComponent(label.name)}`;
  }

  label = (label: LabelRecord): Record<string, unknown> => ({
    id: label.id,
    node_id: nodeId('LA', label.id),
    url: this.labelUrl(label),
    name: label.name,
    color: label.color,
    default: false,
    description: label.description,
  });

  statusUrl(status: StatusRecord): string {
    return `${this.repoApi}/statuses/${status.sha}`;
  }

  status(status: StatusRecord): Record<string, unknown> {
    const creator = this.user(status.creator);
    return {
      url: this.statusUrl(status),
      avatar_url: creator.avatar_url,
      id: status.id,
      node_id: nodeId('SC', status.id),
      state: status.state,
      description: status.description,
      target_url: status.targetUrl,
      context: status.context,
      created_at: status.createdAt,
      updated_at: status.createdAt,
      creator,
    };
  }

  workflowRun(run: WorkflowRunRecord): Record<string, unknown> {
    const url = `${this.repoApi}/actions/runs/${run.id}`;
    const workflow = this.state.workflows.find((w) => w.id === run.workflowId)!;
    const repository = this.minimalRepository();
    return {
      id: run.id,
      name: run.name,
      node_id: nodeId('WFR', run.id),
      head_branch: run.headBranch,
      head_sha: run.headSha,
      path: workflow.path,
      display_title: run.displayTitle,
      run_number: run.runNumber,
      event: run.event,
      status: run.status,
      conclusion: run.conclusion,
      workflow_id: run.workflowId,
      check_suite_id: run.id + 1,
      check_suite_node_id: nodeId('CS', run.id + 1),
      url,
      html_url: `${this.repoHtml}/actions/runs/${run.id}`,
      pull_requests: run.pullRequests.map((number) => ({
        id: number + 2_000_000,
        number,
        url: `${this.repoApi}/pulls/${number}`,
        head: { ref: run.headBranch, sha: run.headSha, repo: this.repoRef() },
        base: { ref: this.state.defaultBranch, sha: '0'.repeat(40), repo: this.repoRef() },
      })),
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      actor: this.user(run.actor),
      triggering_actor: this.user(run.actor),
      run_attempt: run.runAttempt,
      referenced_workflows: [],
      run_started_at: run.createdAt,
      jobs_url: `${url}/jobs`,
      logs_url: `${url}/logs`,
      check_suite_url: `${this.repoApi}/check-suites/${run.id + 1}`,
      artifacts_url: `${url}/artifacts`,
      cancel_url: `${url}/cancel`,
      rerun_url: `${url}/rerun`,
      previous_attempt_url: run.runAttempt > 1 ? `${url}/attempts/${run.runAttempt - 1}` : null,
      workflow_url: `${this.repoApi}/actions/workflows/${run.workflowId}`,
      head_commit: {
        id: run.headSha,
        tree_id: run.headSha.split('').reverse().join(''),
        message: run.displayTitle,
        timestamp: run.createdAt,
        author: { name: 'Octo Cat', email: 'octocat@example.com' },
        committer: { name: 'GitHub', email: 'noreply@github.com' },
      },
      repository,
      head_repository: run.headRepository
        ? { ...repository, ...this.otherRepository(run.headRepository) }
        : repository,
      head_repository_id: run.headRepository ? userId(run.headRepository) : this.state.repositoryId,
    };
  }

  /** The fields that differ for another repository (a fork). */
  otherRepository(fullName: string): Record<string, unknown> {
    const [owner, name] = fullName.split('/');
    return {
      id: userId(fullName),
      node_id: nodeId('R', userId(fullName)),
      name,
      full_name: fullName,
      owner: this.user(owner!),
      html_url: `${HTML}/${fullName}`,
      url: `${this.state.apiUrl}/repos/${fullName}`,
      fork: fullName !== this.state.fullName,
    };
  }

  /** A pull request as `GET /pulls/{pull_number}` returns it, trimmed to its main fields. */
  pull(issue: IssueRecord): Record<string, unknown> {
    const head = issue.head ?? { ref: 'feature', sha: '0'.repeat(40), repo: this.state.fullName };
    const repository = this.minimalRepository();
    const headRepository =
      head.repo === this.state.fullName
        ? repository
        : { ...repository, ...this.otherRepository(head.repo) };
    return {
      url: `${this.repoApi}/pulls/${issue.number}`,
      id: issue.id,
      node_id: nodeId('PR', issue.id),
      html_url: `${this.repoHtml}/pull/${issue.number}`,
      number: issue.number,
      state: issue.state,
      locked: issue.locked,
      title: issue.title,
      user: this.user(issue.user),
      body: issue.body,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      head: {
        label: `${head.repo.split('/')[0]}:${head.ref}`,
        ref: head.ref,
        sha: head.sha,
        user: this.user(head.repo.split('/')[0]!),
        repo: headRepository,
      },
      base: {
        label: `${this.state.owner}:${this.state.defaultBranch}`,
        ref: this.state.defaultBranch,
        sha: '0'.repeat(40),
        user: this.user(this.state.owner),
        repo: repository,
      },
    };
  }

  artifact(artifact: ArtifactRecord): Record<string, unknown> {
    const url = `${this.repoApi}/actions/artifacts/${artifact.id}`;
    const run = this.state.workflowRuns.find((r) => r.id === artifact.runId)!;
    return {
      id: artifact.id,
      node_id: nodeId('MDg6QXJ0aWZhY3Q', artifact.id),
      name: artifact.name,
      size_in_bytes: artifact.zip.length,
      url,
      archive_download_url: `${url}/zip`,
      expired: artifact.expired,
      created_at: artifact.createdAt,
      updated_at: artifact.createdAt,
      expires_at: artifact.expiresAt,
      digest: null,
      workflow_run: {
        id: run.id,
        repository_id: this.state.repositoryId,
        head_repository_id: this.state.repositoryId,
        head_branch: run.headBranch,
        head_sha: run.headSha,
      },
    };
  }

  private repoRef(): Record<string, unknown> {
    return { id: this.state.repositoryId, url: this.repoApi, name: this.state.repo };
  }

  private reactions(url: string): Record<string, unknown> {
    return {
      url,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      hooray: 0,
      confused: 0,
      heart: 0,
      rocket: 0,
      eyes: 0,
    };
  }
}

// --- helpers -------------------------------------------------------------------------------

const PER_PAGE_DEFAULT = 30;
const PER_PAGE_MAX = 100;

/**
 * One page of `items` as GitHub pages lists: `per_page` (30 by default, at most 100) and
 * `page` (from 1), with a Link header naming the prev, next, last and first pages.
 */
function paginated<T>(
  state: GitHubState,
  request: ApiRequest,
  items: T[],
  shape: (page: T[]) => unknown,
): ApiResponse {
  const perPage = Math.min(
    PER_PAGE_MAX,
    Math.max(1, Number(request.query.get('per_page') ?? PER_PAGE_DEFAULT) || PER_PAGE_DEFAULT),
  );
  const page = Math.max(1, Number(request.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);

  const pageUrl = (n: number) => {
    const query = new URLSearchParams(request.query);
    query.set('page', String(n));
    return `<${state.apiUrl}${request.path}?${query.toString()}>`;
  };
  const links: string[] = [];
  if (page > 1) links.push(`${pageUrl(Math.min(page - 1, last))}; rel="prev"`);
  if (page < last) {
    links.push(`${pageUrl(page + 1)}; rel="next"`, `${pageUrl(last)}; rel="last"`);
  }
  if (page > 1) links.push(`${pageUrl(1)}; rel="first"`);
  return {
    status: 200,
    body: shape(slice),
    headers: links.length > 0 ? { link: links.join(', ') } : {},
  };
}

function ok(body: unknown): ApiResponse {
  return { status: 200, body };
}

function created(body: unknown, location: string): ApiResponse {
  return { status: 201, body, headers: { location } };
}

function githubError(status: number, message: string): ApiResponse {
  return {
    status,
    body: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
  };
}

function validationFailed(
  resource: string,
  field: string,
  code: string,
  message?: string,
): ApiResponse {
  return {
    status: 422,
    body: {
      message: 'Validation Failed',
      errors: [{ resource, field, code, ...(message ? { message } : {}) }],
      documentation_url: 'https://docs.github.com/rest',
      status: '422',
    },
  };
}

function forbiddenForIntegration(template: string): ApiResponse {
  const response = githubError(403, 'Resource not accessible by integration');
  const permissions = WRITE_PERMISSIONS[template];
  return permissions
    ? { ...response, headers: { 'x-accepted-github-permissions': permissions } }
    : response;
}

/** A canned answer without a body gets GitHub's error body for its status. */
function withDefaultBody(response: ApiResponse): ApiResponse {
  if (response.body !== undefined || response.raw || response.status < 400) return response;
  return { ...githubError(response.status, STATUS_CODES[response.status] ?? 'Error'), ...response };
}

function bodyObject(request: ApiRequest): Record<string, unknown> {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

/** Label names from an issue body's `labels`: strings or `{ name }` objects. */
/** The body of a comment being created or edited, or GitHub's 422 when it is missing or too long. */
function commentBody(request: ApiRequest): string | ApiResponse {
  const body = bodyObject(request).body;
  if (typeof body !== 'string' || body.length === 0) {
    return validationFailed('IssueComment', 'body', 'missing_field');
  }
  if (body.length > 65_536) {
    return validationFailed(
      'IssueComment',
      'body',
      'custom',
      'Body is too long (maximum is 65536 characters)',
    );
  }
  return body;
}

function labelNames(labels: unknown): string[] {
  if (!Array.isArray(labels)) return [];
  return labels
    .map((l) => (typeof l === 'string' ? l : (l as { name?: unknown } | null)?.name))
    .filter((name): name is string => typeof name === 'string' && name.length > 0);
}

function splitList(value: string | null): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function sameName(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

function nodeId(prefix: string, id: number | string): string {
  return `${prefix}_${Buffer.from(String(id)).toString('base64url')}`;
}

function userId(login: string): number {
  let hash = 7;
  for (const char of login) hash = (hash * 31 + char.codePointAt(0)!) % 90_000_000;
  return 10_000_000 + hash;
}

function parseBody(
  raw: Buffer,
  contentType: string | undefined,
): { body: unknown; error?: string } {
  if (raw.length === 0) return { body: undefined };
  const text = raw.toString('utf8');
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    const isJson = (contentType ?? '').includes('json');
    return isJson ? { body: text, error: 'the body is not valid JSON' } : { body: text };
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

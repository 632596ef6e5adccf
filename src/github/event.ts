// What kind of run this is: the job's variables and the webhook payload the runner wrote
// to GITHUB_EVENT_PATH, reduced to the few facts the gate decides on (compare? comment?
// may it become the baseline? is it a fork's code?).

import { readFileSync } from 'node:fs';
import { errorMessage, usageError } from '../errors.js';

export interface RepositoryName {
  owner: string;
  repo: string;
}

export interface PullRequestContext {
  number: number;
  headSha: string;
  /** `owner/name` of the head repository; absent when that repository was deleted. */
  headRepo?: string;
  /** `owner/name` of the repository the pull request is into. */
  baseRepo: string;
  /** The branch the pull request is into. */
  baseRef: string;
  /** The head is another repository than the base: the code is not the team's own. */
  isFork: boolean;
}

export interface WorkflowRunContext {
  /** The run that triggered this `workflow_run` job (not this job's own run). */
  id: number;
  headSha: string;
  headBranch?: string;
  /**
   * Numbers of the pull requests into this repository the run was for. GitHub leaves
   * this empty for pull requests from forks; see `verifyRunPullRequests`.
   */
  pullRequests: number[];
  /** `owner/name` of the repository the run's code came from. */
  headRepo?: string;
  /** The event that triggered that run (`pull_request`, `push`, ...). */
  event: string;
  conclusion?: string;
}

export interface GitHubContext {
  eventName: string;
  repository: RepositoryName;
  /** From the payload; absent when it has no repository (schedule) or could not be read. */
  defaultBranch?: string;
  ref: string;
  refName?: string;
  sha: string;
  runId: number;
  runAttempt: number;
  workflow: string;
  job: string;
  actor: string;
  serverUrl: string;
  apiUrl: string;
  pullRequest?: PullRequestContext;
  workflowRun?: WorkflowRunContext;
  /**
   * The event runs pull-request code or names a pull request (a review, a comment on one,
   * a merge queue, a workflow_run of a pull request's run): such a run never stores.
   */
  carriesPullRequest: boolean;
}

/** Events whose payload is about a pull request, whatever it holds. */
const PULL_REQUEST_EVENT_NAMES: ReadonlySet<string> = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
  'merge_group',
]);

/** Whether `payload` of event `eventName` carries a pull request (see GitHubContext). */
export function carriesPullRequest(eventName: string, payload: Record<string, unknown>): boolean {
  if (PULL_REQUEST_EVENT_NAMES.has(eventName)) return true;
  if (payload.pull_request !== undefined && payload.pull_request !== null) return true;
  const issue = objectAt(payload, 'issue');
  if (issue?.pull_request !== undefined && issue.pull_request !== null) return true;
  const run = objectAt(payload, 'workflow_run');
  if (run === undefined) return false;
  const runEvent = typeof run.event === 'string' ? run.event : '';
  const listed = Array.isArray(run.pull_requests) && run.pull_requests.length > 0;
  return PULL_REQUEST_EVENT_NAMES.has(runEvent) || listed;
}

/**
 * The context of the running job, from the variables GitHub Actions sets and the event
 * payload file. A missing or unreadable payload leaves the payload's fields absent; a
 * payload that is not a JSON object is an error naming the file.
 */
export function readGitHubContext(env: NodeJS.ProcessEnv = process.env): GitHubContext {
  return parseGitHubContext(env, readEventPayload(env.GITHUB_EVENT_PATH));
}

/**
 * The webhook payload at `path`, or undefined when there is none to read. A file that is
 * there but cannot be read is an error with `unreadable: 'throw'`.
 */
export function readEventPayload(
  path: string | undefined,
  options: { unreadable?: 'throw' | 'ignore' } = {},
): Record<string, unknown> | undefined {
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // Outside Actions (act, a local run) there may be no payload; the variables still say a lot.
    const code = (error as NodeJS.ErrnoException).code;
    if (options.unreadable !== 'throw' || code === 'ENOENT') return undefined;
    throw usageError(
      `The event payload ${path} (GITHUB_EVENT_PATH) cannot be read: ${errorMessage(error)}. ` +
        'The runner writes this file; if a step before the gate changed it, leave it alone.',
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw usageError(
      `The event payload ${path} (GITHUB_EVENT_PATH) is not valid JSON: ${errorMessage(error)}. ` +
        'The runner writes this file; if a step before the gate changed it, leave it alone.',
    );
  }
  if (!isObject(data)) {
    throw usageError(
      `The event payload ${path} (GITHUB_EVENT_PATH) is not a JSON object; the runner writes ` +
        'one object per event. If a step before the gate changed it, leave it alone.',
    );
  }
  return data;
}

/** The context from the variables and an already read payload. */
export function parseGitHubContext(
  env: NodeJS.ProcessEnv,
  payload: Record<string, unknown> = {},
): GitHubContext {
  const payloadRepository = objectAt(payload, 'repository');
  const repository = parseRepositoryName(
    env.GITHUB_REPOSITORY || stringAt(payloadRepository, 'full_name'),
  );
  const ref = env.GITHUB_REF ?? '';
  const refName = env.GITHUB_REF_NAME || shortRefName(ref);
  const defaultBranch = stringAt(payloadRepository, 'default_branch');
  const pullRequest = parsePullRequest(objectAt(payload, 'pull_request'), repository);
  const workflowRun = parseWorkflowRun(objectAt(payload, 'workflow_run'), repository);
  const serverUrl = trimSlash(env.GITHUB_SERVER_URL || 'https://github.com');
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    repository,
    ...(defaultBranch ? { defaultBranch } : {}),
    ref,
    ...(refName ? { refName } : {}),
    sha: env.GITHUB_SHA ?? '',
    runId: positiveInteger(env.GITHUB_RUN_ID) ?? 0,
    runAttempt: positiveInteger(env.GITHUB_RUN_ATTEMPT) ?? 1,
    workflow: env.GITHUB_WORKFLOW ?? '',
    job: env.GITHUB_JOB ?? '',
    actor: env.GITHUB_ACTOR ?? '',
    serverUrl,
    apiUrl: trimSlash(env.GITHUB_API_URL || defaultApiUrl(serverUrl)),
    ...(pullRequest ? { pullRequest } : {}),
    ...(workflowRun ? { workflowRun } : {}),
    carriesPullRequest: carriesPullRequest(env.GITHUB_EVENT_NAME ?? '', payload),
  };
}

export type EventKind =
  'pull-request' | 'default-branch' | 'schedule' | 'dispatch' | 'other' | 'skip';

export interface EventClass {
  kind: EventKind;
  /** Run the benchmarks and compare them with the baseline. */
  compare: boolean;
  /** Post (or update) the pull request comment. */
  comment: boolean;
  /** One sentence for the log. */
  reason: string;
}

export interface ClassifyOptions {
  /** What to do on events the gate has no rule for (push to a feature branch, merge_group...). */
  otherEvents: 'compare' | 'skip';
}

/**
 * What the gate does on this event. Only code that reached the default branch may become
 * the baseline; pull requests are compared with the baseline of the branch they go into.
 */
export function classifyEvent(ctx: GitHubContext, options: ClassifyOptions): EventClass {
  const onDefaultBranch =
    ctx.defaultBranch !== undefined && ctx.ref === `refs/heads/${ctx.defaultBranch}`;
  switch (ctx.eventName) {
    case 'pull_request':
    case 'pull_request_target': {
      const pr = ctx.pullRequest;
      const into = pr ? `pull request #${pr.number} into ${pr.baseRef}` : 'a pull request';
      return {
        kind: 'pull-request',
        compare: true,
        comment: true,
        reason: `${into}: compared with the baseline of ${pr?.baseRef ?? 'its base branch'}; a pull request never updates the baseline`,
      };
    }
    case 'schedule':
      // Scheduled runs always run on the default branch's latest commit.
      return {
        kind: 'schedule',
        compare: true,
        comment: false,
        reason:
          'a scheduled run on the default branch: compared, and stored as update-baseline says',
      };
    case 'push':
      if (onDefaultBranch) {
        return {
          kind: 'default-branch',
          compare: true,
          comment: false,
          reason: `a push to the default branch ${ctx.defaultBranch}: compared, and stored as update-baseline says`,
        };
      }
      return otherEvent(
        ctx,
        options,
        `a push to ${ctx.refName ?? ctx.ref}, not the default branch`,
      );
    case 'workflow_dispatch':
      if (onDefaultBranch) {
        return {
          kind: 'dispatch',
          compare: true,
          comment: false,
          reason: `a manual run on the default branch ${ctx.defaultBranch}: compared, and stored as update-baseline says`,
        };
      }
      return {
        kind: 'dispatch',
        compare: true,
        comment: false,
        reason: ctx.defaultBranch
          ? `a manual run on ${ctx.refName ?? ctx.ref}, not the default branch ${ctx.defaultBranch}: compared; stored only with update-baseline: always`
          : `a manual run on ${ctx.refName ?? ctx.ref}; the event payload does not say which branch is the default, so it is compared and stored only with update-baseline: always`,
      };
    default:
      return otherEvent(ctx, options, `the ${ctx.eventName || 'unknown'} event`);
  }
}

function otherEvent(ctx: GitHubContext, options: ClassifyOptions, what: string): EventClass {
  if (options.otherEvents === 'skip') {
    return {
      kind: 'skip',
      compare: false,
      comment: false,
      reason: `${what}: skipped, as other-events is skip`,
    };
  }
  return {
    kind: 'other',
    compare: true,
    comment: false,
    reason:
      ctx.eventName === 'push' && !ctx.carriesPullRequest
        ? `${what}: compared; stored only with update-baseline: always`
        : `${what}: compared; never stored (only push, schedule and workflow_dispatch store)`,
  };
}

export interface ForkSafetyOptions {
  allowForkPrs: boolean;
}

/**
 * Undefined when the run may go ahead; otherwise why not. A pull request from a fork
 * would run code nobody on the team has reviewed on the team's self-hosted runner.
 */
export function checkForkSafety(
  ctx: GitHubContext,
  options: ForkSafetyOptions,
): string | undefined {
  if (options.allowForkPrs) return undefined;
  const unknownOrigin = unknownOriginProblem(ctx);
  if (unknownOrigin) return unknownOrigin;
  const pr = ctx.pullRequest;
  if (!pr?.isFork) return undefined;
  const from = pr.headRepo ? `the fork ${pr.headRepo}` : 'a repository that no longer exists';
  return (
    `neuron-perf-gate refuses to run pull request #${pr.number}: it comes from ${from}, not from ` +
    `${pr.baseRepo}. Running its benchmark would execute the fork's code on this self-hosted ` +
    'inf2 runner, with access to whatever that machine can reach (its network, the instance ' +
    "role's cloud credentials, caches and files other jobs leave behind). Gate fork pull " +
    'requests with the two-stage setup (README section "Pull requests from forks"): run the ' +
    'benchmark job only once a maintainer has reviewed the change, with ' +
    '`allow-fork-prs: true` and a read-only token, and post the comment from a separate ' +
    '`workflow_run` job on a GitHub-hosted runner with `mode: comment`.'
  );
}

const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target']);

const REFUSED_UNKNOWN =
  "Whose code this is cannot be told, so it is treated as a fork's: nothing runs (set " +
  '`allow-fork-prs: true` only if every pull request may run on this runner).';

/**
 * Fail closed: a pull request event whose payload does not say where its head is (no
 * `pull_request` object, a number that is not a number, an unreadable file), and a
 * `workflow_run` of code from another repository (or from nowhere the payload says),
 * are refused like a fork's pull request.
 */
function unknownOriginProblem(ctx: GitHubContext): string | undefined {
  const repository = `${ctx.repository.owner}/${ctx.repository.repo}`;
  if (PULL_REQUEST_EVENTS.has(ctx.eventName) && !ctx.pullRequest) {
    return (
      `neuron-perf-gate refuses to run: this is a ${ctx.eventName} event, but its payload ` +
      '(GITHUB_EVENT_PATH) holds no pull request with a number and a head repository. ' +
      REFUSED_UNKNOWN
    );
  }
  if (ctx.eventName === 'workflow_run') {
    const headRepo = ctx.workflowRun?.headRepo;
    if (!headRepo || !sameRepository(headRepo, repository)) {
      const from = headRepo
        ? `code from ${headRepo}`
        : 'code whose repository the payload does not name';
      return (
        `neuron-perf-gate refuses to run the benchmark of a workflow_run of ${from}, not of ` +
        `${repository}: in gate mode it would execute that code on this self-hosted runner. ` +
        'Use `mode: comment` in a workflow_run job (it only posts the report), or set ' +
        '`allow-fork-prs: true` if every such run may run on this runner.'
      );
    }
  }
  return undefined;
}

function parsePullRequest(
  pr: Record<string, unknown> | undefined,
  repository: RepositoryName,
): PullRequestContext | undefined {
  const number = numberAt(pr, 'number');
  if (!pr || number === undefined) return undefined;
  const head = objectAt(pr, 'head');
  const base = objectAt(pr, 'base');
  const headRepo = stringAt(objectAt(head, 'repo'), 'full_name');
  const baseRepo =
    stringAt(objectAt(base, 'repo'), 'full_name') ?? `${repository.owner}/${repository.repo}`;
  return {
    number,
    headSha: stringAt(head, 'sha') ?? '',
    ...(headRepo ? { headRepo } : {}),
    baseRepo,
    baseRef: stringAt(base, 'ref') ?? '',
    // A deleted head repository counts as a fork: nothing says the code is the team's. So
    // does a base that is not this job's repository: the payload contradicts itself.
    isFork:
      headRepo === undefined ||
      !sameRepository(headRepo, baseRepo) ||
      !sameRepository(headRepo, `${repository.owner}/${repository.repo}`),
  };
}

function parseWorkflowRun(
  run: Record<string, unknown> | undefined,
  repository: RepositoryName,
): WorkflowRunContext | undefined {
  const id = numberAt(run, 'id');
  if (!run || id === undefined) return undefined;
  const headBranch = stringAt(run, 'head_branch');
  const headRepo = stringAt(objectAt(run, 'head_repository'), 'full_name');
  const conclusion = stringAt(run, 'conclusion');
  const pullRequests = Array.isArray(run.pull_requests) ? run.pull_requests : [];
  return {
    id,
    headSha: stringAt(run, 'head_sha') ?? '',
    ...(headBranch ? { headBranch } : {}),
    pullRequests: pullRequests
      .filter(isObject)
      .filter((pr) => isIntoRepository(pr, repository))
      .flatMap((pr) => {
        const number = numberAt(pr, 'number');
        return number === undefined ? [] : [number];
      }),
    ...(headRepo ? { headRepo } : {}),
    event: stringAt(run, 'event') ?? '',
    ...(conclusion ? { conclusion } : {}),
  };
}

/**
 * A run's pull_requests can list pull requests of other repositories that share the
 * branch name; only those into this repository are this run's.
 */
function isIntoRepository(pr: Record<string, unknown>, repository: RepositoryName): boolean {
  const url = stringAt(objectAt(objectAt(pr, 'base'), 'repo'), 'url');
  if (!url) return true;
  return url.toLowerCase().endsWith(`/repos/${repository.owner}/${repository.repo}`.toLowerCase());
}

function parseRepositoryName(fullName: string | undefined): RepositoryName {
  const [owner, repo, ...rest] = (fullName ?? '').split('/');
  if (!owner || !repo || rest.length > 0) {
    throw usageError(
      fullName
        ? `GITHUB_REPOSITORY is "${fullName}", expected owner/name.`
        : 'GITHUB_REPOSITORY is not set: the GitHub parts of the gate run inside a GitHub Actions job. Outside Actions, use the neuron-perf-gate CLI.',
    );
  }
  return { owner, repo };
}

/** GitHub's own names are case-insensitive. */
function sameRepository(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function shortRefName(ref: string): string | undefined {
  const match = /^refs\/(?:heads|tags)\/(.+)$/.exec(ref);
  return match?.[1];
}

/** github.com's API lives on its own host; GitHub Enterprise Server's under /api/v3. */
function defaultApiUrl(serverUrl: string): string {
  return serverUrl === 'https://github.com' ? 'https://api.github.com' : `${serverUrl}/api/v3`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function positiveInteger(text: string | undefined): number | undefined {
  if (!text || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(
  value: Record<string, unknown> | undefined,
  key: string,
): Record<string, unknown> | undefined {
  const field = value?.[key];
  return isObject(field) ? field : undefined;
}

function stringAt(value: Record<string, unknown> | undefined, key: string): string | undefined {
  const field = value?.[key];
  return typeof field === 'string' && field.length > 0 ? field : undefined;
}

function numberAt(value: Record<string, unknown> | undefined, key: string): number | undefined {
  const field = value?.[key];
  return typeof field === 'number' && Number.isSafeInteger(field) ? field : undefined;
}

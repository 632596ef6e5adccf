// What a failed GitHub request means for the user: which refusals are for lack of
// permission, and an error that names the request and the permission to grant.
import { errorMessage } from '../errors.js';

/**
 * Whether a request failed for lack of permission: a 403 that is not a rate limit, such as
 * "Resource not accessible by integration" from a read-only GITHUB_TOKEN (pull requests from
 * forks get one), or a `GitHubPermissionError`.
 */
export function isPermissionError(error: unknown): boolean {
  if (error instanceof GitHubPermissionError) return true;
  const { status, message } = requestErrorParts(error);
  return status === 403 && !/rate limit/i.test(message);
}

/** A write GitHub refused for lack of permission, with what the workflow needs to change. */
export class GitHubPermissionError extends Error {
  override readonly name = 'GitHubPermissionError';
  readonly status = 403;

  constructor(action: string, permission: string, cause: unknown) {
    const { message, acceptedPermissions } = requestErrorParts(cause);
    const needs = acceptedPermissions
      ? `GitHub accepts a token with ${acceptedPermissions}`
      : `the token needs ${permission}`;
    super(
      `${action} failed: GitHub answered 403 "${message}". ${needs}; add ` +
        `\`permissions: ${permission}\` to the job. Pull requests from forks only get a ` +
        'read-only token, whatever the workflow asks for.',
      { cause },
    );
  }
}

function requestErrorParts(error: unknown): {
  status?: number;
  message: string;
  acceptedPermissions?: string;
} {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const { status, message, response } = error as {
    status?: unknown;
    message?: unknown;
    response?: { headers?: Record<string, unknown>; data?: { message?: unknown } };
  };
  const dataMessage = response?.data?.message;
  const accepted = response?.headers?.['x-accepted-github-permissions'];
  return {
    ...(typeof status === 'number' ? { status } : {}),
    message: typeof dataMessage === 'string' ? dataMessage : String(message ?? ''),
    ...(typeof accepted === 'string' && accepted ? { acceptedPermissions: accepted } : {}),
  };
}

/**
 * `error` saying what was being done; for a refusal, which permission the job's token
 * lacks (GITHUB_TOKEN gets only what the workflow's `permissions:` grants).
 */
export function requestFailed(error: unknown, action: string, permission: string): Error {
  if (isPermissionError(error)) return new GitHubPermissionError(action, permission, error);
  return new Error(`${action} failed: ${errorMessage(error)}`, { cause: error });
}

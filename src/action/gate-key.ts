// The key that ties a gate's PR comment, nightly issue and stored history together.

import { createHash } from 'node:crypto';

export interface GateKeyParts {
  /** GITHUB_WORKFLOW: the workflow's name. */
  workflow: string;
  /** GITHUB_JOB: the job's id. */
  job: string;
  /** Where the benchmarks came from: the config file, or 'action inputs'. */
  configSource: string;
  /** The job's matrix as JSON, when it runs in one. */
  matrix?: string;
  /** The `comment-key` input: used as it is. */
  explicit?: string;
}

/**
 * `<workflow>-<job>-<hash>`: readable in the data branch's folders, and different for each
 * config file and matrix combination, so that matrix jobs keep a comment and a history
 * each. An explicit key replaces it (two workflows sharing one comment).
 */
export function gateKey(parts: GateKeyParts): string {
  if (parts.explicit) return parts.explicit;
  const readable = `${parts.workflow}-${parts.job}`
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  const hash = createHash('sha256')
    .update(JSON.stringify([parts.workflow, parts.job, parts.configSource, parts.matrix ?? '']))
    .digest('hex')
    .slice(0, 8);
  return `${readable || 'gate'}-${hash}`;
}

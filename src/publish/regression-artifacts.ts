// The artifacts of a regression's first bad night, for its issue to link: the run that
// measured it uploaded one per benchmark (benchmark-artifacts.ts), named by the gate key,
// the benchmark and the attempt. This run's come from its report; an earlier run's are
// listed through the API (`actions: read`). A lookup that fails costs the link, never the
// issue: the body then names the run alone.

import { errorMessage } from '../errors.js';
import { artifactName } from './artifact.js';
import type { GitHubClient } from '../github/client.js';
import { numericRunId, runAttemptOf } from '../history/commit-range.js';
import type { Regression } from '../history/regressions.js';
import type { Logger } from '../log.js';

/** This run's uploaded artifact ids by benchmark, and its run id as records name it. */
export interface ThisRunArtifacts {
  /** `<run id>-<attempt>`, as this run's records carry it. */
  runId: string;
  artifacts: ReadonlyMap<string, number>;
}

export interface ArtifactLookupOptions {
  owner: string;
  repo: string;
  gateKey: string;
  thisRun?: ThisRunArtifacts;
  log: Pick<Logger, 'info'>;
}

/** Artifact ids of the first bad night's run, by benchmark of the regression (none found: empty). */
export async function profileArtifactsOf(
  octokit: GitHubClient,
  options: ArtifactLookupOptions,
  regression: Pick<Regression, 'id' | 'firstBad' | 'benchmarks'>,
): Promise<Map<string, number>> {
  const { runId } = regression.firstBad;
  if (options.thisRun?.runId === runId) {
    const own = options.thisRun.artifacts;
    return new Map(regression.benchmarks.flatMap((b) => (own.has(b) ? [[b, own.get(b)!]] : [])));
  }
  const run = numericRunId(runId);
  if (run === 0) return new Map();
  const wanted = new Map(
    regression.benchmarks.map((b) => [artifactName(options.gateKey, b, runAttemptOf(runId)), b]),
  );
  try {
    const listed = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, {
      owner: options.owner,
      repo: options.repo,
      run_id: run,
      per_page: 100,
    });
    const found = new Map<string, number>();
    // A name uploaded twice: the newest (largest id) wins, as findRunArtifact picks it.
    for (const artifact of [...listed].sort((a, b) => a.id - b.id)) {
      const benchmark = wanted.get(artifact.name);
      if (benchmark !== undefined && !artifact.expired) found.set(benchmark, artifact.id);
    }
    return found;
  } catch (error) {
    options.log.info(
      `Regression ${regression.id}: the first bad night's artifacts were not listed, so the issue links its run only (${errorMessage(error)}; the job needs "permissions: actions: read")`,
    );
    return new Map();
  }
}

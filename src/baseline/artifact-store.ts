// Baselines kept as workflow artifacts: each successful default-branch run of the gate's
// workflow uploads its results as `perf-gate-baseline`, and later runs read the newest of
// those through the REST API (the job needs `permissions: actions: read`). Nothing to set
// up, but artifacts expire with the repository's retention period.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { BenchmarkResult } from '../model.js';
import type { GitHubClient } from '../github/client.js';
import { requestFailed } from '../github/request-error.js';
import {
  ArtifactDownloadError,
  downloadArtifactZip,
  findRunArtifact,
} from '../github/run-artifacts.js';
import { extractNamedEntries } from '../github/unzip.js';
import { baselineFileText } from './file-store.js';
import { readResultFiles, type ReadOptions } from './result-files.js';
import type { Baseline, BaselineStore } from './types.js';

export const BASELINE_ARTIFACT_NAME = 'perf-gate-baseline';

/** `perf-gate-baseline-<gate key>`: matrix jobs of one run each upload their own. */
export function baselineArtifactName(gateKey: string): string {
  return `${BASELINE_ARTIFACT_NAME}-${gateKey.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
}

export const BASELINE_ARTIFACT_FILE = 'baseline.json';

/** Runs looked at, at least, before deciding there is no baseline. */
const MIN_RUNS_SEARCHED = 20;
/** Results with per-request samples can be large; anything far beyond is not ours. */
const MAX_BASELINE_BYTES = 64 * 1024 * 1024;
/** Only these events run the default branch's own code and may leave a baseline. */
const BASELINE_EVENTS = new Set(['push', 'schedule', 'workflow_dispatch']);

/** The files of a baseline artifact, by name: what a run uploads as BASELINE_ARTIFACT_NAME. */
export function baselineArtifactFiles(
  results: BenchmarkResult[],
  now: Date = new Date(),
): Record<typeof BASELINE_ARTIFACT_FILE, string> {
  return { [BASELINE_ARTIFACT_FILE]: baselineFileText(results, now) };
}

export interface ArtifactBaselineStoreOptions {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  /** This job's run: its workflow is the one whose runs are searched. */
  runId: number;
  defaultBranch: string;
  /** Baseline artifacts (one record each) pooled per benchmark, newest first. */
  window: number;
  /** Name for results whose file names none; see ReadOptions. */
  fallbackName: string;
  log: Logger;
  /** The artifact looked for: `perf-gate-baseline` unless given (see baselineArtifactName). */
  name?: string;
}

/** The baseline file of one run's artifact, written to a scratch folder. */
interface FoundBaseline {
  runId: number;
  headSha: string;
  path: string;
}

export class ArtifactBaselineStore implements BaselineStore {
  private readonly name: string;

  constructor(private readonly options: ArtifactBaselineStoreOptions) {
    this.name = options.name ?? BASELINE_ARTIFACT_NAME;
  }

  async load(): Promise<Baseline | undefined> {
    const { log, defaultBranch } = this.options;
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-baseline-artifact-'));
    try {
      const found = await this.findBaselines(dir);
      if (found.length === 0) {
        log.info(
          `No readable "${this.name}" artifact in the recent successful runs of this workflow on ${defaultBranch}: there is no baseline yet.`,
        );
        return undefined;
      }
      const benchmarks = await readResultFiles(
        found.map((item) => item.path),
        this.readOptions(),
      );
      const runs = found.map((item) => `${item.runId} (${item.headSha.slice(0, 7)})`).join(', ');
      const source = `artifact ${this.name} of run${found.length > 1 ? 's' : ''} ${runs}`;
      log.info(`Baseline: ${source}`);
      return { source, benchmarks };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private readOptions(): ReadOptions {
    return { format: 'auto', fallbackName: this.options.fallbackName, window: this.options.window };
  }

  /**
   * The readable baseline files of up to `window` of the newest successful default-branch
   * runs of this workflow, newest first, looking at a bounded number of runs.
   */
  private async findBaselines(dir: string): Promise<FoundBaseline[]> {
    const { octokit, owner, repo, runId, defaultBranch, window } = this.options;
    const current = await octokit.rest.actions
      .getWorkflowRun({ owner, repo, run_id: runId })
      .catch((error: unknown) => {
        throw requestFailed(error, `Reading this workflow run (${runId})`, 'actions: read');
      });
    const workflowId = current.data.workflow_id;
    const maxRuns = Math.max(MIN_RUNS_SEARCHED, window * 2);
    const found: FoundBaseline[] = [];
    let searched = 0;
    const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRuns, {
      owner,
      repo,
      workflow_id: workflowId,
      branch: defaultBranch,
      status: 'success',
      exclude_pull_requests: true,
      per_page: Math.min(100, maxRuns),
    });
    try {
      for await (const page of pages) {
        for (const run of page.data) {
          if (run.id === runId || !this.isDefaultBranchRun(run)) continue;
          if (searched++ >= maxRuns) return found;
          const data = await this.baselineOfRun(run.id);
          if (!data) continue;
          // The run id in the name is what a message about the file points to.
          const path = join(dir, `run-${run.id}-${BASELINE_ARTIFACT_FILE}`);
          await writeFile(path, data);
          if (!(await this.isReadable(path, run.id))) continue;
          found.push({ runId: run.id, headSha: run.head_sha, path });
          if (found.length >= window) return found;
        }
      }
    } catch (error) {
      // Too large or empty: the artifact's fault, and the message says so already.
      if (error instanceof ArtifactDownloadError) throw error;
      throw requestFailed(
        error,
        `Reading the runs and artifacts of workflow ${workflowId}`,
        'actions: read',
      );
    }
    return found;
  }

  /** Whether the gate can read the file as a baseline; a warning says why not. */
  private async isReadable(path: string, runId: number): Promise<boolean> {
    try {
      await readResultFiles([path], this.readOptions());
      return true;
    } catch (error) {
      this.options.log.warning(`The baseline of run ${runId} is skipped: ${errorMessage(error)}`);
      return false;
    }
  }

  /**
   * A run of the default branch's own code: a fork's pull request from a branch that is
   * also called `main` matches the branch filter too.
   */
  private isDefaultBranchRun(run: {
    event: string;
    head_branch: string | null;
    head_repository?: { full_name: string } | null;
  }): boolean {
    const { owner, repo, defaultBranch } = this.options;
    const fullName = run.head_repository?.full_name;
    return (
      BASELINE_EVENTS.has(run.event) &&
      run.head_branch === defaultBranch &&
      (!fullName || fullName.toLowerCase() === `${owner}/${repo}`.toLowerCase())
    );
  }

  /** baseline.json of the run's artifact; undefined (with a warning when damaged) if none. */
  private async baselineOfRun(runId: number): Promise<Buffer | undefined> {
    const { octokit, owner, repo, log } = this.options;
    const artifact = await findRunArtifact(octokit, {
      owner,
      repo,
      runId,
      name: this.name,
    });
    if (!artifact || artifact.expired) return undefined;
    const zip = await downloadArtifactZip(octokit, {
      owner,
      repo,
      artifactId: artifact.id,
      maxBytes: MAX_BASELINE_BYTES,
    });
    const what = `the "${this.name}" artifact of run ${runId}`;
    try {
      const { files } = extractNamedEntries(zip, {
        names: [BASELINE_ARTIFACT_FILE],
        maxEntryBytes: MAX_BASELINE_BYTES,
      });
      const data = files.get(BASELINE_ARTIFACT_FILE);
      if (data) return data;
      log.warning(`${what} has no ${BASELINE_ARTIFACT_FILE}; skipped`);
    } catch (error) {
      log.warning(`${what} cannot be read (${(error as Error).message}); skipped`);
    }
    return undefined;
  }
}

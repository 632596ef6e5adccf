// The input `dashboard`: after a gate run, the dashboard page of the data branch's records
// (what `neuron-perf-gate dashboard` writes) uploaded as an artifact, or committed to a
// branch for GitHub Pages. The page is built in full before anything is uploaded or
// pushed, so a failed build changes nothing; any failure is a note, never a changed verdict.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Git } from '../baseline/git/git.js';
import { dashboardInput, repositoryUrlOf } from '../dashboard/build.js';
import { commitSubjects, withRangeCommits } from '../dashboard/commit-subjects.js';
import { publishToPagesBranch } from '../dashboard/pages-branch.js';
import { DASHBOARD_FILE, renderDashboard } from '../dashboard/render.js';
import type { DashboardSetting } from '../config/types.js';
import { errorMessage, usageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import type { GitHubContext } from '../github/event.js';
import type { StoredRecordSource } from '../history/read.js';
import type { Logger } from '../log.js';
import { artifactName, uploadProfileArtifact } from '../publish/artifact.js';

export interface DashboardPlan {
  setting: Exclude<DashboardSetting, 'off'>;
  /** `dashboard: pages`: the branch, and those it must never be. */
  branch: string;
  offLimits: { branch: string; why: string }[];
}

/**
 * Checks the inputs before any benchmark runs: the page needs a record store's records
 * (git-branch, s3 or postgres), and `pages` a branch that is none of the repository's working branches.
 */
export function planDashboard(options: {
  setting: DashboardSetting;
  branch: string;
  hasRecordStore: boolean;
  baselineStore: string;
  dataBranch: string;
  github: GitHubContext;
  defaultBranch?: string;
}): DashboardPlan | undefined {
  const { setting, github } = options;
  if (setting === 'off') return undefined;
  if (!options.hasRecordStore) {
    throw usageError(
      `input 'dashboard': ${setting} builds the page from the stored records of a record store, but this run uses baseline-store '${options.baselineStore}', which keeps none; choose baseline-store: git-branch, s3 or postgres, or dashboard: off`,
    );
  }
  const offLimits = [
    ...(options.baselineStore === 'git-branch'
      ? [{ branch: options.dataBranch, why: 'the data branch of the git-branch store' }]
      : []),
    ...(options.defaultBranch
      ? [{ branch: options.defaultBranch, why: "the repository's default branch" }]
      : []),
    ...(github.ref.startsWith('refs/heads/')
      ? [{ branch: github.ref.slice('refs/heads/'.length), why: 'the branch this run is on' }]
      : []),
    ...(github.pullRequest
      ? [{ branch: github.pullRequest.baseRef, why: 'the branch the pull request goes into' }]
      : []),
  ];
  if (setting === 'pages') {
    const refused = offLimits.find((b) => b.branch === options.branch);
    if (refused) {
      throw usageError(
        `input 'dashboard-branch': found "${options.branch}", which is ${refused.why}; the dashboard replaces every file of its branch, so name a branch of its own, such as gh-pages`,
      );
    }
  }
  return { setting, branch: options.branch, offLimits };
}

export interface DashboardContext {
  plan: DashboardPlan;
  records: StoredRecordSource;
  github: GitHubContext;
  gateKey: string;
  /** The data branch, for the page's "source" line. */
  dataBranch: string;
  /** The store the records come from when it is not the data branch (s3, postgres). */
  source?: string;
  defaultBranch?: string;
  workspace: string;
  /** The github-token input: the Pages branch is pushed with it when checkout kept none. */
  token?: string;
  outDir: string;
  /** This run stored its results on the data branch (only then is a Pages branch updated). */
  stored: boolean;
  /** This gate's configured thresholds, by benchmark: its series are judged as its history is. */
  thresholdsOf?: (benchmark: string) => Readonly<Record<string, number>> | undefined;
  /** The issues of this gate's regressions, by regression id (linked from the overview). */
  issues?: ReadonlyMap<string, number>;
  /** This gate's `missing-after`, which the page applies to every gate it shows. */
  missingAfter?: number;
  retentionDays: number;
  log: Logger;
}

/** Builds the page and uploads or publishes it; returns notes for the summary (failures). */
export async function publishDashboard(context: DashboardContext): Promise<string[]> {
  const { plan, log } = context;
  if (plan.setting === 'pages' && !context.stored) {
    log.info(
      `dashboard not published to ${plan.branch}: this run stored no results, so the page would not change`,
    );
    return [];
  }
  let page: string;
  let file: string;
  try {
    page = await buildPage(context);
    file = join(context.outDir, 'dashboard', DASHBOARD_FILE);
    // The benchmark could have left a link in the folder's place (security.md).
    await refuseLinksBelow(dirname(context.outDir), dirname(file), 'the dashboard folder');
    await writeFileAtomic(file, page);
  } catch (error) {
    const message = `the dashboard was not built: ${errorMessage(error)}`;
    log.warning(message);
    return [message];
  }
  if (plan.setting === 'artifact') return uploadPage(file, context);
  return pushPage(page, context);
}

async function buildPage(context: DashboardContext): Promise<string> {
  const { github } = context;
  const read = await context.records.readStoredRecords();
  if (read.warnings.length > 0) {
    context.log.info(
      `dashboard: ${read.warnings.length} stored file(s) skipped: ${read.warnings.slice(0, 3).join('; ')}`,
    );
  }
  const repository = `${github.repository.owner}/${github.repository.repo}`;
  const repositoryUrl = repositoryUrlOf(`${github.serverUrl.replace(/\/$/, '')}/${repository}`);
  // The checkout knows the subjects of the commits it has (a shallow one: its own).
  const checkout = new Git({ cwd: context.workspace });
  const subjects = await commitSubjects(
    checkout,
    read.records.map(({ record }) => record.commit),
  );
  const { thresholdsOf, gateKey } = context;
  const built = dashboardInput({
    records: read.records,
    subjects,
    // Other gates' configs are not this run's: their series keep the built-in thresholds.
    ...(thresholdsOf
      ? {
          thresholdsOf: (benchmark: string, gate: string) =>
            gate === gateKey ? thresholdsOf(benchmark) : undefined,
        }
      : {}),
    ...(context.issues ? { issues: context.issues } : {}),
    ...(context.missingAfter !== undefined ? { missingAfter: context.missingAfter } : {}),
    source: context.source ?? `branch ${context.dataBranch} of ${repository}`,
    title: `neuron-perf-gate: ${repository}`,
    ...(repositoryUrl ? { repositoryUrl } : {}),
    ...(context.defaultBranch ? { defaultBranch: context.defaultBranch } : {}),
  });
  // The checkout counts the commits of each open regression's range (a shallow one: none).
  const input = await withRangeCommits(checkout, built);
  context.log.info(
    `dashboard: ${input.series.length} series from ${read.records.length} stored records`,
  );
  return renderDashboard(input);
}

async function uploadPage(file: string, context: DashboardContext): Promise<string[]> {
  const name = artifactName(
    'perf-gate-dashboard',
    context.gateKey,
    String(context.github.runAttempt),
  );
  const outcome = await uploadProfileArtifact({
    name,
    files: [file],
    rootDirectory: join(context.outDir, 'dashboard'),
    retentionDays: context.retentionDays,
    compressionLevel: 6,
    label: 'dashboard artifact',
  });
  if (!outcome.ok) {
    context.log.warning(outcome.warning);
    return [outcome.warning];
  }
  context.log.info(
    `dashboard uploaded as artifact ${name} (id ${outcome.id})${outcome.url ? `: ${outcome.url}` : ''}`,
  );
  return [];
}

async function pushPage(page: string, context: DashboardContext): Promise<string[]> {
  const { plan, github } = context;
  const scratchRoot = process.env.RUNNER_TEMP || tmpdir();
  const workDir = await mkdtemp(join(scratchRoot, 'perf-gate-pages-'));
  try {
    const result = await publishToPagesBranch({
      repoDir: context.workspace,
      ...(context.token ? { token: { value: context.token, serverUrl: github.serverUrl } } : {}),
      branch: plan.branch,
      workDir,
      files: [
        { name: DASHBOARD_FILE, content: page },
        // Served as is: no Jekyll build on GitHub Pages.
        { name: '.nojekyll', content: '' },
      ],
      message: `perf-gate: dashboard of ${github.sha.slice(0, 7)} (run ${github.runId})`,
      offLimits: plan.offLimits,
    });
    context.log.info(
      result.changed
        ? `dashboard published to ${plan.branch} @ ${result.commit.slice(0, 7)} (${result.attempts} push attempt(s))`
        : `dashboard on ${plan.branch} unchanged @ ${result.commit.slice(0, 7)}`,
    );
    return [];
  } catch (error) {
    const message = `the dashboard was not published: ${errorMessage(error)}`;
    context.log.warning(message);
    return [message];
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

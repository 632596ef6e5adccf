// One issue per regression the history finds (not per failing night): opened when a
// change point makes a gate worse and two nights in a row show it (four with one value a night), its body kept up to date while the regression lasts,
// closed with a comment when a later change point restores the level or someone accepts
// it. An issue whose regression the history no longer sees (more nights showed it was
// noise) is closed too, saying so. An issue someone closed by hand stays closed.

import { waitsForOneValueNights, type Regression } from '../history/regressions.js';
import { renderRegressionMarkdown, type RegressionIssueContext } from '../history/render.js';
import type { Logger } from '../log.js';
import type { GitHubClient } from '../github/client.js';
import { profileArtifactsOf, type ThisRunArtifacts } from './regression-artifacts.js';
import { limitBody, REGRESSION_LABEL } from '../github/nightly-issue.js';
import { requestFailed } from '../github/request-error.js';
import { withoutBidiControls } from '../text/printable.js';

export interface RegressionIssueOptions {
  owner: string;
  repo: string;
  gateKey: string;
  /**
   * The login the token writes as (sticky-comment.ts: tokenLogin): only issues it opened
   * are updated or closed. Anyone can copy the marker and the label into an issue.
   */
  author: string;
  /** The gate's regressions, as findRegressions gives them. */
  regressions: readonly Regression[];
  /** This run's page, linked from the issue body and the closing comments. */
  runUrl?: string;
  /**
   * What the body links to and names besides the regression (render.ts): the repository
   * and dashboard URLs, models, the config file. The profile artifacts are looked up here.
   */
  links?: Omit<RegressionIssueContext, 'runUrl' | 'profileArtifacts'>;
  /** This run's uploaded artifacts, for a regression whose first bad night is this run. */
  thisRun?: ThisRunArtifacts;
  /**
   * Whether the history without the newest night found the regression too. Asked only
   * before opening an issue; without it, a persistent regression is enough.
   */
  seenTheNightBefore?: (regression: Regression) => boolean;
  log: Logger;
}

export interface RegressionIssueOutcome {
  opened: number[];
  updated: number[];
  closed: number[];
  /** The issue of each regression that has one (opened or found), by regression id. */
  issues: Map<string, number>;
}

interface KnownIssue {
  number: number;
  state: string;
  body: string;
  html_url: string;
  /** The first bad run id its marker names. */
  runId: string;
}

const MARKER_PREFIX = 'neuron-perf-gate:regression:';

/**
 * The hidden line that ties an issue to a gate's regression. `%`, `>`, `@` and line breaks
 * are percent-encoded, so that any key and run id reads back as it was written (a `>`
 * would end the comment; an encoding that does not read back made the gate close and
 * reopen such an issue every night), and a marker without them reads as before.
 */
export function regressionMarker(gateKey: string, runId: string): string {
  return `<!-- ${MARKER_PREFIX}${encodeMarkerPart(gateKey)}@${encodeMarkerPart(runId)} -->`;
}

const MARKER_ESCAPES: Record<string, string> = {
  '%': '%25',
  '>': '%3E',
  '@': '%40',
  '\r': '%0D',
  '\n': '%0A',
};

export function encodeMarkerPart(text: string): string {
  return text.replace(/[%>@\r\n]/g, (char) => MARKER_ESCAPES[char]!);
}

/** The inverse of encodeMarkerPart. */
export function decodeMarkerPart(text: string): string {
  return text.replace(/%(25|3E|40|0D|0A)/gi, (_, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}

export async function syncRegressionIssues(
  octokit: GitHubClient,
  options: RegressionIssueOptions,
): Promise<RegressionIssueOutcome> {
  const { owner, repo, gateKey, log } = options;
  const known = await listIssues(octokit, owner, repo, gateKey, options.author);
  const outcome: RegressionIssueOutcome = {
    opened: [],
    updated: [],
    closed: [],
    issues: new Map(),
  };
  const claimed = new Set<number>();
  for (const regression of options.regressions) {
    if (regression.gateKey !== gateKey) continue;
    const aliases = new Set(regression.nearbyRunIds);
    const issue = known.find((i) => !claimed.has(i.number) && aliases.has(i.runId));
    if (issue) {
      claimed.add(issue.number);
      outcome.issues.set(regression.id, issue.number);
    }
    const bodyOf = async () =>
      `${regressionMarker(gateKey, issue?.runId ?? regression.firstBad.runId)}\n${limitBody(
        renderRegressionMarkdown(regression, {
          ...options.links,
          ...(options.runUrl ? { runUrl: options.runUrl } : {}),
          profileArtifacts: await profileArtifactsOf(octokit, options, regression),
        }),
        60_000,
      )}`;
    if (regression.status === 'open') {
      if (!issue && !confirmed(regression, options)) {
        // One night is not a regression yet: wait for the next one to show it too.
        const oneValue = waitsForOneValueNights(regression) ? ' (four with one value a night)' : '';
        log.info(
          `Regression ${regression.id}: no issue until two nights in a row show it${oneValue}`,
        );
        continue;
      }
      if (!issue) {
        const number = await openIssue(octokit, options, regression, await bodyOf());
        outcome.opened.push(number);
        outcome.issues.set(regression.id, number);
        log.info(`Regression ${regression.id}: opened issue #${number}`);
      } else if (issue.state === 'open') {
        const body = await bodyOf();
        if (issue.body === body) continue;
        await updateIssue(octokit, owner, repo, issue.number, { body });
        outcome.updated.push(issue.number);
      }
      continue;
    }
    if (issue?.state === 'open') {
      const why =
        regression.status === 'restored'
          ? 'a later change point brought the level back'
          : 'it was accepted as the new normal';
      await commentOnIssue(octokit, owner, repo, issue.number, closingComment(why, options.runUrl));
      await updateIssue(octokit, owner, repo, issue.number, {
        body: await bodyOf(),
        state: 'closed',
      });
      outcome.closed.push(issue.number);
      log.info(`Regression ${regression.id}: closed issue #${issue.number} (${regression.status})`);
    }
  }
  for (const issue of known) {
    if (claimed.has(issue.number) || issue.state !== 'open') continue;
    await commentOnIssue(
      octokit,
      owner,
      repo,
      issue.number,
      closingComment(
        'the history no longer finds this change point: the level came back within a few nights, or more nights show it was noise',
        options.runUrl,
      ),
    );
    await updateIssue(octokit, owner, repo, issue.number, { state: 'closed' });
    outcome.closed.push(issue.number);
  }
  return outcome;
}

async function openIssue(
  octokit: GitHubClient,
  { owner, repo }: RegressionIssueOptions,
  regression: Regression,
  body: string,
): Promise<number> {
  const created = await octokit.rest.issues
    .create({ owner, repo, title: issueTitle(regression), body, labels: [REGRESSION_LABEL] })
    .catch((error: unknown) => {
      throw requestFailed(error, 'Opening a regression issue', 'issues: write');
    });
  return created.data.number;
}

/**
 * Two nights in a row: the newest two nights sit at the new level, and the analysis of
 * the history up to the night before found the regression too.
 */
function confirmed(regression: Regression, options: RegressionIssueOptions): boolean {
  return regression.persistent && (options.seenTheNightBefore?.(regression) ?? true);
}

function issueTitle(regression: Regression): string {
  const benchmarks = regression.benchmarks.slice(0, 3).join(', ');
  const more =
    regression.benchmarks.length > 3 ? ` and ${regression.benchmarks.length - 3} more` : '';
  const sha = regression.firstBad.commit.slice(0, 7) || regression.firstBad.runId;
  const instance = regression.firstBad.environment.instanceType;
  const on = instance ? ` on ${instance}` : '';
  const title = `Performance regression in ${regression.gateKey} since ${sha}: ${benchmarks}${more}${on}`;
  const shown = withoutBidiControls(title);
  return shown.length <= 256 ? shown : `${shown.slice(0, 255)}…`;
}

export function closingComment(why: string, runUrl: string | undefined): string {
  return `neuron-perf-gate: closing, ${why}${runUrl ? ` ([this run](${runUrl}))` : ''}.`;
}

/** The gate's regression issues, open and closed (a closed one is never opened again). */
async function listIssues(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  gateKey: string,
  author: string,
): Promise<KnownIssue[]> {
  const issues = await octokit
    .paginate(octokit.rest.issues.listForRepo, {
      owner,
      repo,
      state: 'all',
      labels: REGRESSION_LABEL,
      per_page: 100,
    })
    .catch((error: unknown) => {
      throw requestFailed(error, `Listing the "${REGRESSION_LABEL}" issues`, 'issues: read');
    });
  const prefix = regressionMarker(gateKey, '').replace(/ -->$/, '');
  return issues
    .filter(
      (issue) =>
        !issue.pull_request &&
        issue.user?.login.toLowerCase() === author.toLowerCase() &&
        (issue.body ?? '').startsWith(prefix),
    )
    .map((issue) => {
      const body = issue.body ?? '';
      const line = body.slice(0, body.indexOf('\n') < 0 ? body.length : body.indexOf('\n'));
      const runId = decodeMarkerPart(line.slice(prefix.length).replace(/ -->$/, ''));
      return { number: issue.number, state: issue.state, body, html_url: issue.html_url, runId };
    })
    .sort((a, b) => a.number - b.number);
}

/** Changes an issue's body or closes it (as completed). */
export async function updateIssue(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  number: number,
  change: { title?: string; body?: string; state?: 'closed' },
): Promise<void> {
  await octokit.rest.issues
    .update({
      owner,
      repo,
      issue_number: number,
      ...change,
      ...(change.state ? { state_reason: 'completed' as const } : {}),
    })
    .catch((error: unknown) => {
      throw requestFailed(error, `Updating issue #${number}`, 'issues: write');
    });
}

export async function commentOnIssue(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  number: number,
  body: string,
): Promise<void> {
  await octokit.rest.issues
    .createComment({ owner, repo, issue_number: number, body })
    .catch((error: unknown) => {
      throw requestFailed(error, `Commenting on issue #${number}`, 'issues: write');
    });
}

/**
 * The issue of each of these regressions, found the way syncRegressionIssues finds it
 * (its marker names a run within reach of the first bad one), an open one first: for the
 * report's link. Reads only (`issues: read`).
 */
export async function regressionIssueLinks(
  octokit: GitHubClient,
  options: Pick<RegressionIssueOptions, 'owner' | 'repo' | 'gateKey' | 'author'>,
  regressions: readonly Regression[],
): Promise<Map<string, { number: number; url: string }>> {
  const known = await listIssues(
    octokit,
    options.owner,
    options.repo,
    options.gateKey,
    options.author,
  );
  const links = new Map<string, { number: number; url: string }>();
  for (const regression of regressions) {
    const aliases = new Set(regression.nearbyRunIds);
    const ours = known.filter((issue) => aliases.has(issue.runId));
    const issue = ours.find((i) => i.state === 'open') ?? ours[0];
    if (issue) links.set(regression.id, { number: issue.number, url: issue.html_url });
  }
  return links;
}

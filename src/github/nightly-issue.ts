// Scheduled runs have no pull request to comment on, so a regression there is tracked as
// one open issue per gate key: opened on the first failing night, commented on while it
// keeps failing, closed when a later night passes.

import type { Logger } from '../log.js';
import type { GitHubClient } from './client.js';
import { tokenLogin } from './sticky-comment.js';
import { requestFailed } from './request-error.js';
import { withoutBidiControls } from '../text/printable.js';

export const REGRESSION_LABEL = 'performance-regression';

/** GitHub refuses issue and comment bodies longer than this many characters. */
export const MAX_BODY_CHARS = 65_536;
const MAX_TITLE_CHARS = 256;

export interface NightlyIssueOptions {
  owner: string;
  repo: string;
  /** The gate key: one issue per key. */
  key: string;
  regressed: boolean;
  /** The report, as markdown. */
  body: string;
  /** This run's page, linked from the "passes again" comment. */
  runUrl?: string;
  log: Logger;
}

export interface NightlyIssueOutcome {
  action: 'opened' | 'commented' | 'closed' | 'none';
  number?: number;
  url?: string;
}

/** Opens, comments on or closes the gate key's regression issue; see the file comment. */
export async function reportNightlyIssue(
  octokit: GitHubClient,
  options: NightlyIssueOptions,
): Promise<NightlyIssueOutcome> {
  const { owner, repo, key, log } = options;
  // Only an issue the gate's own identity opened: anyone can copy the marker and label.
  const author = await tokenLogin(octokit);
  const open = await findOpenIssue(octokit, owner, repo, issueMarker(key), author, log).catch(
    (error: unknown) => {
      throw requestFailed(error, `Listing the open "${REGRESSION_LABEL}" issues`, 'issues: read');
    },
  );
  if (options.regressed) {
    return open ? commentOn(octokit, open, options) : openIssue(octokit, options);
  }
  return open ? closeAsPassing(octokit, open, options) : { action: 'none' };
}

async function openIssue(
  octokit: GitHubClient,
  { owner, repo, key, body, log }: NightlyIssueOptions,
): Promise<NightlyIssueOutcome> {
  const marker = issueMarker(key);
  const created = await octokit.rest.issues
    .create({
      owner,
      repo,
      title: limitText(withoutBidiControls(`Performance regression: ${key}`), MAX_TITLE_CHARS),
      body: `${marker}\n${limitBody(body, MAX_BODY_CHARS - marker.length - 1)}`,
      labels: [REGRESSION_LABEL],
    })
    .catch((error: unknown) => {
      throw requestFailed(error, 'Opening the regression issue', 'issues: write');
    });
  const { number, html_url: url } = created.data;
  log.info(`Regression: opened issue #${number} (${url})`);
  return { action: 'opened', number, url };
}

async function commentOn(
  octokit: GitHubClient,
  issue: OpenIssue,
  { owner, repo, body, log }: NightlyIssueOptions,
): Promise<NightlyIssueOutcome> {
  await octokit.rest.issues
    .createComment({ owner, repo, issue_number: issue.number, body: limitBody(body) })
    .catch((error: unknown) => {
      throw requestFailed(error, `Commenting on issue #${issue.number}`, 'issues: write');
    });
  log.info(`Regression still there: commented on issue #${issue.number} (${issue.html_url})`);
  return { action: 'commented', number: issue.number, url: issue.html_url };
}

async function closeAsPassing(
  octokit: GitHubClient,
  issue: OpenIssue,
  { owner, repo, key, runUrl, log }: NightlyIssueOptions,
): Promise<NightlyIssueOutcome> {
  const where = runUrl ? `[this run](${runUrl})` : 'a later scheduled run';
  await octokit.rest.issues
    .createComment({
      owner,
      repo,
      issue_number: issue.number,
      body: `neuron-perf-gate \`${key}\` passes again in ${where}; closing.`,
    })
    .catch((error: unknown) => {
      throw requestFailed(error, `Commenting on issue #${issue.number}`, 'issues: write');
    });
  await octokit.rest.issues
    .update({ owner, repo, issue_number: issue.number, state: 'closed', state_reason: 'completed' })
    .catch((error: unknown) => {
      throw requestFailed(error, `Closing issue #${issue.number}`, 'issues: write');
    });
  log.info(`Passes again: closed issue #${issue.number} (${issue.html_url})`);
  return { action: 'closed', number: issue.number, url: issue.html_url };
}

/**
 * The hidden line that ties an issue to a gate key. Only people with push access can
 * label issues, so a marker copied into an unlabelled issue matches nothing.
 */
export function issueMarker(key: string): string {
  // Kept on one line and unable to end the HTML comment early.
  const safeKey = key.replace(/[\r\n]+/g, ' ').replace(/>/g, '&gt;');
  return `<!-- neuron-perf-gate:nightly:${safeKey} -->`;
}

interface OpenIssue {
  number: number;
  html_url: string;
}

/** The oldest open, labelled issue carrying `marker`; every page is read. */
async function findOpenIssue(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  marker: string,
  author: string,
  log: Logger,
): Promise<OpenIssue | undefined> {
  const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
    owner,
    repo,
    state: 'open',
    labels: REGRESSION_LABEL,
    per_page: 100,
  });
  const matching = issues
    // The issues endpoint lists pull requests too.
    .filter(
      (issue) =>
        !issue.pull_request &&
        issue.user?.login.toLowerCase() === author.toLowerCase() &&
        (issue.body ?? '').includes(marker),
    )
    .sort((a, b) => a.number - b.number);
  if (matching.length > 1) {
    const others = matching.slice(1).map((issue) => `#${issue.number}`);
    log.warning(
      `More than one open regression issue for this gate: using #${matching[0]?.number}; close ${others.join(', ')} by hand.`,
    );
  }
  return matching[0];
}

/** `body` cut to fit GitHub's limit, saying so at the end. */
export function limitBody(body: string, maxChars: number = MAX_BODY_CHARS): string {
  if (body.length <= maxChars) return body;
  const note = "\n\n… (cut: the full report is in the run's job summary and report.json)";
  return `${cutAt(body, maxChars - note.length)}${note}`;
}

function limitText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${cutAt(text, maxChars - 1)}…`;
}

/** The first `length` UTF-16 units, without splitting a surrogate pair. */
function cutAt(text: string, length: number): string {
  const cut = text.slice(0, Math.max(0, length));
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

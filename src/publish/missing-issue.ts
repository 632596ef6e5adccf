// One issue per gate for the series that stopped reporting (src/history/missing.ts), never
// one per series: opened when the first goes missing, its body kept up to date while the
// list lasts, closed with a comment when every series reports again. The marker names the
// gate and a digest of the list (which series, not how long), so that an issue someone
// closed by hand stays closed while the list is the same, and a new list opens a new one.

import { createHash } from 'node:crypto';
import type { GitHubClient } from '../github/client.js';
import { limitBody, REGRESSION_LABEL } from '../github/nightly-issue.js';
import { requestFailed } from '../github/request-error.js';
import type { Logger } from '../log.js';
import type { MissingSeriesView } from '../model.js';
import { codeSpan } from '../report/escape.js';
import { missingSeriesLines } from '../report/missing-series.js';
import { withoutBidiControls } from '../text/printable.js';
import {
  closingComment,
  commentOnIssue,
  decodeMarkerPart,
  encodeMarkerPart,
  updateIssue,
} from './regression-issues.js';

export interface MissingIssueOptions {
  owner: string;
  repo: string;
  gateKey: string;
  /** The branch whose history it is (the default branch). */
  branch: string;
  /** Only issues this login opened are updated or closed (sticky-comment.ts: tokenLogin). */
  author: string;
  /** The gate's missing series; empty when every series reports. */
  missing: readonly MissingSeriesView[];
  /** The `missing-after` setting, for the reader. */
  after: number;
  runUrl?: string;
  log: Logger;
}

export interface MissingIssueOutcome {
  action: 'opened' | 'updated' | 'closed' | 'none';
  /** The open issue that lists the missing series, when there is one. */
  issue?: { number: number; url: string };
}

interface KnownIssue {
  number: number;
  state: string;
  body: string;
  url: string;
  digest: string;
}

const MARKER_PREFIX = 'neuron-perf-gate:missing:';
/** The digest of a closed issue's marker once every series reports again. */
const NONE_MISSING = 'none';

/** The hidden first line that ties an issue to a gate's list of missing series. */
export function missingMarker(gateKey: string, digest: string): string {
  return `<!-- ${MARKER_PREFIX}${encodeMarkerPart(gateKey)}@${digest} -->`;
}

/** Which series are missing (not since when): the same list gives the same digest. */
export function missingDigest(missing: readonly MissingSeriesView[]): string {
  const ids = missing.map((m) => JSON.stringify([m.benchmark, m.metric, m.environment])).sort();
  return createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 16);
}

export async function syncMissingIssue(
  octokit: GitHubClient,
  options: MissingIssueOptions,
): Promise<MissingIssueOutcome> {
  const known = await listMissingIssues(octokit, options);
  const open = known.filter((issue) => issue.state === 'open');
  if (options.missing.length === 0) return closeAll(octokit, options, open);
  const digest = missingDigest(options.missing);
  const body = `${missingMarker(options.gateKey, digest)}\n${renderMissingIssue(options)}`;
  const title = missingIssueTitle(options);
  const current = open[open.length - 1];
  if (current) {
    if (current.body === body) return { action: 'none', issue: linkOf(current) };
    await updateIssue(octokit, options.owner, options.repo, current.number, { title, body });
    return { action: 'updated', issue: linkOf(current) };
  }
  if (known[known.length - 1]?.digest === digest) {
    options.log.info('Missing series: the issue for this list was closed by hand; left closed');
    return { action: 'none' };
  }
  const created = await octokit.rest.issues
    .create({ owner: options.owner, repo: options.repo, title, body, labels: [REGRESSION_LABEL] })
    .catch((error: unknown) => {
      throw requestFailed(error, 'Opening the missing-series issue', 'issues: write');
    });
  options.log.info(`Missing series: opened issue #${created.data.number}`);
  return { action: 'opened', issue: { number: created.data.number, url: created.data.html_url } };
}

/** Every series reports again: each open issue is closed, its marker saying none is missing. */
async function closeAll(
  octokit: GitHubClient,
  options: MissingIssueOptions,
  open: readonly KnownIssue[],
): Promise<MissingIssueOutcome> {
  for (const issue of open) {
    const why = 'every series of the gate reports again';
    await commentOnIssue(
      octokit,
      options.owner,
      options.repo,
      issue.number,
      closingComment(why, options.runUrl),
    );
    const rest = issue.body.slice(issue.body.indexOf('\n') + 1);
    const body = `${missingMarker(options.gateKey, NONE_MISSING)}\n${rest}`;
    await updateIssue(octokit, options.owner, options.repo, issue.number, {
      body,
      state: 'closed',
    });
    options.log.info(`Missing series: closed issue #${issue.number}`);
  }
  return { action: open.length > 0 ? 'closed' : 'none' };
}

function renderMissingIssue(options: MissingIssueOptions): string {
  const count = options.missing.length;
  const run = options.runUrl ? ` ([this run](${options.runUrl}))` : '';
  return limitBody(
    [
      `**${count} series of ${codeSpan(options.branch)} stopped reporting** in the gate ` +
        `${codeSpan(options.gateKey)}: the gate ran on ${options.after} or more later days without ` +
        `them${run}. A runner down, or a benchmark removed by mistake?`,
      '',
      ...missingSeriesLines(options.missing),
      '',
      'neuron-perf-gate keeps this one issue up to date and closes it when every series ' +
        'reports again (docs/history.md, "Missing series").',
    ].join('\n'),
    60_000,
  );
}

function missingIssueTitle(options: MissingIssueOptions): string {
  const count = options.missing.length;
  const title = `${count} series stopped reporting in ${options.gateKey}`;
  const shown = withoutBidiControls(title);
  return shown.length <= 256 ? shown : `${shown.slice(0, 255)}…`;
}

function linkOf(issue: KnownIssue): { number: number; url: string } {
  return { number: issue.number, url: issue.url };
}

/** The gate's missing-series issues the token's login opened, oldest first. */
async function listMissingIssues(
  octokit: GitHubClient,
  options: Pick<MissingIssueOptions, 'owner' | 'repo' | 'gateKey' | 'author'>,
): Promise<KnownIssue[]> {
  const issues = await octokit
    .paginate(octokit.rest.issues.listForRepo, {
      owner: options.owner,
      repo: options.repo,
      state: 'all',
      labels: REGRESSION_LABEL,
      per_page: 100,
    })
    .catch((error: unknown) => {
      throw requestFailed(error, `Listing the "${REGRESSION_LABEL}" issues`, 'issues: read');
    });
  const prefix = missingMarker(options.gateKey, '').replace(/ -->$/, '');
  return issues
    .filter(
      (issue) =>
        !issue.pull_request &&
        issue.user?.login.toLowerCase() === options.author.toLowerCase() &&
        (issue.body ?? '').startsWith(prefix),
    )
    .map((issue) => {
      const body = issue.body ?? '';
      const line = body.split('\n', 1)[0]!;
      const digest = decodeMarkerPart(line.slice(prefix.length).replace(/ -->$/, ''));
      return { number: issue.number, state: issue.state, body, url: issue.html_url, digest };
    })
    .sort((a, b) => a.number - b.number);
}

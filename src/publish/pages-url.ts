// Where the dashboard is served, for the regression issue's link to a series: with
// `dashboard: pages` the page is committed to a branch, and GitHub Pages serves it only
// when the repository's Pages site deploys from that branch's root. The site's address is
// asked of the API (`pages: read`); a site that serves something else (another branch, a
// Pages workflow), none at all, or a refused request gives no link, never an error.

import { errorMessage } from '../errors.js';
import type { GitHubClient } from '../github/client.js';
import type { Logger } from '../log.js';

/** The Pages site's address when it serves `branch`'s root; else undefined. */
export async function dashboardPagesUrl(
  octokit: GitHubClient,
  options: { owner: string; repo: string; branch: string; log: Pick<Logger, 'info'> },
): Promise<string | undefined> {
  let site: { html_url?: string; build_type?: string | null; source?: SiteSource };
  try {
    ({ data: site } = await octokit.rest.repos.getPages({
      owner: options.owner,
      repo: options.repo,
    }));
  } catch (error) {
    const status = (error as { status?: number }).status;
    options.log.info(
      status === 404
        ? 'dashboard: the repository has no GitHub Pages site, so the regression issues link no chart'
        : `dashboard: the GitHub Pages site was not read, so the regression issues link no chart (${errorMessage(error)}; the job needs "permissions: pages: read")`,
    );
    return undefined;
  }
  const servesBranch =
    site.build_type !== 'workflow' &&
    site.source?.branch === options.branch &&
    site.source.path === '/';
  if (!servesBranch || !site.html_url) {
    options.log.info(
      `dashboard: GitHub Pages does not deploy from the root of ${options.branch}, so the regression issues link no chart`,
    );
    return undefined;
  }
  return site.html_url;
}

interface SiteSource {
  branch: string;
  path: string;
}

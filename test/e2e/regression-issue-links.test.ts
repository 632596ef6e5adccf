/// <reference lib="dom" />
// The regression issue an on-call engineer opens, end to end: the bundled action runs a
// nightly history on the simulator (git-branch store on a real bare origin, the loopback
// GitHub API, the loopback results service for its artifacts), a 15% slowdown planted at
// one commit. The issue it opens must link the commit range, both commits, the first bad
// night's run and its profile artifact and the series on the dashboard, fill both ends of
// the bisect command and name the instance type. Then the body is rendered as GitHub
// renders it (cmark-gfm) and looked at in Chromium, its screenshot kept for people
// (ISSUE_SHOT=/path/issue.png).

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { makeRepos, type Repos } from '../baseline/git/support.js';
import {
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
  useActionGitHubApi,
} from '../support/action-run.js';
import { ResultsService } from '../support/results-service.js';
import { earlierNights } from '../support/earlier-nights.js';
import { CMARK_GFM_ARGS, commentPage } from '../../scripts/pictures/comment-page.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const TOKEN = 'ghs_e2e_links';
const GATE = 'inf2-links';
const REPO = 'https://github.com/octo/inference';
const PAGES = 'https://octo.github.io/inference/';
/** One commit a night: the slowdown lands at FIRST_BAD, right after LAST_GOOD. */
const SHAS = ['0a', '1b', '2c', '3d', '4e'].map((p) => p.repeat(20));
const [BASE_SHA, LAST_GOOD, FIRST_BAD] = SHAS as [string, string, string];
/** Where the screenshot of the rendered issue goes: ISSUE_SHOT, else beside the test's page. */
const SHOT = process.env.ISSUE_SHOT;

const github = useActionGitHubApi();
let repos: Repos;
let nights = 0;

beforeAll(async () => {
  repos = await makeRepos();
}, 60_000);

/** A scheduled night at `sha`: a workflow run GitHub knows, its artifacts listed under it as GitHub lists them. */
async function night(sha: string, env: Record<string, string> = {}) {
  nights += 1;
  const run = github.api.state.addWorkflowRun({
    workflow: 'nightly.yml',
    event: 'schedule',
    headSha: sha,
  });
  // Each workflow run has a results service of its own: artifact names are unique per run.
  const results = await ResultsService.start();
  const event: ActionEvent = {
    name: 'schedule',
    payload: { schedule: '0 3 * * *' },
    ref: 'refs/heads/main',
    sha,
  };
  try {
    const outcome = await runActionProcess({
      workspace: repos.checkout,
      label: `links-${nights}`,
      inputs: simulatorInputs({
        'comment-key': GATE,
        'nightly-issue': 'true',
        'upload-profiles': 'true',
        dashboard: 'pages',
      }),
      defaultsWithToken: TOKEN,
      event,
      env: {
        ACTIONS_RUNTIME_TOKEN: results.runtimeToken,
        ACTIONS_RESULTS_URL: `${results.url}/`,
        GITHUB_API_URL: github.api.url,
        GITHUB_RUN_ID: String(run.id),
        SIM_SEED: String(300 + nights),
        ...env,
      },
    });
    // A slow night fails the gate (exit 1); either way the night is stored and judged.
    expect(outcome.stdout, outcome.stderr).toMatch(/history: \d+ open regression\(s\)/);
    for (const artifact of results.artifacts.values()) {
      if (!artifact.finalized || !artifact.blob) continue;
      github.api.state.addArtifact({ runId: run.id, name: artifact.name, zip: artifact.blob });
    }
    return { run, outcome };
  } finally {
    await results.close();
  }
}

/** Copies of the gate's newest stored night, dated the nights before it: a history to compare with. */
async function seedEarlierNights(count: number): Promise<void> {
  const store = new GitBranchStore({
    repoDir: repos.checkout,
    workDir: await mkdtemp(join(repos.root, 'seed-')),
  });
  const { records } = await store.readStoredRecords(GATE);
  await store.appendRecords(earlierNights(records[records.length - 1]!.record, count));
}

const regressionIssues = () =>
  github.api.state.issues.filter(
    (i) => !i.isPullRequest && i.labels.includes('performance-regression'),
  );

describe('the regression issue of a planted slowdown', () => {
  let chromium: Chromium | undefined;
  afterAll(async () => {
    await chromium?.close();
  });

  it('links the range, both commits, the run, its profile artifact and the chart, and fills the bisect command', async () => {
    // GitHub Pages deploys the dashboard's branch: the issue may link a series on it.
    github.api.route('GET', '/repos/{owner}/{repo}/pages', () => ({
      status: 200,
      body: {
        url: `${github.api.url}/repos/octo/inference/pages`,
        status: 'built',
        cname: null,
        custom_404: false,
        public: true,
        html_url: PAGES,
        build_type: 'legacy',
        source: { branch: 'gh-pages', path: '/' },
        https_enforced: true,
      },
    }));
    await night(BASE_SHA);
    await seedEarlierNights(7);
    await night(LAST_GOOD);
    // The slowdown: its first night, then two more, after which the issue opens.
    const firstBad = await night(FIRST_BAD, { SIM_SLOWDOWN: '1.15' });
    await night(SHAS[3]!, { SIM_SLOWDOWN: '1.15' });
    expect(regressionIssues()).toHaveLength(0);
    const opening = await night(SHAS[4]!, { SIM_SLOWDOWN: '1.15' });
    expect(opening.outcome.stdout).toContain('history: 1 open regression(s)');
    const [issue] = regressionIssues();
    expect(regressionIssues()).toHaveLength(1);
    const body = issue!.body ?? '';
    expect(body).toContain(`<!-- neuron-perf-gate:regression:${GATE}@${firstBad.run.id}-1 -->`);

    // The range and both ends, each commit by its short sha.
    expect(body).toContain(`[compare the range](${REPO}/compare/${LAST_GOOD}...${FIRST_BAD})`);
    expect(body).toContain(
      `[\`${LAST_GOOD.slice(0, 7)}\`](${REPO}/commit/${LAST_GOOD}) (last good`,
    );
    expect(body).toContain(
      `[\`${FIRST_BAD.slice(0, 7)}\`](${REPO}/commit/${FIRST_BAD}) (first bad`,
    );
    // The first bad night's run, and the artifact that run uploaded (as GitHub lists it).
    const runUrl = `${REPO}/actions/runs/${firstBad.run.id}`;
    expect(body).toContain(`[workflow run ${firstBad.run.id}](${runUrl})`);
    const artifact = github.api.state.artifacts.find(
      (a) => a.runId === firstBad.run.id && a.name === `${GATE}-qwen3-reranker-attempt-1`,
    );
    expect(artifact).toBeDefined();
    expect(body).toContain(
      `[profile and logs of qwen3-reranker](${runUrl}/artifacts/${artifact!.id})`,
    );
    // The series on the dashboard, by the page's own anchor.
    const chart = new RegExp(`\\(${escapeRegExp(PAGES)}#series=([^)\\s]+)\\)`).exec(body);
    expect(decodeURIComponent(chart?.[1] ?? '')).toMatch(
      new RegExp(`^${GATE} · qwen3-reranker · \\w+ · inf2\\.xlarge`),
    );
    // The next step, both ends filled in; the environment by its instance type.
    expect(body).toMatch(
      new RegExp(
        `\`\`\`sh\\nneuron-perf-gate bisect --good ${LAST_GOOD} --bad ${FIRST_BAD} --metric \\w+\\n\`\`\``,
      ),
    );
    expect(body).toMatch(/\*\*Environment:\*\* inf2\.xlarge, Neuron SDK [\d.]+, model `[^`]+`/);
    expect(issue!.title).toMatch(/ on inf2\.xlarge$/);
    expect(body).toMatch(/\*\*How it was found:\*\* a step /);
    // Every link in the body is one of those made from checked bases.
    const links = [...body.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    for (const link of links) {
      expect(link.startsWith(`${REPO}/`) || link.startsWith(PAGES), link).toBe(true);
    }

    chromium = await launchChromium();
    const seen = await look(chromium, body);
    expect(seen.errors).toEqual([]);
    // The links as a reader meets them: the commits, the range, the run, the profile, the chart.
    const texts = seen.links.map((l) => l.text);
    expect(texts).toEqual(
      expect.arrayContaining([
        LAST_GOOD.slice(0, 7),
        FIRST_BAD.slice(0, 7),
        'compare the range',
        `workflow run ${firstBad.run.id}`,
        'profile and logs of qwen3-reranker',
      ]),
    );
    // The bisect command is on the first screen of a laptop, before the series table.
    expect(seen.bisectTop).toBeGreaterThan(0);
    expect(seen.bisectTop).toBeLessThan(seen.tableTop);
  }, 600_000);
});

/** The body as GitHub renders it, in a GitHub-like box in Chromium; the screenshot kept at SHOT. */
async function look(chromium: Chromium, markdown: string) {
  const html = execFileSync('cmark-gfm', CMARK_GFM_ARGS, { input: markdown, encoding: 'utf8' });
  const work = await mkdtemp(join(repos.root, 'issue-page-'));
  const file = join(work, 'issue.html');
  const mermaid = pathToFileURL(
    join(
      resolve(import.meta.dirname, '..', '..'),
      'node_modules',
      'mermaid',
      'dist',
      'mermaid.min.js',
    ),
  );
  // GitHub scrolls a code block sideways; the picture's page does as GitHub's stylesheet does.
  const pre =
    '<style>pre { overflow: auto; background: #f6f8fa; padding: 16px; border-radius: 6px; } pre code { background: none; padding: 0; }</style>';
  await writeFile(file, commentPage(`${pre}${html}`, mermaid.href, 1012));
  const { page, errors } = await chromium.page();
  await page.setViewport({ width: 1012, height: 900 });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => document.body.dataset.drawn === 'true', { timeout: 60_000 });
  const seen = await page.evaluate(() => {
    const top = (element: Element | null) =>
      element ? element.getBoundingClientRect().top + window.scrollY : -1;
    return {
      links: [...document.querySelectorAll('.markdown-body a')].map((a) => ({
        text: a.textContent!.trim(),
        href: a.getAttribute('href')!,
      })),
      bisectTop: top(document.querySelector('.markdown-body pre')),
      tableTop: top(document.querySelector('.markdown-body table')),
    };
  });
  const shot = (SHOT ?? join(work, 'issue.png')) as `${string}.png`;
  await mkdir(resolve(shot, '..'), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  await page.close();
  return { ...seen, errors };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

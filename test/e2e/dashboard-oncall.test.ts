/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The on-call's first screen (issue 56), end to end: a year of nightly records of 104 series
// on two environments, with one regression planted on one environment by a commit two
// before a night's head, written as record files; the bundled CLI (`dashboard --dir`) run
// in the real git clone those nights measured; the page opened in Debian's Chromium. The
// overview must show exactly one open-regression row, name the environment, link the range
// from the last good to the first bad night's head (the culprit inside it) and count its
// commits. Screenshots of the overview, closed and opened, go to $ONCALL_SHOTS when set.

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { serializeRecord } from '../../src/baseline/record-text.js';
import {
  createNightlyRepo,
  CULPRIT_SUBJECT,
  ENVIRONMENT_KEYS,
  HEAD_SUBJECT,
  nightDate,
  oncallRecords,
  SLOW_ENVIRONMENT,
  type NightlyRepo,
  type OncallShape,
} from '../dashboard/oncall-history.js';
import { CLI, runNode } from '../support/bundled.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const shape: OncallShape = {
  nights: 365,
  benchmarks: 13,
  commitsPerNight: 3,
  regressionAt: 352,
  slowBenchmarks: 4,
  factor: 0.85,
  // A year that ended before the test's clock: every night is in the past.
  start: Date.UTC(2025, 10, 1, 3),
};
const SHOTS = process.env.ONCALL_SHOTS;

let work: string;
let repo: NightlyRepo;
let chromium: Chromium;
let page: Page;
let errors: string[];
let cliOutput: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'perf-gate-oncall-'));
  repo = await createNightlyRepo(shape);
  const records = oncallRecords(shape, repo.heads);
  for (const record of records) {
    const file = join(work, 'records', pathOfRecord(record));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, serializeRecord(record));
  }
  // As a person runs it: in the clone the nights measured, which knows their commits.
  const run = await runNode(
    CLI,
    [
      'dashboard',
      '--dir',
      join(work, 'records'),
      '--out',
      join(work, 'site'),
      '--repo-url',
      'https://github.com/o/r',
    ],
    { cwd: repo.dir, env: { PATH: process.env.PATH } },
  );
  cliOutput = run.stderr;
  expect(run.code, run.stderr).toBe(0);
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(pathToFileURL(join(work, 'site', 'index.html')).href);
  await page.waitForFunction(() => document.querySelectorAll('#overview h2').length > 0);
}, 600_000);

afterAll(async () => {
  await chromium?.close();
  if (work) await rm(work, { recursive: true, force: true });
  if (repo) await rm(repo.dir, { recursive: true, force: true });
});

const good = () => repo.heads[shape.regressionAt - 1]!;
const bad = () => repo.heads[shape.regressionAt]!;

describe('the on-call’s overview of a 104-series year', () => {
  it('shows the planted regression as one row naming its environment', async () => {
    expect(cliOutput).toMatch(/104 series from 9490 records/);
    const heading = await page.$eval('#overview h2', (h) => h.textContent);
    expect(heading).toBe('Open regressions (1)');
    const rows = await page.$$eval('tr.open-regression', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll(':scope > td')].map((td) => td.textContent)),
    );
    expect(rows).toHaveLength(1);
    const [gate, environment, range, series, worst, issue] = rows[0]!;
    expect(gate).toBe('▸ nightly');
    expect(environment).toBe(ENVIRONMENT_KEYS[SLOW_ENVIRONMENT]);
    expect(range).toBe(
      `${good().slice(0, 7)} → ${bad().slice(0, 7)} compare3 commits · first bad night ${nightDate(shape, shape.regressionAt)}`,
    );
    // Four benchmarks × four metrics, on one environment only.
    expect(series).toBe('16 series');
    expect(worst).toMatch(/^\+1[5-9]\.\d% [a-z0-9.-]+ · latency_p\d\d$/);
    expect(issue).toBe('—');
  });

  it('links the range from the last good to the first bad night’s head, the culprit inside', async () => {
    const links = await page.$eval('tr.open-regression td.range', (td) => ({
      title: (td as HTMLElement).title,
      ends: [...td.querySelectorAll('a.commit')].map((a) => ({
        href: a.getAttribute('href'),
        title: (a as HTMLElement).title,
      })),
      compare: td.querySelector('a.compare')!.getAttribute('href'),
    }));
    expect(links.compare).toBe(`https://github.com/o/r/compare/${good()}...${bad()}`);
    expect(links.ends).toEqual([
      {
        href: `https://github.com/o/r/commit/${good()}`,
        title: `last good: ${good().slice(0, 7)} change ${shape.regressionAt * 3 - 1}`,
      },
      {
        href: `https://github.com/o/r/commit/${bad()}`,
        title: `first bad: ${bad().slice(0, 7)} ${HEAD_SUBJECT}`,
      },
    ]);
    // The compare page's range holds the culprit, two commits before the night's head.
    const [from, to] = /compare\/([0-9a-f]{40})\.\.\.([0-9a-f]{40})$/
      .exec(links.compare!)!
      .slice(1);
    const inRange = execFileSync('git', ['log', '--format=%s', `${from}..${to}`], {
      cwd: repo.dir,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    expect(inRange).toEqual([
      HEAD_SUBJECT,
      `change ${shape.regressionAt * 3 + 1}`,
      CULPRIT_SUBJECT,
    ]);
    expect(links.title).toMatch(
      new RegExp(
        `^the culprit is somewhere in these 3 commits; bisect with \`neuron-perf-gate bisect --good ${good().slice(0, 12)} --bad ${bad().slice(0, 12)} --benchmark [a-z0-9.-]+ --metric latency_p\\d\\d\`$`,
      ),
    );
    if (SHOTS) {
      await mkdir(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'oncall-overview.png') });
    }
  });

  it('opens to its 16 series, each on that environment and linking to its chart', async () => {
    await page.click('tr.open-regression button.toggle');
    await page.waitForFunction(
      () => !document.querySelector<HTMLElement>('tr.regression-series')!.hidden,
    );
    const opened = await page.$eval('tr.regression-series', (tr) => ({
      culprit: tr.querySelector('.culprit')!.textContent,
      rows: [...tr.querySelectorAll('tr.regression-series-row')].map((row) => ({
        environment: row.querySelector('td.environment')!.textContent,
        link: row.querySelector('td.series-name a')!.getAttribute('href')!,
      })),
    }));
    expect(opened.culprit).toMatch(
      /^The culprit is somewhere in these 3 commits; bisect with neuron-perf-gate bisect --good [0-9a-f]{12} --bad [0-9a-f]{12} /,
    );
    expect(opened.rows).toHaveLength(16);
    for (const row of opened.rows) {
      expect(row.environment).toBe(ENVIRONMENT_KEYS[SLOW_ENVIRONMENT]);
      expect(decodeURIComponent(row.link)).toMatch(
        new RegExp(
          `^#series=nightly · [a-z0-9.-]+ · [a-z0-9_]+ · ${ENVIRONMENT_KEYS[SLOW_ENVIRONMENT]}$`,
        ),
      );
    }
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'oncall-overview-opened.png') });
    // A series of the row opens its chart alone.
    await page.click('tr.regression-series td.series-name a');
    await page.waitForFunction(() => location.hash.startsWith('#series='));
    expect(
      await page.$$eval('article.card[data-series]:not([hidden])', (cards) =>
        cards.map((c) => (c as HTMLElement).dataset.environment),
      ),
    ).toEqual([ENVIRONMENT_KEYS[SLOW_ENVIRONMENT]]);
  });

  it('names the environment of every series in the other tables too', async () => {
    const headings = await page.$$eval('#overview table', (tables) =>
      tables.map((t) => [...t.querySelectorAll('th')].map((th) => th.textContent)),
    );
    for (const heading of headings) expect(heading[1]).toBe('environment');
    expect(errors).toEqual([]);
  });
});

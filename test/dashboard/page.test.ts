/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The dashboard, end to end: a simulated nightly history is pushed to a real git data
// branch, `neuron-perf-gate dashboard` writes the page, and Debian's headless Chromium
// opens it from disk with every network request refused. The test looks at the rendered
// DOM (charts drawn, markers where the history put them, filters, links), saves
// screenshots, and fails on any console error.

import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarkName, recordsOfNight, type HistoryShape } from '../../bench/history-sim.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { recordToResult } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { runCli } from '../../src/cli/main.js';
import type { Page } from 'puppeteer-core';
import { makeRepos, type Repos } from '../baseline/git/support.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const EVIL = '<img src=x onerror=alert(1)></script><script>alert(2)</script>';
const SHAPE: HistoryShape = {
  nights: 40,
  benchmarks: 3,
  sweepVariants: 4,
  requests: 50,
  sdkUpgradeAt: 20,
  regressionAt: 30,
  names: ['llama-3.1-8b', 'mistral-7b', EVIL],
};
const SCREENSHOTS = join(process.cwd(), '.tmp', 'dashboard-screenshots');

let repos: Repos;
let out: string;
let chromium: Chromium;
let page: Page;
let errors: string[];
let stderr = '';

beforeAll(async () => {
  repos = await makeRepos();
  const store = new GitBranchStore({
    repoDir: repos.checkout,
    workDir: await mkdtemp(join(repos.root, 'work-')),
  });
  const records = Array.from({ length: SHAPE.nights }, (_, night) =>
    recordsOfNight(SHAPE, night),
  ).flat();
  // A pull request's record and one with a run id that is no number: neither is linked.
  const base = records[0]!;
  records.push(
    createRecord({
      gateKey: base.gateKey,
      result: recordToResult(base),
      commit: base.commit,
      branch: 'feature',
      event: 'pull_request',
      runId: '77',
      verdict: 'pass',
      createdAt: '2026-01-05T12:00:00Z',
    }),
  );
  await store.appendRecords(records);
  out = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-'));
  const code = await runCli(
    ['dashboard', '--out', out, '--repo', repos.checkout, '--repo-url', 'https://github.com/o/r'],
    {
      cwd: repos.root,
      env: {},
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
    },
  );
  expect(stderr).toContain('wrote');
  expect(code).toBe(0);
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
  page.on('dialog', (dialog) => {
    errors.push(`dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.setViewport({ width: 1280, height: 1000 });
  await page.goto(pathToFileURL(join(out, 'index.html')).href);
  await page.waitForFunction(() => (window as unknown as Dashboard).__dashboard.drawn >= 2);
  await mkdir(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  if (out) await rm(out, { recursive: true, force: true });
  if (repos) await rm(repos.root, { recursive: true, force: true });
});

interface Dashboard {
  __dashboard: { drawn: number; firstChartMs: number | null };
}

interface Charts {
  __dashboard: {
    charts: Map<Element, { valToPos(v: number, s: string): number; data: number[][] }>;
  };
}

/** The card of one benchmark's metric, scrolled into view so that its chart is drawn. */
async function card(benchmark: string, metric: string) {
  const handle = await page.evaluateHandle(
    (b, m) =>
      [...document.querySelectorAll<HTMLElement>('article.card[data-series]')].find(
        (c) => c.dataset.benchmark === b && c.dataset.metric === m,
      )!,
    benchmark,
    metric,
  );
  await handle.evaluate((c) => c.scrollIntoView());
  await page.waitForFunction((c: Element) => c.classList.contains('drawn'), {}, handle);
  return handle;
}

describe('the dashboard page', () => {
  it('is one self-contained file that draws a chart per series', async () => {
    const html = await readFile(join(out, 'index.html'), 'utf8');
    expect(html).not.toMatch(
      /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!github\.com\/o\/r)[^"' ]*\.(js|css)/,
    );
    expect((await stat(join(out, 'index.html'))).size).toBeLessThan(5 * 1024 * 1024);
    // 3 benchmarks and 4 sweep variants × 5 metrics; the pull request's record adds none.
    const cards = await page.$$eval('article.card[data-series]', (c) => c.length);
    expect(cards).toBe(7 * 5);
    const first = await page.$eval('article.card[data-series]', (c) => ({
      canvas: c.querySelectorAll('canvas').length,
      drawn: c.classList.contains('drawn'),
    }));
    expect(first).toEqual({ canvas: 1, drawn: true });
    // The inlined styles apply: the page's grid and uPlot's own layout.
    expect(await page.$eval('#charts', (m) => getComputedStyle(m).display)).toBe('grid');
    expect(await page.$eval('.u-over', (o) => getComputedStyle(o).position)).toBe('absolute');
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard.png') });
  });

  it('marks the SDK upgrade, the regression and its acceptance where they happened', async () => {
    const handle = await card(benchmarkName(SHAPE, 0), 'throughput');
    const marks = await handle.evaluate((c) => {
      const over = c.querySelector('.u-over') as HTMLElement;
      const width = over.getBoundingClientRect().width;
      const of = (cls: string) =>
        [...over.querySelectorAll<HTMLElement>(cls)].map((m) => ({
          at: parseFloat(m.style.left) / width,
          title: m.title,
        }));
      return {
        env: of('.marker-env'),
        regressed: of('.marker-regressed'),
        accepted: of('.marker-accepted'),
        changes: of('.marker-change'),
      };
    });
    // Nights 0..39 span the axis: night n sits at n / 39.
    expect(marks.env).toHaveLength(1);
    expect(marks.env[0]!.at).toBeCloseTo(20 / 39, 2);
    expect(marks.env[0]!.title).toContain('SDK 2.26.0 · compiler 2.19.3');
    expect(marks.env[0]!.title).toContain('→ SDK 2.27.0 · compiler 2.20.1');
    expect(marks.regressed.map((m) => Math.round(m.at * 39))).toEqual([30, 31, 32]);
    expect(marks.accepted.map((m) => Math.round(m.at * 39))).toEqual([33]);
    // src/history finds the drop as a change point at its first night.
    const drop = marks.changes.find((m) => m.title.includes('regression'));
    expect(Math.round(drop!.at * 39)).toBe(30);
    expect(drop!.title).toMatch(/^change point: regression −1\d\.\d%/);
    // Another benchmark did not regress.
    const other = await card(benchmarkName(SHAPE, 1), 'throughput');
    expect(await other.evaluate((c) => c.querySelectorAll('.marker-regressed').length)).toBe(0);
    expect(await other.evaluate((c) => c.querySelectorAll('.marker-env').length)).toBe(1);
    await handle.evaluate((c) => c.scrollIntoView());
    await handle.screenshot({ path: join(SCREENSHOTS, 'regressed-series.png') });
  });

  it('filters by gate key, benchmark, metric and environment', async () => {
    const visible = () =>
      page.$$eval('article.card[data-series]:not([hidden])', (cards) =>
        cards.map(
          (c) => `${(c as HTMLElement).dataset.benchmark}|${(c as HTMLElement).dataset.metric}`,
        ),
      );
    await page.select('#filter-metric', 'latency_p99');
    const shown = await visible();
    expect(shown).toHaveLength(7);
    expect(shown.every((s) => s.endsWith('|latency_p99'))).toBe(true);
    await page.select('#filter-benchmark', 'mistral-7b');
    expect(await visible()).toEqual(['mistral-7b|latency_p99']);
    expect(await page.$eval('#summary', (s) => s.textContent)).toBe('1 of 35 series shown');
    await page.select('#filter-metric', '');
    await page.select('#filter-benchmark', '');
    await page.select('#filter-environment', 'inf2.xlarge/2 cores');
    expect(await visible()).toHaveLength(35);
    await page.select('#filter-gate', 'no-such-gate').catch(() => {});
    await page.select('#filter-gate', 'nightly');
    expect(await visible()).toHaveLength(35);
    await page.select('#filter-gate', '');
    await page.select('#filter-environment', '');
  });

  it('links each record to its workflow run, and profiled records to their artifacts', async () => {
    const handle = await card(benchmarkName(SHAPE, 0), 'mfu');
    const links = await handle.evaluate((c) => {
      const details = c.querySelector('details.records') as HTMLDetailsElement;
      details.open = true;
      // The table is drawn on the (queued) toggle event: wait for it, however busy the host.
      return new Promise<{ href: string; text: string }[]>((done) => {
        const giveUpAt = performance.now() + 30_000;
        const collect = () => {
          if (details.childElementCount === 1 && performance.now() < giveUpAt) {
            setTimeout(collect, 25);
            return;
          }
          done(
            [...details.querySelectorAll('a')].map((a) => ({
              href: a.getAttribute('href') ?? '',
              text: a.textContent ?? '',
            })),
          );
        };
        collect();
      });
    });
    const runs = links.filter((l) => l.text === 'run');
    expect(runs).toHaveLength(SHAPE.nights);
    expect(runs[0]!.href).toBe(`https://github.com/o/r/actions/runs/${9_000_000_000 + 39}`);
    expect(links.filter((l) => l.text === 'profile (NTFF)')).toHaveLength(SHAPE.nights);
    // The commit of each record links to its page below the repository too.
    const commits = links.filter((l) => l.href.includes('/commit/'));
    expect(commits).toHaveLength(SHAPE.nights);
    expect(
      commits.every((l) => /^https:\/\/github\.com\/o\/r\/commit\/[0-9a-f]{12}$/.test(l.href)),
    ).toBe(true);
    expect(
      links.every(
        (l) =>
          l.href.startsWith('https://github.com/o/r/actions/runs/') ||
          l.href.startsWith('https://github.com/o/r/commit/'),
      ),
    ).toBe(true);
  });

  it('opens the clicked point’s record in the panel, under a cross-hair', async () => {
    const handle = await card(benchmarkName(SHAPE, 1), 'throughput');
    const night = 25;
    const point = await handle.evaluate((c, n) => {
      const charts = (window as unknown as Charts).__dashboard.charts;
      const chart = charts.get(c)!;
      const over = c.querySelector('.u-over')!.getBoundingClientRect();
      return {
        x: over.left + chart.valToPos(chart.data[0]![n]!, 'x'),
        y: over.top + chart.valToPos(chart.data[1]![n]!, 'y'),
        time: new Date(chart.data[0]![n]! * 1000).toISOString().slice(0, 16).replace('T', ' '),
      };
    }, night);
    await page.mouse.click(point.x, point.y);
    await page.waitForFunction(() => !document.getElementById('details')!.hidden);
    const opened = await page.evaluate(() => ({
      facts: [...document.querySelectorAll('#details dt')].map((dt) => [
        dt.textContent,
        dt.nextElementSibling!.textContent,
      ]),
      crosshair: document.querySelectorAll('.marker-crosshair').length,
    }));
    expect(opened.facts[0]).toEqual(['time (UTC)', point.time]);
    expect(opened.facts.map(([label]) => label)).toEqual([
      'time (UTC)',
      'mean',
      'runs',
      'verdict',
      'commit',
      'software',
      'links',
    ]);
    expect(opened.facts.at(-1)![1]).toBe('run · profile (NTFF)');
    expect(opened.crosshair).toBe(1);
    await page.click('#details button:last-of-type');
    expect(await page.$$eval('.marker-crosshair', (m) => m.length)).toBe(0);
  });

  it('shows names from the data as text, never as markup', async () => {
    const names = await page.$$eval('article.card h2', (h) => h.map((e) => e.textContent));
    expect(names).toContain(`${EVIL} · throughput`);
    expect(await page.$$eval('img', (i) => i.length)).toBe(0);
    expect(await page.$$eval('script', (s) => s.length)).toBe(3);
  });

  it('draws the sweep as latency against throughput', async () => {
    const sweep = await page.$eval('#sweeps', (s) => {
      s.scrollIntoView();
      return {
        title: s.querySelector('h3')?.textContent,
        canvas: s.querySelectorAll('canvas').length,
        variants: s.querySelector('.meta')?.textContent,
      };
    });
    expect(sweep).toEqual({
      title: 'nightly · bs-sweep',
      canvas: 1,
      variants: 'variants, by throughput: bs1, bs2, bs4, bs8',
    });
    await page.screenshot({ path: join(SCREENSHOTS, 'sweep.png') });
  });

  it('logs no console error and makes no network request', () => {
    expect(errors).toEqual([]);
  });
});

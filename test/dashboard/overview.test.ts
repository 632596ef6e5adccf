/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The dashboard as a person meets it, in Debian's headless Chromium: a generated history
// (bench/history-sim.ts ATTENTION_SHAPE: a regression of model-0 that comes back, an SDK
// upgrade moving every series, a small step of model-1 inside its threshold, an open
// regression of model-2) rendered by the page's own code. The page must open with exactly
// the open regressions, one row each that opens to its series, show the commit on hover, keep markers inside their chart after a
// zoom, fit a 390 px phone, and reopen a selection from its URL.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTENTION_SHAPE, recordsOfNight } from '../../bench/history-sim.js';
import { acceptanceRecord } from '../../src/baseline/accept.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { buildSeries, withRecordPaths } from '../../src/history/series.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const records = Array.from({ length: ATTENTION_SHAPE.nights }, (_, night) =>
  recordsOfNight(ATTENTION_SHAPE, night),
).flat();
/** model-1's night 26 accepted by hand (`baseline accept`): a copy with the acceptance. */
const acceptedNight = records.find((r) => r.benchmark === 'model-1' && r.runId === '9000000026')!;
records.push(
  acceptanceRecord(acceptedNight, {
    reason: 'manual',
    by: 'octocat',
    at: new Date('2026-02-10T09:00:00Z'),
    records: [pathOfRecord(acceptedNight)],
  }),
);
const stored = withRecordPaths(records);
const analysis = analyzeHistory(buildSeries(stored));
const openRegression = analysis.regressions.find(
  (r) => r.status === 'open' && r.benchmarks.includes('model-2'),
)!;
const commitOf = (night: number) => recordsOfNight(ATTENTION_SHAPE, night)[0]!.commit;

let dir: string;
let chromium: Chromium;
let page: Page;
let errors: string[];

async function open(width: number, fragment = ''): Promise<Page> {
  await page.setViewport({ width, height: 900 });
  await page.goto(pathToFileURL(join(dir, 'index.html')).href + fragment);
  await page.waitForFunction(() => (window as unknown as Dashboard).__dashboard.drawn >= 1);
  return page;
}

beforeAll(async () => {
  const html = renderDashboard(
    dashboardInput({
      records: stored,
      source: 'generated',
      repositoryUrl: 'https://github.com/o/r',
      issues: new Map([[openRegression.id, 42]]),
      subjects: new Map([[commitOf(33), 'Batch prefill by default']]),
    }),
  );
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-overview-'));
  await writeFile(join(dir, 'index.html'), html);
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Dashboard {
  __dashboard: { drawn: number; charts: Map<Element, Chart> };
}
interface Chart {
  valToPos(value: number, scale: string): number;
  over: HTMLElement;
  data: number[][];
}

/** The card of a benchmark's metric, scrolled into view and drawn. */
async function card(benchmark: string, metric: string): Promise<ElementHandle<HTMLElement>> {
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
  return handle as ElementHandle<HTMLElement>;
}

/** Where night `night` of the card's chart is on the screen (the point's centre). */
function pointOnScreen(handle: ElementHandle<HTMLElement>, night: number) {
  return handle.evaluate((c, i) => {
    const chart = (window as unknown as Dashboard).__dashboard.charts.get(c)!;
    const box = chart.over.getBoundingClientRect();
    return {
      x: box.left + chart.valToPos(chart.data[0]![i]!, 'x'),
      y: box.top + chart.valToPos(chart.data[1]![i]!, 'y'),
    };
  }, night);
}

/** Moves the mouse there; uPlot follows the cursor on the next animation frame. */
async function hover(at: { x: number; y: number }): Promise<void> {
  await page.mouse.move(at.x, at.y, { steps: 2 });
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
}

describe('the overview', () => {
  it('lists each open regression as one row: gate, environment, range, series, worst change, issue', async () => {
    await open(1280);
    const rows = await page.$$eval('tr.open-regression', (trs) =>
      trs.map((tr) => ({
        id: (tr as HTMLElement).dataset.regression,
        cells: [...tr.querySelectorAll(':scope > td')].map((td) => td.textContent),
        rangeTitle: tr.querySelector<HTMLElement>('td.range')!.title,
        links: [...tr.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      })),
    );
    const listed = analysis.regressions.filter((r) => r.status === 'open');
    // What the history was made of: model-2's drop is open; model-0's came back and
    // model-1's small step is inside its threshold (and accepted), so neither is listed.
    expect(listed).toEqual([openRegression]);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    const moved = openRegression.changes.filter((c) => c.status === 'open' && c.beyondThreshold);
    expect(row!.id).toBe(openRegression.id);
    expect(row!.cells[0]).toBe('▸ nightly');
    expect(row!.cells[1]).toBe('inf2.xlarge/2 cores');
    const [good, bad] = [commitOf(32), commitOf(33)];
    expect(row!.cells[2]).toBe(
      `${good.slice(0, 7)} → ${bad.slice(0, 7)} comparefirst bad night 2026-02-03`,
    );
    expect(row!.cells[3]).toBe(`${moved.length} series`);
    expect(row!.cells[4]).toMatch(/^[+−]1\d\.\d% model-2 · [a-z0-9_]+$/);
    expect(row!.cells[5]).toBe('#42');
    expect(row!.links).toEqual([
      `https://github.com/o/r/commit/${good}`,
      `https://github.com/o/r/commit/${bad}`,
      `https://github.com/o/r/compare/${good}...${bad}`,
      'https://github.com/o/r/issues/42',
    ]);
    // No clone counted the range here: the page does not guess how many commits it holds.
    expect(row!.rangeTitle).toMatch(
      new RegExp(
        `^the culprit is somewhere in the commits between them; bisect with \`neuron-perf-gate bisect --good ${good.slice(0, 12)} --bad ${bad.slice(0, 12)} --benchmark model-2 --metric [a-z0-9_]+\`$`,
      ),
    );
    // The regression's cards come first, marked as such.
    const first = await page.$$eval(
      'article.card[data-series]',
      (cards, count) => cards.slice(0, count).map((c) => (c as HTMLElement).dataset.benchmark),
      moved.length,
    );
    expect(first.every((b) => b === 'model-2')).toBe(true);
  });

  it('opens the row of a regression to its series, each with its environment and chart link', async () => {
    await open(1280);
    expect(await page.$eval('tr.regression-series', (tr) => (tr as HTMLElement).hidden)).toBe(true);
    await page.click('tr.open-regression td.environment');
    await page.waitForFunction(
      () => !document.querySelector<HTMLElement>('tr.regression-series')!.hidden,
    );
    const opened = await page.$eval('tr.regression-series', (tr) => ({
      culprit: tr.querySelector('.culprit')!.textContent,
      rows: [...tr.querySelectorAll('tr.regression-series-row')].map((row) => ({
        cells: [...row.querySelectorAll('td')].map((td) => td.textContent),
        link: row.querySelector('a')!.getAttribute('href'),
      })),
      expanded: document
        .querySelector('tr.open-regression button.toggle')!
        .getAttribute('aria-expanded'),
    }));
    expect(opened.expanded).toBe('true');
    expect(opened.culprit).toMatch(
      /^The culprit is somewhere in the commits between them; bisect with neuron-perf-gate bisect --good /,
    );
    const moved = openRegression.changes.filter((c) => c.status === 'open' && c.beyondThreshold);
    expect(opened.rows.map((r) => r.cells[0]).sort()).toEqual(
      moved.map((c) => `${c.benchmark} · ${c.metric}`).sort(),
    );
    expect(opened.rows.every((r) => r.cells[1] === 'inf2.xlarge/2 cores')).toBe(true);
    // The worst change leads, and it is the one the row shows.
    const sizes = opened.rows.map((r) => Number(r.cells[2]!.replace('−', '-').replace('%', '')));
    expect(sizes.map(Math.abs)).toEqual([...sizes.map(Math.abs)].sort((a, b) => b - a));
    const worst = await page.$eval('tr.open-regression td.worst', (td) => td.textContent);
    expect(worst).toBe(`${opened.rows[0]!.cells[2]} ${opened.rows[0]!.cells[0]}`);
    expect(opened.rows.find((r) => r.cells[0] === 'model-2 · throughput')!.link).toBe(
      `#series=${encodeURIComponent('nightly · model-2 · throughput · inf2.xlarge/2 cores')}`,
    );
    // A second click closes it.
    await page.click('tr.open-regression td.gate');
    expect(await page.$eval('tr.regression-series', (tr) => (tr as HTMLElement).hidden)).toBe(true);
  });

  it('lists the recent change points beyond the threshold, newest first', async () => {
    const recent = await page.$$eval('tr.recent-change', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    // model-0 came back on night 14 (2026-01-15), 25 nights before the newest.
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((cells) => cells[0]!.startsWith('model-0 · '))).toBe(true);
    expect(recent.every((cells) => cells[1] === 'inf2.xlarge/2 cores')).toBe(true);
    expect(recent.every((cells) => cells[3] === '2026-01-15')).toBe(true);
    expect(recent.find((cells) => cells[0] === 'model-0 · throughput')?.[2]).toMatch(
      /^\+1\d\.\d%$/,
    );
  });
});

describe('change points', () => {
  it('differ by direction and size, and steps inside the threshold are quiet', async () => {
    const marks = async (benchmark: string) =>
      (await card(benchmark, 'throughput')).evaluate((c) =>
        [...c.querySelectorAll<HTMLElement>('.marker-change')].map((m) => ({
          kind: m.className.replace('marker marker-change ', ''),
          label: m.querySelector('.change-label')?.textContent ?? null,
          width: getComputedStyle(m).borderLeftWidth,
          colour: getComputedStyle(m).borderLeftColor,
        })),
      );
    const comeAndGo = await marks('model-0');
    expect(comeAndGo[0]).toMatchObject({ kind: 'change-regression', width: '2px' });
    expect(comeAndGo[0]!.label).toMatch(/^−(9|10|11)\.\d%$/);
    expect(comeAndGo[0]!.colour).toBe('rgb(209, 36, 47)');
    expect(comeAndGo[1]).toMatchObject({ kind: 'change-improvement', width: '2px' });
    expect(comeAndGo[1]!.label).toMatch(/^\+1\d\.\d%$/);
    expect(comeAndGo[1]!.colour).toBe('rgb(26, 127, 55)');
    // The SDK upgrade's +3% and model-1's −2% are inside throughput's 5%: thin, grey, no label.
    const small = await marks('model-1');
    expect(small.length).toBeGreaterThan(0);
    for (const mark of small) {
      expect(mark).toMatchObject({ kind: 'change-quiet', label: null, width: '1px' });
    }
  });

  it('draws the threshold band around the level the baseline holds', async () => {
    const handle = await card('model-2', 'throughput');
    const band = await handle.evaluate((c) => {
      const chart = (window as unknown as Dashboard).__dashboard.charts.get(c)!;
      const node = c.querySelector<HTMLElement>('.marker-threshold')!;
      const level = Number(/level ([\d.]+)/.exec(node.title)![1]);
      // Where level ± 5% lie, kept inside the plot (the axis may not reach them).
      const height = chart.over.clientHeight;
      return {
        title: node.title,
        top: parseFloat(node.style.top),
        bottom: parseFloat(node.style.top) + parseFloat(node.style.height),
        level,
        yOf: [
          Math.max(0, chart.valToPos(level * 1.05, 'y')),
          Math.min(height, chart.valToPos(level * 0.95, 'y')),
        ],
      };
    });
    // Before the open regression: the level the gate still compares with.
    expect(band.title).toMatch(/^threshold ±5% around the baseline level [\d.]+ requests\/s$/);
    const change = openRegression.changes.find((c) => c.metric === 'throughput')!.change;
    expect(band.level).toBeCloseTo(change.before.value, 3);
    expect(band.top).toBeCloseTo(band.yOf[0]!, 0);
    expect(band.bottom).toBeCloseTo(band.yOf[1]!, 0);
  });
});

describe('hover and links', () => {
  it('shows value, runs, date and commit with its subject on hover', async () => {
    await open(1280);
    const handle = await card('model-2', 'throughput');
    await hover(await pointOnScreen(handle, 33));
    const tip = await handle.$eval('.tooltip', (t) => ({
      hidden: (t as HTMLElement).hidden,
      lines: [...t.children].map((line) => line.textContent),
    }));
    expect(tip.hidden).toBe(false);
    expect(tip.lines[0]).toMatch(/^[\d.]+ requests\/s mean$/);
    expect(tip.lines[1]).toMatch(/^3 runs, [\d.]+ – [\d.]+ requests\/s$/);
    expect(tip.lines[2]).toBe('2026-02-03 03:00 UTC · regression');
    expect(tip.lines[3]).toBe(`commit ${commitOf(33).slice(0, 7)} Batch prefill by default`);
    expect(tip.lines[4]).toMatch(/^change point: regression −/);
    // Another night: its own commit, no subject known.
    await hover(await pointOnScreen(handle, 5));
    expect(await handle.$eval('.tooltip div:nth-child(4)', (d) => d.textContent)).toBe(
      `commit ${commitOf(5).slice(0, 7)}`,
    );
    await page.mouse.move(5, 5);
  });

  it('marks a record accepted by hand on its point, in every series of its benchmark', async () => {
    await open(1280);
    for (const metric of ['throughput', 'latency_p50']) {
      const handle = await card('model-1', metric);
      const marks = await handle.evaluate((c) => {
        const chart = (window as unknown as Dashboard).__dashboard.charts.get(c)!;
        const at = (i: number) => ({
          left: chart.valToPos(chart.data[0]![i]!, 'x'),
          top: chart.valToPos(chart.data[1]![i]!, 'y'),
        });
        return {
          accepted: [...c.querySelectorAll<HTMLElement>('.marker-accepted')].map((m) => ({
            left: parseFloat(m.style.left),
            top: parseFloat(m.style.top),
          })),
          night26: at(26),
        };
      });
      expect(marks.accepted).toHaveLength(1);
      expect(marks.accepted[0]!.left).toBeCloseTo(marks.night26.left, 1);
      expect(marks.accepted[0]!.top).toBeCloseTo(marks.night26.top, 1);
    }
  });
});

describe('zoom, resize and a phone', () => {
  it('draws no marker outside its chart after a zoom', async () => {
    await open(1280);
    const handle = await card('model-2', 'throughput');
    const from = await pointOnScreen(handle, 5);
    const to = await pointOnScreen(handle, 15);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, from.y, { steps: 5 });
    await page.mouse.up();
    const after = await handle.evaluate((c) => {
      const over = c.querySelector('.u-over')!.getBoundingClientRect();
      const markers = [...c.querySelectorAll<HTMLElement>('.marker')].map((m) =>
        m.getBoundingClientRect(),
      );
      return {
        over: { left: over.left, right: over.right, top: over.top, bottom: over.bottom },
        markers: markers.map((b) => ({
          left: b.left,
          right: b.right,
          top: b.top,
          bottom: b.bottom,
        })),
        xRange: (window as unknown as Dashboard).__dashboard.charts.get(c)!.data[0]!.length,
      };
    });
    // The zoom happened: the night-33 change and the red dots are out of view.
    expect(after.markers.length).toBeGreaterThan(0);
    for (const box of after.markers) {
      expect(box.left).toBeGreaterThanOrEqual(after.over.left - 1);
      expect(box.right).toBeLessThanOrEqual(after.over.right + 1);
      expect(box.top).toBeGreaterThanOrEqual(after.over.top - 1);
      expect(box.bottom).toBeLessThanOrEqual(after.over.bottom + 1);
    }
    const regressed = await handle.$$eval('.marker-regressed', (m) => m.length);
    expect(regressed).toBe(0);
  });

  it('resizes the charts with the window', async () => {
    const handle = await card('model-2', 'throughput');
    const width = () =>
      handle.evaluate((c) => ({
        canvas: c.querySelector('canvas')!.getBoundingClientRect().width,
        plot: c.querySelector('.plot')!.clientWidth,
      }));
    const wide = await width();
    await page.setViewport({ width: 480, height: 900 });
    await page.waitForFunction(
      (c: Element) =>
        Math.abs(
          c.querySelector('.uplot')!.getBoundingClientRect().width -
            c.querySelector('.plot')!.clientWidth,
        ) <= 1,
      {},
      handle,
    );
    const narrow = await width();
    expect(narrow.plot).toBeLessThan(wide.plot);
    expect(narrow.canvas).toBeLessThanOrEqual(narrow.plot);
  });

  it('fits a 390 px phone: no chart overflows and the newest night is in view', async () => {
    await open(390);
    const cards = await page.$$('article.card[data-series]');
    for (const handle of cards) {
      await handle.evaluate((c) => c.scrollIntoView());
      await page.waitForFunction((c: Element) => c.classList.contains('drawn'), {}, handle);
    }
    const fit = await page.evaluate(() => {
      const doc = document.documentElement;
      const cardsOver = [...document.querySelectorAll<HTMLElement>('article.card')].filter(
        (c) => c.scrollWidth > c.clientWidth,
      );
      const newestOutside = [...document.querySelectorAll<HTMLElement>('article.card[data-series]')]
        .map((c) => {
          const chart = (window as unknown as Dashboard).__dashboard.charts.get(c)!;
          const x = chart.data[0]!;
          const right =
            chart.over.getBoundingClientRect().left + chart.valToPos(x[x.length - 1]!, 'x');
          return right;
        })
        .filter((right) => right > doc.clientWidth);
      return {
        scrollWidth: doc.scrollWidth,
        clientWidth: doc.clientWidth,
        cardsOver: cardsOver.length,
        newestOutside: newestOutside.length,
      };
    });
    expect(fit.clientWidth).toBe(390);
    expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
    expect(fit.cardsOver).toBe(0);
    expect(fit.newestOutside).toBe(0);
  });

  it("fits an open regression's row, its compare link and issue, on a 390 px phone", async () => {
    await open(390);
    const row = await page.$eval('tr.open-regression', (tr) => {
      const right = (selector: string) => tr.querySelector(selector)!.getBoundingClientRect().right;
      return { compare: right('a.compare'), issue: right('td.issue') };
    });
    expect(row.compare).toBeLessThanOrEqual(390);
    expect(row.issue).toBeLessThanOrEqual(390);
  });
});

describe('the URL', () => {
  it('keeps the filters in its fragment, and a link reopens them', async () => {
    await open(1280);
    await page.select('#filter-benchmark', 'model-2');
    await page.select('#filter-status', 'attention');
    const url = page.url();
    expect(new URL(url).hash).toBe('#status=attention&benchmark=model-2');
    const reopened = await open(1280, new URL(url).hash);
    expect(await reopened.$eval('#filter-benchmark', (s) => (s as HTMLSelectElement).value)).toBe(
      'model-2',
    );
    const shown = await reopened.$$eval('article.card[data-series]:not([hidden])', (c) =>
      c.map((card) => (card as HTMLElement).dataset.metric),
    );
    expect(shown.sort()).toEqual(['latency_p50', 'latency_p95', 'mfu', 'throughput']);
  });

  it('reopens one chart from #series=', async () => {
    const id = 'nightly · model-0 · mfu · inf2.xlarge/2 cores';
    await open(1280, `#series=${encodeURIComponent(id)}`);
    const shown = await page.$$eval('article.card[data-series]:not([hidden])', (c) =>
      c.map((card) => ({
        id: (card as HTMLElement).dataset.id,
        drawn: card.classList.contains('drawn'),
        selected: card.classList.contains('selected'),
      })),
    );
    expect(shown).toEqual([{ id, drawn: true, selected: true }]);
    expect(await page.$eval('#summary', (s) => s.textContent)).toBe(
      '1 of 15 series shown · show all',
    );
    // A series of an opened regression's row opens its chart the same way.
    await page.click('tr.open-regression button.toggle');
    await page.click('tr.regression-series td.series-name a');
    await page.waitForFunction(() => location.hash.startsWith('#series='));
    expect(await page.$$eval('article.card[data-series]:not([hidden])', (c) => c.length)).toBe(1);
  });
});

/** A page of 3 nights of two benchmarks, one with MBU (profiled), under `repositoryUrl`. */
async function linksPage(repositoryUrl: string): Promise<{ html: string; page: Page }> {
  const runIds = ['101', '102-2', '103abc'];
  const stored = withRecordPaths(
    runIds.flatMap((runId, night) =>
      ['profiled', 'plain'].map((name) =>
        createRecord({
          gateKey: 'nightly',
          commit: commitOf(night),
          branch: 'main',
          event: 'schedule',
          runId,
          verdict: 'pass',
          createdAt: new Date(Date.UTC(2026, 0, 1 + night, 3)),
          result: {
            name,
            format: 'vllm-bench-serve',
            runs: [],
            environment: { instanceType: 'inf2.xlarge', neuronCores: 2 },
            metrics: [
              {
                id: 'throughput',
                unit: 'requests/s',
                direction: 'higher-is-better',
                values: [3.1, 3.2, 3.15],
              },
              ...(name === 'profiled'
                ? [{ id: 'mbu', unit: '%', direction: 'higher-is-better' as const, values: [42] }]
                : []),
            ],
          },
        }),
      ),
    ),
  );
  const html = renderDashboard(dashboardInput({ records: stored, source: 'test', repositoryUrl }));
  const file = join(dir, `links-${encodeURIComponent(repositoryUrl).length}.html`);
  await writeFile(file, html);
  const { page: linked, errors: more } = await chromium.page();
  await linked.goto(pathToFileURL(file).href);
  await linked.waitForFunction(() => (window as unknown as Dashboard).__dashboard.drawn >= 1);
  await linked.$$eval('details.records', (all) =>
    all.forEach((d) => ((d as HTMLDetailsElement).open = true)),
  );
  await linked.waitForFunction(() => document.querySelectorAll('.record-table').length === 3);
  errors.push(...more);
  return { html, page: linked };
}

/** The links of each card's records table, by card title. */
function recordLinks(linked: Page) {
  return linked.$$eval('article.card[data-series]', (cards) =>
    Object.fromEntries(
      cards.map((c) => [
        c.querySelector('h2')!.textContent,
        [...c.querySelectorAll('.record-table a')].map((a) => a.getAttribute('href')),
      ]),
    ),
  );
}

describe('links from the records', () => {
  it('links runs with plain numeric ids only, and the MBU records to their profile', async () => {
    const { page: linked } = await linksPage('https://github.com/o/r');
    const links = await recordLinks(linked);
    const runs = 'https://github.com/o/r/actions/runs/';
    const commit = (night: number) =>
      `https://github.com/o/r/commit/${commitOf(night).slice(0, 12)}`;
    // Newest first: run "103abc" has text after its number, so it gets no link.
    expect(links['plain · throughput']).toEqual([
      commit(2),
      commit(1),
      `${runs}102`,
      commit(0),
      `${runs}101`,
    ]);
    // MBU comes from the profiled run: every record of that benchmark opens its artifacts.
    const profiled = [
      commit(2),
      commit(1),
      `${runs}102`,
      `${runs}102#artifacts`,
      commit(0),
      `${runs}101`,
      `${runs}101#artifacts`,
    ];
    expect(links['profiled · mbu']).toEqual(profiled);
    expect(links['profiled · throughput']).toEqual(profiled);
    await linked.close();
  });

  it('makes no link at all under a repository URL with credentials', async () => {
    const { html, page: linked } = await linksPage('https://user:s3cr3t-pat@github.com/o/r');
    expect(html).not.toContain('s3cr3t-pat');
    expect(await linked.$$eval('a[href^="http"]', (a) => a.length)).toBe(0);
    const links = await recordLinks(linked);
    expect(Object.values(links).flat()).toEqual([]);
    await linked.close();
  });
});

describe('the pages above', () => {
  it('logged no console error and made no network request', () => {
    expect(errors).toEqual([]);
  });
});

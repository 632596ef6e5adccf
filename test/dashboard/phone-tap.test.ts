/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A year of nights on a 390 px phone: Debian's headless Chromium emulates the phone (touch,
// 3 device pixels a CSS pixel), and the test taps 20 nights' points of the throughput
// chart, each found from the chart's own scale, a fraction of a point's spacing to the
// left or right and a few pixels above or below. Each tap must open exactly the tapped
// night, put the cross-hair on its point, and show the record's links inside the screen.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsOfNight, type HistoryShape } from '../../bench/history-sim.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { withRecordPaths } from '../../src/history/series.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const SHAPE: HistoryShape = { nights: 365, benchmarks: 1, requests: 20, sdkUpgradeAt: 200 };
const PHONE = { width: 390, height: 844 };
const SHOTS = join(process.cwd(), '.tmp', 'dashboard-screenshots');
/** 20 nights spread over the year, none at either end. */
const NIGHTS = Array.from({ length: 20 }, (_, k) => 7 + k * 18);

let dir: string;
let chromium: Chromium;
let page: Page;
let errors: string[];
let card: ElementHandle<HTMLElement>;

interface Dashboard {
  __dashboard: {
    charts: Map<Element, { valToPos(v: number, s: string): number; data: number[][] }>;
  };
}

beforeAll(async () => {
  const records = Array.from({ length: SHAPE.nights }, (_, n) => recordsOfNight(SHAPE, n)).flat();
  const html = renderDashboard(
    dashboardInput({
      records: withRecordPaths(records),
      source: 'phone tap test',
      repositoryUrl: 'https://github.com/o/r',
    }),
  );
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-phone-'));
  await writeFile(join(dir, 'index.html'), html);
  await mkdir(SHOTS, { recursive: true });
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
  await page.setViewport({ ...PHONE, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  card = (await page.evaluateHandle(() =>
    [...document.querySelectorAll<HTMLElement>('article.card[data-series]')].find(
      (c) => c.dataset.metric === 'throughput',
    )!,
  )) as ElementHandle<HTMLElement>;
  await card.evaluate((c) => c.scrollIntoView({ block: 'start' }));
  await page.waitForFunction((c: Element) => c.classList.contains('drawn'), {}, card);
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Where night `n`'s point is on the screen (CSS px), from the chart's own scales. */
function pointOf(n: number) {
  return card.evaluate((c, night) => {
    const chart = (window as unknown as Dashboard).__dashboard.charts.get(c)!;
    const over = c.querySelector('.u-over')!.getBoundingClientRect();
    const [x, mean] = chart.data;
    return {
      x: over.left + chart.valToPos(x![night]!, 'x'),
      y: over.top + chart.valToPos(mean![night]!, 'y'),
      spacing: over.width / (x!.length - 1),
      time: new Date(x![night]! * 1000).toISOString().slice(0, 16).replace('T', ' '),
    };
  }, n);
}

/** Taps (x, y) with the details panel closed, and waits for the panel to open. */
async function tap(x: number, y: number) {
  await page.evaluate(() => {
    const aside = document.getElementById('details')!;
    aside.hidden = true;
    aside.replaceChildren();
  });
  // The tap must land on the chart, not on anything over it.
  const target = await page.evaluate(
    (px, py) => document.elementFromPoint(px, py)?.closest('.u-over') !== null,
    x,
    y,
  );
  expect(target).toBe(true);
  // A phone's touch screen reports a position finer than a CSS pixel; puppeteer's
  // touchscreen rounds it to a whole one, so the touch goes to Chromium as it is.
  const cdp = await page.createCDPSession();
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
  await page.waitForFunction(() => !document.getElementById('details')!.hidden, {
    timeout: 30_000,
  });
}

/** The panel's times, its links' boxes, and the cross-hair's centre on the screen. */
function panel() {
  return page.evaluate(() => {
    const aside = document.getElementById('details')!;
    const hair = document.querySelector<HTMLElement>('.marker-crosshair');
    const box = hair?.getBoundingClientRect();
    return {
      times: aside.textContent!.match(/\d{4}-\d\d-\d\d \d\d:\d\d/g) ?? [],
      links: [...aside.querySelectorAll('a')].map((a) => {
        const r = a.getBoundingClientRect();
        return { text: a.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      }),
      crosshair: box ? { x: box.left + box.width / 2, y: box.top + box.height / 2 } : null,
      pageWidth: document.documentElement.scrollWidth,
    };
  });
}

describe('a tap on a phone', () => {
  it('opens the tapped night in 20 of 20 taps, with a cross-hair on its point', async () => {
    const outcomes: string[] = [];
    const misplaced: string[] = [];
    for (const [k, night] of NIGHTS.entries()) {
      const point = await pointOf(night);
      // A third of a point's spacing either side, 4 px above or below.
      const dx = (k % 2 === 0 ? 1 : -1) * point.spacing * 0.33;
      const dy = k % 4 < 2 ? 4 : -4;
      await tap(point.x + dx, point.y + dy);
      const shown = await panel();
      const right = shown.times.length === 1 && shown.times[0] === point.time;
      outcomes.push(`${night}:${right ? 'ok' : `opened ${shown.times.join(',')}`}`);
      // The page may have scrolled the chart above the panel: where the point is now.
      const now = await pointOf(night);
      const hair = shown.crosshair;
      if (!hair || Math.abs(hair.x - now.x) >= 1 || Math.abs(hair.y - now.y) >= 1) {
        misplaced.push(`${night}: cross-hair at ${hair ? `${hair.x},${hair.y}` : 'none'}`);
      }
    }
    const right = outcomes.filter((o) => o.endsWith(':ok')).length;
    console.log(`phone taps: ${right} of ${NIGHTS.length} opened the tapped night`, outcomes);
    expect(outcomes.filter((o) => !o.endsWith(':ok'))).toEqual([]);
    expect(misplaced).toEqual([]);
  });

  it('shows the record’s run and profile links inside the screen', async () => {
    const point = await pointOf(180);
    await tap(point.x, point.y);
    const shown = await panel();
    expect(shown.links.map((l) => l.text)).toEqual(
      expect.arrayContaining(['run', 'profile (NTFF)']),
    );
    for (const link of shown.links) {
      expect(link.left, link.text ?? '').toBeGreaterThanOrEqual(0);
      expect(link.right, link.text ?? '').toBeLessThanOrEqual(PHONE.width);
      expect(link.top, link.text ?? '').toBeGreaterThanOrEqual(0);
      expect(link.bottom, link.text ?? '').toBeLessThanOrEqual(PHONE.height);
    }
    // Nothing sideways: the page is no wider than the phone.
    expect(shown.pageWidth).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: join(SHOTS, 'phone-tap-panel.png') });
  });

  it('steps to the next night from the panel, and closing it takes the cross-hair away', async () => {
    const point = await pointOf(180);
    await tap(point.x, point.y);
    const later = await page.waitForSelector('#details button:not([disabled])::-p-text(later)');
    await later!.tap();
    const next = await pointOf(181);
    await page.waitForFunction(
      (time) => document.getElementById('details')!.textContent!.includes(time),
      { timeout: 30_000 },
      next.time,
    );
    const shown = await panel();
    expect(shown.times).toEqual([next.time]);
    expect(Math.abs(shown.crosshair!.x - (await pointOf(181)).x)).toBeLessThan(1);
    const close = await page.waitForSelector('#details button::-p-text(close)');
    await close!.tap();
    await page.waitForFunction(() => document.getElementById('details')!.hidden, {
      timeout: 30_000,
    });
    expect((await panel()).crosshair).toBeNull();
  });

  it('logs no console error and makes no network request', () => {
    expect(errors).toEqual([]);
  });
});

/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A sweep's capacity on the dashboard: nightly records of the capacity benchmark, derived
// from vllm bench serve results as the gate derives them, form the capacity series, and
// beside it the newest night's latency–load curve is drawn per objective, with the SLO
// line and the capacity point, in Debian's headless Chromium with every network request
// refused. A pull request's record and a manual acceptance are not drawn; names from a
// stored record are text; nothing logs an error.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord } from '../../src/baseline/record-create.js';
import type { BaselineRecord } from '../../src/baseline/record.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { capacityCharts } from '../../src/dashboard/capacity-curves.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { curveOf } from '../../src/derive/stored-curve.js';
import { withRecordPaths } from '../../src/history/series.js';
import type { BenchmarkResult } from '../../src/model.js';
import { capacityResult } from '../support/capacity-sweep.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const EVIL = '<img src=x onerror=alert(1)></script><script>alert(2)</script>';
const SCREENSHOTS = join(process.cwd(), '.tmp', 'dashboard-screenshots');
const ENVIRONMENT = { instanceType: 'inf2.xlarge', neuronCores: 2, neuronSdkVersion: '2.27.0' };
/** The server saturates a little earlier each night: 10, 9.8, 9.6, 9.4 req/s. */
const SATURATIONS = [10, 9.8, 9.6, 9.4];
const LOOSE = {
  objectives: [{ metric: 'ttft' as const, limitMs: 10_000, percentile: 99 }],
  attainment: 0.9,
};

function record(
  result: BenchmarkResult,
  night: number,
  extra: { event?: string; branch?: string; manual?: boolean } = {},
): BaselineRecord {
  return createRecord({
    gateKey: 'nightly',
    result: { ...result, environment: ENVIRONMENT },
    commit: (0xcafe00 + night).toString(16).padEnd(40, '0'),
    branch: extra.branch ?? 'main',
    event: extra.event ?? 'schedule',
    runId: `${5000 + night}-1`,
    verdict: 'pass',
    createdAt: new Date(Date.UTC(2026, 10, 1 + night, 3)),
    ...(extra.manual
      ? { acceptance: { reason: 'manual' as const, at: '2026-11-20T00:00:00Z', records: [] } }
      : {}),
  });
}

/** A capacity result whose stored curve names its objectives `name`, in unit `unit`. */
function renamed(result: BenchmarkResult, name: string, unit: string): BenchmarkResult {
  const capacity = result.info!.capacity as { series: { metric: string; unit: string }[] };
  return {
    ...result,
    info: {
      ...result.info,
      capacity: {
        ...capacity,
        series: capacity.series.map((s) => ({ ...s, metric: name, unit })),
      },
    },
  };
}

const nights = SATURATIONS.map((saturation) => capacityResult({ saturation }));
const NEWEST = nights.at(-1)!;
const records = [
  ...nights.map((result, night) => record(result, night)),
  // A pull request's record and a manual acceptance, both newer: neither is the history's.
  record(capacityResult({ saturation: 5 }), 10, { event: 'pull_request', branch: 'feature' }),
  record(capacityResult({ saturation: 6 }), 11, { manual: true }),
  record(capacityResult({ saturation: 10, slo: LOOSE, sweep: 'loose' }), 3),
  record(renamed(capacityResult({ saturation: 10, sweep: 'named' }), EVIL, EVIL), 3),
];

let dir: string;
let chromium: Chromium;
let page: Page;
let errors: string[];

beforeAll(async () => {
  const html = renderDashboard(
    dashboardInput({ records: withRecordPaths(records), source: 'capacity-curve test' }),
  );
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-capacity-'));
  await writeFile(join(dir, 'index.html'), html);
  await mkdir(SCREENSHOTS, { recursive: true });
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
  page.on('dialog', (dialog) => {
    errors.push(`dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.setViewport({ width: 1280, height: 1000 });
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  await page.waitForFunction(() => document.querySelectorAll('article.capacity-curve').length > 0);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function curveCard(benchmark: string): Promise<ElementHandle<HTMLElement>> {
  const handle = await page.evaluateHandle(
    (b) =>
      [...document.querySelectorAll<HTMLElement>('article.capacity-curve')].find(
        (c) => c.dataset.benchmark === b,
      )!,
    benchmark,
  );
  await handle.evaluate((c) => c.scrollIntoView());
  return handle as ElementHandle<HTMLElement>;
}

/** Where a card's markers sit, as fractions of its charts' plot areas (0 = left / top). */
function markers(card: ElementHandle<HTMLElement>) {
  return card.evaluate((c) =>
    [...c.querySelectorAll<HTMLElement>('.u-over')].map((over) => {
      const { width, height } = over.getBoundingClientRect();
      const one = (cls: string) => over.querySelector<HTMLElement>(cls);
      const slo = one('.marker-slo');
      const capacity = one('.marker-capacity');
      return {
        slo: slo ? { at: parseFloat(slo.style.top) / height, title: slo.title } : undefined,
        capacity: capacity
          ? { at: parseFloat(capacity.style.left) / width, title: capacity.title }
          : undefined,
        point: one('.marker-capacity-point') !== null,
        label: one('.marker-capacity-label')?.textContent,
      };
    }),
  );
}

describe('the capacity curve on the dashboard', () => {
  it('sits beside the capacity series: one chart per objective of the newest night', async () => {
    const card = await curveCard('serve/capacity');
    const beside = await card.evaluate((c) => {
      const before = c.previousElementSibling as HTMLElement;
      return {
        benchmark: before.dataset.benchmark,
        metric: before.dataset.metric,
        canvases: c.querySelectorAll('canvas').length,
        title: c.querySelector('h2')?.textContent,
        meta: c.querySelector('.meta')?.textContent,
        legends: [...c.querySelectorAll('.legend')].map((l) => l.textContent),
      };
    });
    expect(beside).toMatchObject({
      benchmark: 'serve/capacity',
      metric: 'capacity',
      canvases: 2,
      title: 'serve/capacity · latency against load',
    });
    // The newest night of the history (not the pull request's, not the acceptance's).
    const mark = curveOf(NEWEST)!.capacity!;
    const shown = String(Number(mark.value.toPrecision(4)));
    expect(beside.meta).toBe(
      `nightly · inf2.xlarge/2 cores · newest record 2026-11-04 03:00 · cafe030 · capacity ${shown} requests/s`,
    );
    await card.evaluate((c) => c.previousElementSibling!.scrollIntoView());
    await page.screenshot({ path: join(SCREENSHOTS, 'capacity-series-and-curve.png') });
    expect(beside.legends).toEqual([
      'e2el_p99, mean of the runsSLO e2el_p99 ≤ 1500 mscapacity',
      'slo_attainment, mean of the runsSLO slo_attainment ≥ 90 %capacity',
    ]);
  });

  it('draws the SLO line at its limit and the capacity point where the sweep crossed it', async () => {
    const card = await curveCard('serve/capacity');
    const drawn = await markers(card);
    expect(drawn).toHaveLength(2);
    const mark = curveOf(NEWEST)!.capacity!;
    // The loads run from 1 to 8 req/s across the plot.
    for (const chart of drawn) {
      expect(chart.capacity!.at).toBeCloseTo((mark.value - 1) / 7, 2);
      expect(chart.capacity!.title).toBe(
        `capacity ${Number(mark.value.toPrecision(4))} requests/s`,
      );
      expect(chart.point).toBe(true);
      expect(chart.label).toBe(String(Number(mark.value.toPrecision(4))));
      expect(chart.slo!.at).toBeGreaterThan(0);
      expect(chart.slo!.at).toBeLessThan(1);
    }
    expect(drawn.map((c) => c.slo!.title)).toEqual([
      'SLO e2el_p99 ≤ 1500 ms',
      'SLO slo_attainment ≥ 90 %',
    ]);
    // The attainment's SLO line (90 of up to 100%) lies near the top of its chart.
    expect(drawn[1]!.slo!.at).toBeLessThan(0.2);
    await card.screenshot({ path: join(SCREENSHOTS, 'capacity-curve.png') });
  });

  it('says "≥" when the SLO held at every load, at the highest load', async () => {
    const card = await curveCard('loose/capacity');
    const [chart] = await markers(card);
    expect(chart!.capacity!.at).toBeCloseTo(1, 2);
    expect(chart!.label).toBe('≥ 8');
    expect(chart!.capacity!.title).toBe('capacity ≥ 8 requests/s (the SLO held at every load)');
    await card.screenshot({ path: join(SCREENSHOTS, 'capacity-curve-at-least.png') });
  });

  it('shows names from a stored record as text, never as markup', async () => {
    const card = await curveCard('named/capacity');
    const [chart] = await markers(card);
    expect(chart!.slo!.title).toBe(`SLO ${EVIL} ≤ 1500 ${EVIL}`);
    expect(await page.$$eval('img', (i) => i.length)).toBe(0);
    expect(await page.$$eval('script', (s) => s.length)).toBe(3);
  });

  it('follows the filters with the capacity series', async () => {
    const shown = () =>
      page.$$eval('article.capacity-curve:not([hidden])', (cards) =>
        cards.map((c) => (c as HTMLElement).dataset.benchmark),
      );
    expect(await shown()).toEqual(['loose/capacity', 'named/capacity', 'serve/capacity']);
    await page.select('#filter-metric', 'capacity');
    expect(await shown()).toHaveLength(3);
    await page.select('#filter-benchmark', 'serve/capacity');
    expect(await shown()).toEqual(['serve/capacity']);
    await page.select('#filter-benchmark', '');
    await page.select('#filter-metric', '');
  });

  it('logs no console error and makes no network request', () => {
    expect(errors).toEqual([]);
  });
});

describe('the capacity curves the page gets', () => {
  it('are each benchmark’s newest history record with a curve', () => {
    const charts = capacityCharts(withRecordPaths(records));
    expect(charts.map((c) => [c.benchmark, c.at])).toEqual([
      ['loose/capacity', Date.UTC(2026, 10, 4, 3) / 1000],
      ['named/capacity', Date.UTC(2026, 10, 4, 3) / 1000],
      ['serve/capacity', Date.UTC(2026, 10, 4, 3) / 1000],
    ]);
    const serve = charts.find((c) => c.benchmark === 'serve/capacity')!;
    const stored = curveOf(NEWEST)!;
    expect(serve.objectives.map((o) => o.metric)).toEqual(stored.series.map((s) => s.metric));
    expect(serve.objectives[0]!.loads).toEqual([1, 2, 4, 6, 8]);
    expect(serve.objectives[0]!.values[3]).toBeCloseTo(stored.series[0]!.points[3]!.value, 1);
    // Only the default branch, when one is given; a record without a curve draws nothing.
    expect(capacityCharts(withRecordPaths(records), 'release')).toEqual([]);
    const bare = { ...NEWEST, info: { request_rate: 8 } };
    expect(capacityCharts(withRecordPaths([record(bare, 1)]))).toEqual([]);
  });
});

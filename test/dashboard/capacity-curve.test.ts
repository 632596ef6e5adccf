/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A sweep's capacity on the dashboard: nightly records of the capacity benchmark, derived
// from vllm bench serve results as the gate derives them, form the capacity series, and
// beside it the newest night's latency–load curve is drawn per objective, with the SLO
// line, and the capacity as a labelled mark on the load axis of the one objective that set
// it, in Debian's headless Chromium with every network request refused. A pull request's record and a manual acceptance are not drawn; names from a
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
/** Only the P99 E2E latency can fail: the TTFT limit is far above any request's. */
const LATENCY_BOUND = {
  objectives: [
    { metric: 'ttft' as const, limitMs: 100_000 },
    { metric: 'e2el' as const, limitMs: 800, percentile: 99 },
  ],
  attainment: 0.9,
};
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
  record(capacityResult({ saturation: 9.4, slo: LATENCY_BOUND, sweep: 'latency' }), 3),
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
      const box = over.getBoundingClientRect();
      const slo = over.querySelector<HTMLElement>('.marker-slo');
      return {
        slo: slo ? { at: parseFloat(slo.style.top) / box.height, title: slo.title } : undefined,
        marks: [...over.querySelectorAll<HTMLElement>('.capacity-mark')].map((mark) => {
          const label = mark.querySelector('.capacity-mark-label')!;
          const shape = getComputedStyle(mark, '::before');
          const labelBox = label.getBoundingClientRect();
          return {
            at: parseFloat(mark.style.left) / box.width,
            title: mark.title,
            label: label.textContent,
            // It stands on the load axis (the plot's bottom edge), drawn and in sight.
            onAxis: Math.abs(mark.getBoundingClientRect().bottom - box.bottom) < 1,
            drawn: parseFloat(shape.borderBottomWidth) > 0,
            labelInside: labelBox.left >= box.left && labelBox.right <= box.right,
          };
        }),
        // The old full-height line and point must be gone.
        oldMarks: over.querySelectorAll('.marker-capacity, .marker-capacity-point').length,
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
      `nightly · inf2.xlarge/2 cores · newest record 2026-11-04 03:00 · cafe030 · capacity ${shown} requests/s, set by slo_attainment`,
    );
    await card.evaluate((c) => c.previousElementSibling!.scrollIntoView());
    await page.screenshot({ path: join(SCREENSHOTS, 'capacity-series-and-curve.png') });
    expect(beside.legends).toEqual([
      'e2el_p99, mean of the runsSLO e2el_p99 ≤ 1500 mscapacity set by slo_attainment',
      'slo_attainment, mean of the runsSLO slo_attainment ≥ 90 %capacity, on the load axis',
    ]);
  });

  it('marks the capacity on the load axis of the objective that set it, and only there', async () => {
    const card = await curveCard('serve/capacity');
    const drawn = await markers(card);
    expect(drawn).toHaveLength(2);
    const mark = curveOf(NEWEST)!.capacity!;
    const shown = `capacity ${Number(mark.value.toPrecision(4))}`;
    // The attainment falls below 90% before the P99 E2E latency reaches 1500 ms.
    expect(drawn[0]!.marks).toEqual([]);
    expect(drawn[1]!.marks).toHaveLength(1);
    const [only] = drawn[1]!.marks;
    // The loads run from 1 to 8 req/s across the plot.
    expect(only!.at).toBeCloseTo((mark.value - 1) / 7, 2);
    expect(only).toMatchObject({ label: shown, onAxis: true, drawn: true, labelInside: true });
    expect(only!.title).toBe(
      `${shown} requests/s · SLO slo_attainment ≥ 90 % stops holding here first`,
    );
    expect(drawn.map((c) => c.oldMarks)).toEqual([0, 0]);
    expect(drawn.map((c) => c.slo!.title)).toEqual([
      'SLO e2el_p99 ≤ 1500 ms',
      'SLO slo_attainment ≥ 90 %',
    ]);
    for (const chart of drawn) {
      expect(chart.slo!.at).toBeGreaterThan(0);
      expect(chart.slo!.at).toBeLessThan(1);
    }
    // The attainment's SLO line (90 of up to 100%) lies near the top of its chart.
    expect(drawn[1]!.slo!.at).toBeLessThan(0.2);
    await card.screenshot({ path: join(SCREENSHOTS, 'capacity-curve.png') });
  });

  it('marks the latency’s chart when the latency sets the capacity', async () => {
    const card = await curveCard('latency/capacity');
    const drawn = await markers(card);
    expect(drawn.map((c) => c.marks.length)).toEqual([1, 0]);
    expect(drawn[0]!.marks[0]!.title).toContain('SLO e2el_p99 ≤ 800 ms stops holding here first');
    expect(await card.evaluate((c) => c.querySelector('.legend:last-of-type')?.textContent)).toBe(
      'slo_attainment, mean of the runsSLO slo_attainment ≥ 90 %capacity set by e2el_p99',
    );
    await card.screenshot({ path: join(SCREENSHOTS, 'capacity-curve-latency.png') });
  });

  it('says "≥" when the SLO held at every load, at the highest load', async () => {
    const card = await curveCard('loose/capacity');
    const [chart] = await markers(card);
    expect(chart!.marks).toHaveLength(1);
    const [mark] = chart!.marks;
    expect(mark!.at).toBeCloseTo(1, 2);
    expect(mark).toMatchObject({ label: 'capacity ≥ 8', labelInside: true });
    expect(mark!.title).toContain('capacity ≥ 8 requests/s ·');
    expect(mark!.title).toContain('came closest to failing at the highest load');
    expect(await card.evaluate((c) => c.querySelector('.meta')?.textContent)).toContain(
      'capacity ≥ 8 requests/s (the SLO held at every load)',
    );
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
    expect(await shown()).toEqual([
      'latency/capacity',
      'loose/capacity',
      'named/capacity',
      'serve/capacity',
    ]);
    await page.select('#filter-metric', 'capacity');
    expect(await shown()).toHaveLength(4);
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
      ['latency/capacity', Date.UTC(2026, 10, 4, 3) / 1000],
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
    // One side (the newest night), marked on the objective that set it.
    expect(serve.marks).toEqual([{ side: '', ...serve.capacity!, objective: 1 }]);
    const below = capacityResult({ saturation: 0.5, sweep: 'below' });
    expect(capacityCharts(withRecordPaths([record(below, 1)]))[0]!.marks).toEqual([]);
  });
});

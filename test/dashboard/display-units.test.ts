// The dashboard's client script in Debian's chromium, on metrics of every kind of unit:
// each card and each record row must show its figures in the unit they read best in, the
// figures scaled to it (0.25 s is 250 ms, 0.0003484 ms is 348.4 ns), and rates and
// percentages as the files gave them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord } from '../../src/baseline/record-create.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { withRecordPaths } from '../../src/history/series.js';
import type { Direction } from '../../src/model.js';
import { launchChromium, type Chromium } from '../support/chromium.js';
import { cleanRuns } from '../support/clean-runs.js';

interface UnitCase {
  metric: string;
  unit: string;
  direction: Direction;
  /** The mean of each night's runs, in `unit`. */
  mean: number;
  /** What the page must show: the unit, and the mean and the lowest–highest run with it. */
  shown: { unit: string; mean: string; runs: string };
}

// Runs of a night: 1% below, at and 1% above the mean.
const CASES: UnitCase[] = [
  {
    metric: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    mean: 312.5,
    shown: { unit: 'ms', mean: '312.5 ms', runs: '309.38 – 315.63 ms' },
  },
  {
    metric: 'latency_min',
    unit: 'ms',
    direction: 'lower-is-better',
    mean: 0.0003484,
    shown: { unit: 'ns', mean: '348.4 ns', runs: '344.92 – 351.88 ns' },
  },
  {
    metric: 'load_time',
    unit: 's',
    direction: 'lower-is-better',
    mean: 0.25,
    shown: { unit: 'ms', mean: '250 ms', runs: '247.5 – 252.5 ms' },
  },
  {
    metric: 'warmup_time',
    unit: 's',
    direction: 'lower-is-better',
    mean: 2.5,
    shown: { unit: 's', mean: '2.5 s', runs: '2.475 – 2.525 s' },
  },
  {
    metric: 'tokens_per_second',
    unit: 'tokens/s',
    direction: 'higher-is-better',
    mean: 1234.5,
    shown: { unit: 'tokens/s', mean: '1234.5 tokens/s', runs: '1222.2 – 1246.8 tokens/s' },
  },
  {
    metric: 'mfu',
    unit: '%',
    direction: 'higher-is-better',
    mean: 41.25,
    shown: { unit: '%', mean: '41.25 %', runs: '40.837 – 41.663 %' },
  },
];

const NIGHTS = 3;
const BENCHMARK = 'units-bench';

function record(night: number) {
  return createRecord({
    gateKey: 'nightly',
    result: {
      name: BENCHMARK,
      format: 'custom-smaller-is-better',
      metrics: CASES.map((c) => ({
        id: c.metric,
        unit: c.unit,
        direction: c.direction,
        values: [c.mean * 0.99, c.mean, c.mean * 1.01],
      })),
      runs: cleanRuns(3),
      environment: { instanceType: 'inf2.xlarge', neuronCores: 2, neuronSdkVersion: '2.26.0' },
    },
    commit: (0xabc000 + night).toString(16).padEnd(40, '0'),
    branch: 'main',
    event: 'schedule',
    runId: `${1000 + night}-1`,
    verdict: 'pass',
    createdAt: new Date(Date.UTC(2026, 2, 1 + night, 3)),
  });
}

let dir: string;
let chromium: Chromium;
let page: Page;
let errors: string[];

beforeAll(async () => {
  const records = withRecordPaths(Array.from({ length: NIGHTS }, (_, night) => record(night)));
  const html = renderDashboard(
    dashboardInput({ records, source: 'records of the display-units test' }),
  );
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-units-'));
  await writeFile(join(dir, 'index.html'), html);
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
  await page.setViewport({ width: 1280, height: 1000 });
  await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  await page.waitForFunction(() => document.querySelectorAll('article.card').length > 0);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What one card shows: its meta line, and the mean and runs cells of its newest record. */
async function shownFor(metric: string) {
  return page.evaluate((m) => {
    const card = [...document.querySelectorAll<HTMLElement>('article.card[data-series]')].find(
      (c) => c.dataset.metric === m,
    );
    if (!card) return undefined;
    const details = card.querySelector('details.records') as HTMLDetailsElement;
    details.open = true;
    return new Promise<{ meta: string; rows: string[][] }>((resolve) => {
      // The table is built on the details' toggle event.
      const read = () =>
        resolve({
          meta: card.querySelector('.meta')!.textContent ?? '',
          rows: [...card.querySelectorAll('table.record-table tr')]
            .slice(1)
            .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
        });
      if (card.querySelector('table.record-table')) read();
      else details.addEventListener('toggle', () => read(), { once: true });
    });
  }, metric);
}

describe('the dashboard page in chromium, with display units', () => {
  it.each(CASES.map((c) => [c.metric, c] as const))(
    '%s shows its figures in the unit they read best in',
    async (metric, { shown }) => {
      const card = await shownFor(metric);
      expect(card, `no card for ${metric}`).toBeDefined();
      expect(card!.meta).toMatch(new RegExp(`${NIGHTS} records · .* · ${escape(shown.unit)}$`));
      expect(card!.rows).toHaveLength(NIGHTS);
      for (const row of card!.rows) {
        // time, mean, runs, verdict, ...
        expect(row[1]).toBe(shown.mean);
        expect(row[2]).toBe(shown.runs);
      }
    },
  );

  it('logs no console error and makes no network request', () => {
    expect(errors).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// A/B comparisons kept on the data branch, on the dashboard in Debian's chromium: each
// metric's paired change is a card of its own, in percent, whose legend says it shows
// changes and their intervals, beside the stored levels' cards as they were.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AbRecordPart } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { withRecordPaths } from '../../src/history/series.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

function record(week: number, ab?: AbRecordPart) {
  const change = ab?.changes.latency_p50?.change ?? 0;
  return createRecord({
    gateKey: ab ? 'sdk-upgrade' : 'inf2-perf',
    commit: `${week}`.padStart(40, 'a'),
    branch: 'main',
    event: 'schedule',
    runId: String(100 + week),
    verdict: change > 0.05 ? 'regression' : 'pass',
    createdAt: new Date(Date.UTC(2026, 8, 1 + 7 * week)),
    result: {
      name: 'reranker',
      format: 'offline-benchmark',
      runs: [],
      environment: { instanceType: 'inf2.xlarge', neuronCores: 2 },
      metrics: [
        {
          id: 'latency_p50',
          unit: 'ms',
          direction: 'lower-is-better',
          values: [300, 302, 301].map((v) => v * (1 + change)),
        },
      ],
    },
    ...(ab ? { ab } : {}),
  });
}

function abPart(change: number): AbRecordPart {
  return {
    base: { label: 'the base environment', environment: { compilerVersion: '2.21' } },
    blocks: 2,
    changes: { latency_p50: { change, low: change - 0.02, high: change + 0.02 } },
  };
}

let dir: string;
let chromium: Chromium;
let page: Page;
let errors: string[];

beforeAll(async () => {
  const records = [
    ...Array.from({ length: 6 }, (_, week) => record(week)),
    ...Array.from({ length: 6 }, (_, week) => record(week, abPart(week < 3 ? 0 : 0.11))),
  ];
  const html = renderDashboard(
    dashboardInput({ records: withRecordPaths(records), source: 'test' }),
  );
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-ab-'));
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

describe("the dashboard with an A/B comparison's records", () => {
  it('shows the paired change as a card of its own, in percent, with a legend that says so', async () => {
    const cards = await page.$$eval('article.card', (nodes) =>
      nodes.map((node) => ({
        title: node.querySelector('h2')?.textContent ?? '',
        meta: node.querySelector('.meta')?.textContent ?? '',
        legend: node.querySelector('.legend')?.textContent ?? '',
      })),
    );
    const ab = cards.find((c) => c.title === 'reranker · latency_p50 A/B change');
    const level = cards.find((c) => c.title === 'reranker · latency_p50');
    expect(ab?.meta).toMatch(/^sdk-upgrade · A\/B · 6 records · lower is better · %$/);
    expect(ab?.legend).toContain('change, head vs base');
    expect(ab?.legend).toContain('95% interval');
    // The stored levels' card is as it was: the A/B records are not among its points. Its
    // metric is gated (a threshold); the A/B card's changes are not.
    expect(level?.meta).toMatch(
      /^inf2-perf · .* · 6 records · lower is better · threshold \d+% · ms$/,
    );
    expect(level?.legend).toContain('mean of the runs');
    expect(errors).toEqual([]);
  });
});

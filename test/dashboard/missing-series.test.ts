/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Series that stopped reporting on the dashboard, in Debian's headless Chromium: a gate whose
// model-b stopped after night 14 (a runner down) while model-a ran on to night 19. The
// overview lists model-b's series under "Stopped reporting" with where it ran, when it was
// last seen and the gate's nights since; its cards are marked; with `missing-after: 0`
// nothing is listed. The page's time is given, never the clock's.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { withRecordPaths } from '../../src/history/series.js';
import { NIGHT0, nightRecords } from '../history/night-records.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const LAST_NIGHT = 19;
const stored = withRecordPaths(
  Array.from({ length: LAST_NIGHT + 1 }, (_, night) =>
    nightRecords(
      { benchmarks: night <= 14 ? ['model-a', 'model-b'] : ['model-a'], nights: LAST_NIGHT + 1 },
      night,
    ),
  ).flat(),
);
const now = new Date(NIGHT0 + LAST_NIGHT * 86_400_000 + 3_600_000);

let dir: string;
let chromium: Chromium;
let page: Page;
let errors: string[];

async function open(file: string): Promise<void> {
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(pathToFileURL(join(dir, file)).href);
  await page.waitForFunction(() => (window as unknown as Drawn).__dashboard.drawn >= 1);
}

interface Drawn {
  __dashboard: { drawn: number };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-missing-'));
  for (const [file, missingAfter] of [
    ['three.html', 3],
    ['off.html', 0],
  ] as const) {
    const input = dashboardInput({
      records: stored,
      source: 'generated',
      now,
      missingAfter,
      repositoryUrl: 'https://github.com/o/r',
    });
    await writeFile(join(dir, file), renderDashboard(input));
  }
  chromium = await launchChromium();
  ({ page, errors } = await chromium.page());
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('series that stopped reporting on the dashboard', () => {
  it('are listed after the open regressions, with environment, last seen and nights missed', async () => {
    await open('three.html');
    const headings = await page.$$eval('#overview h2', (hs) => hs.map((h) => h.textContent));
    expect(headings).toEqual([
      'Open regressions (0)',
      'Stopped reporting (2)',
      'Change points of the last 30 days',
    ]);
    const rows = await page.$$eval('tr.missing-series', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    // Night 14 is 2026-03-15, commit abc00e…; model-a ran on the 5 nights after it.
    expect(rows.sort()).toEqual([
      ['model-b · latency_p50', 'inf2.xlarge/2 cores/config cafe123', 'abc00e0 2026-03-15', '5'],
      ['model-b · throughput', 'inf2.xlarge/2 cores/config cafe123', 'abc00e0 2026-03-15', '5'],
    ]);
    const marked = await page.$$eval('article.card[data-series]', (cards) =>
      cards.map((c) => [
        (c as HTMLElement).dataset.benchmark,
        (c as HTMLElement).dataset.status,
        c.querySelector('.status')?.textContent ?? null,
      ]),
    );
    expect(marked.slice(0, 2)).toEqual([
      ['model-b', 'missing', 'stopped reporting'],
      ['model-b', 'missing', 'stopped reporting'],
    ]);
    expect(marked.slice(2).every(([b, status]) => b === 'model-a' && status !== 'missing')).toBe(
      true,
    );
    expect(errors).toEqual([]);
  });

  it('lists nothing with missing-after: 0', async () => {
    await open('off.html');
    expect(await page.$$('tr.missing-series')).toEqual([]);
    const headings = await page.$$eval('#overview h2', (hs) => hs.map((h) => h.textContent));
    expect(headings).not.toContain('Stopped reporting (2)');
    expect(errors).toEqual([]);
  });
});

// The dashboard at a year's size: 365 nights × 20 benchmarks × 5 metrics = 100 series.
//
// 1. Data branch growth: every night's records (3 runs of 200 requests each, as the gate
//    stores them) are appended through the git-branch store to a bare repository, one
//    commit and push a night, as the nightly job does; the repository is measured as
//    pushed and after `git gc` (how a host keeps it).
// 2. The page: its size, and the time until the first chart is painted in Debian's
//    headless Chromium, from navigation start (the median of 3 loads, each in a new page).
//
//   npm run bench:dashboard [-- --nights 365 --benchmarks 20 --requests 200]

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../scripts/chromium.mjs';
import { GitBranchStore } from '../src/baseline/git/git-branch-store.js';
import { type BaselineRecord } from '../src/baseline/record.js';
import { pathOfRecord } from '../src/baseline/record-paths.js';
import { serializeRecord } from '../src/baseline/record-text.js';
import { dashboardInput } from '../src/dashboard/build.js';
import { renderDashboard } from '../src/dashboard/render.js';
import { recordsOfNight, type HistoryShape } from './history-sim.js';
import { table } from './text.js';

const PAGE_LIMIT = 5 * 1024 * 1024;
const FIRST_CHART_LIMIT_MS = 2000;
const GROWTH_LIMIT = 50 * 1024 * 1024;
const MB = 1024 * 1024;

const { values } = parseArgs({
  options: {
    nights: { type: 'string', default: '365' },
    benchmarks: { type: 'string', default: '20' },
    requests: { type: 'string', default: '200' },
    chromium: { type: 'string', default: CHROMIUM },
  },
});
const shape: HistoryShape = {
  nights: Number(values.nights),
  benchmarks: Number(values.benchmarks),
  requests: Number(values.requests),
  sdkUpgradeAt: Math.floor(Number(values.nights) / 2),
  regressionAt: Math.floor((Number(values.nights) * 3) / 4),
};

const root = await mkdtemp(join(tmpdir(), 'perf-gate-bench-dashboard-'));
try {
  const origin = join(root, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  const store = new GitBranchStore({ repoDir: root, remote: origin, workDir: join(root, 'work') });

  // ── 1. a year of nightly pushes ──────────────────────────────────────────────────
  const records: BaselineRecord[] = [];
  let rawBytes = 0;
  const started = performance.now();
  for (let night = 0; night < shape.nights; night += 1) {
    const nightly = recordsOfNight(shape, night);
    for (const record of nightly) rawBytes += Buffer.byteLength(serializeRecord(record));
    await store.appendRecords(nightly);
    records.push(...nightly);
    if ((night + 1) % 50 === 0) {
      process.stderr.write(
        `  ${night + 1} nights pushed (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    }
  }
  const pushed = repositoryBytes(origin);
  execFileSync('git', ['-C', origin, 'gc', '--quiet', '--prune=now']);
  const packed = repositoryBytes(origin);

  // ── 2. the page ──────────────────────────────────────────────────────────────────
  const buildStart = performance.now();
  const input = dashboardInput({
    records: records.map((record) => ({ path: pathOfRecord(record), record })),
    source: 'bench',
    repositoryUrl: 'https://github.com/o/r',
  });
  const html = renderDashboard(input);
  const buildMs = performance.now() - buildStart;
  const pageFile = join(root, 'index.html');
  await writeFile(pageFile, html);
  const pageBytes = (await stat(pageFile)).size;

  const browser = await puppeteer.launch({
    executablePath: values.chromium,
    headless: true,
    userDataDir: join(root, 'chromium-profile'),
    args: [...CHROMIUM_FLAGS],
  });
  const firstChart: number[] = [];
  const errors: string[] = [];
  try {
    for (let load = 0; load < 3; load += 1) {
      const page = await browser.newPage();
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
      await page.setViewport({ width: 1280, height: 1000 });
      await page.goto(pathToFileURL(pageFile).href, { waitUntil: 'load', timeout: 60_000 });
      await page.waitForFunction(
        () =>
          (window as unknown as { __dashboard?: { firstChartMs: number | null } }).__dashboard
            ?.firstChartMs != null,
        { timeout: 60_000 },
      );
      firstChart.push(
        await page.evaluate(
          () =>
            (window as unknown as { __dashboard: { firstChartMs: number } }).__dashboard
              .firstChartMs,
        ),
      );
      await page.close();
    }
  } finally {
    await browser.close();
  }
  firstChart.sort((a, b) => a - b);
  const median = firstChart[1]!;

  const series = input.series.length;
  console.log(
    `dashboard bench: ${shape.nights} nights × ${shape.benchmarks} benchmarks = ${records.length} records, ${series} series`,
  );
  console.log(
    table(
      ['figure', 'measured', 'goal', 'ok'],
      [
        ['records written (JSON, raw)', `${(rawBytes / MB).toFixed(1)} MB`, '', ''],
        ['data branch growth, as pushed', `${(pushed / MB).toFixed(1)} MB`, '', ''],
        [
          'data branch growth, after git gc',
          `${(packed / MB).toFixed(1)} MB`,
          '≤ 50 MB a year',
          packed <= GROWTH_LIMIT ? 'yes' : 'NO',
        ],
        ['page build (series, change points, HTML)', `${(buildMs / 1000).toFixed(2)} s`, '', ''],
        [
          'page size',
          `${(pageBytes / MB).toFixed(2)} MB`,
          '≤ 5 MB',
          pageBytes <= PAGE_LIMIT ? 'yes' : 'NO',
        ],
        [
          'first chart painted (median of 3 loads)',
          `${median.toFixed(0)} ms (all: ${firstChart.map((ms) => ms.toFixed(0)).join(', ')})`,
          '< 2 s',
          median < FIRST_CHART_LIMIT_MS ? 'yes' : 'NO',
        ],
        ['console errors', String(errors.length), '0', errors.length === 0 ? 'yes' : 'NO'],
      ],
    ),
  );
  for (const error of errors.slice(0, 5)) console.log(`  console error: ${error}`);
} finally {
  await rm(root, { recursive: true, force: true });
}

/** Bytes of a bare repository's objects (loose and packed), as git counts them. */
function repositoryBytes(repo: string): number {
  const text = execFileSync('git', ['-C', repo, 'count-objects', '-v'], { encoding: 'utf8' });
  const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return (kib('size') + kib('size-pack')) * 1024;
}

/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A sweep's latency distributions on the dashboard: each rate's newest night keeps TTFT and
// ITL histograms in its record, and the page draws one CDF line per rate for each, with
// the tokens/s per user against the server's beside them, in Debian's headless Chromium.
// A pull request's record, an older night and a record written before histograms were
// kept are not drawn.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord } from '../../src/baseline/record-create.js';
import type { BaselineRecord } from '../../src/baseline/record.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { shareAtOrBelow, sweepDistributions } from '../../src/dashboard/sweep-distributions.js';
import { withRecordPaths } from '../../src/history/series.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { launchChromium, type Chromium } from '../support/chromium.js';

const SHOTS = process.env.PERF_GATE_SHOTS ?? join(process.cwd(), '.tmp', 'dashboard-screenshots');
const RATES = [1, 2, 4, 6, 8];

/** Lognormal latencies around `medianMs`, seeded. */
function latencies(count: number, medianMs: number, sigma: number, seed: string): Float64Array {
  const random = seededRandom(seed);
  return Float64Array.from({ length: count }, () => medianMs * Math.exp(sigma * normal(random)));
}

const ms = (id: string, samples: Float64Array[], percentile?: number): Metric => ({
  id,
  unit: 'ms',
  direction: 'lower-is-better',
  values: samples.map(() => 0),
  samples,
  ...(percentile !== undefined ? { percentile } : {}),
});

/** One rate's result: TTFT and ITL slower as the rate grows, 3 runs of 200 requests. */
function rateResult(rate: number, night: number, keepSamples = true): BenchmarkResult {
  const runs = (median: number, what: string, count: number) =>
    [0, 1, 2].map((run) => latencies(count, median, 0.35, `${what}-${rate}-${night}-${run}`));
  const ttft = runs(60 * (1 + (rate * rate) / 8), 'ttft', 200);
  const itl = runs(20 * (1 + rate / 6), 'itl', 2_000);
  const tpot = 20 * (1 + rate / 6);
  return {
    name: `qwen3-serve/rate-${rate}`,
    format: 'vllm-bench-serve',
    sweep: { name: 'qwen3-serve', variant: `rate-${rate}`, params: { 'request-rate': rate } },
    metrics: [
      keepSamples ? ms('ttft_p50', ttft, 50) : { ...ms('ttft_p50', ttft, 50), samples: undefined },
      ms('itl_p50', itl, 50),
      { ...ms('tpot_p50', []), values: [tpot, tpot, tpot] },
      {
        id: 'tokens_per_second',
        unit: 'tokens/s',
        direction: 'higher-is-better',
        values: [rate * 120, rate * 120, rate * 120],
      },
    ],
    runs: [],
  };
}

function record(result: BenchmarkResult, night: number, event = 'schedule'): BaselineRecord {
  return createRecord({
    gateKey: 'nightly',
    result: { ...result, environment: { instanceType: 'inf2.xlarge' } },
    commit: (0xbeef00 + night).toString(16).padEnd(40, '0'),
    branch: event === 'pull_request' ? 'feature' : 'main',
    event,
    runId: `${7000 + night}-1`,
    verdict: 'pass',
    createdAt: new Date(Date.UTC(2026, 10, 1 + night, 3)),
  });
}

/** A record as one written before histograms were kept. */
function withoutHistograms(stored: BaselineRecord): BaselineRecord {
  const copy = structuredClone(stored);
  delete copy.result.distributions;
  return copy;
}

const records = [
  ...RATES.map((rate) => record(rateResult(rate, 1), 1)),
  ...RATES.map((rate) => record(rateResult(rate, 2), 2)),
  // Newer, but not the history's: a pull request's night.
  record(rateResult(8, 3), 3, 'pull_request'),
  // Another sweep whose only record predates histograms: not drawn.
  withoutHistograms(
    record({ ...rateResult(1, 2), sweep: { name: 'old', variant: 'rate-1', params: {} } }, 2),
  ),
];

describe('sweepDistributions', () => {
  const [sweep, ...others] = sweepDistributions(withRecordPaths(records));

  it("draws each rate's newest history night, by rate", () => {
    expect(others).toEqual([]);
    expect(sweep!.variants).toEqual(RATES.map((rate) => `rate-${rate}`));
    expect(new Set(sweep!.at)).toEqual(new Set([Date.UTC(2026, 10, 3, 3) / 1000]));
    expect(sweep!.charts.map((chart) => chart.metric)).toEqual(['ttft', 'itl']);
  });

  it('gives CDFs that rise from 0 to 1, slower rates further right', () => {
    const ttft = sweep!.charts[0]!;
    const medians = ttft.shares.map((shares) => {
      for (let i = 1; i < shares.length; i += 1)
        expect(shares[i]).toBeGreaterThanOrEqual(shares[i - 1]!);
      expect(shares.at(-1)).toBe(1);
      return ttft.x[shares.findIndex((share) => share >= 0.5)]!;
    });
    for (let i = 1; i < medians.length; i += 1) expect(medians[i]).toBeGreaterThan(medians[i - 1]!);
    // Rate 1's median near 67.5 ms (60 × 1.125), within a bucket of the exact one.
    expect(medians[0]! / 67.5).toBeGreaterThan(0.9);
    expect(medians[0]! / 67.5).toBeLessThan(1.1);
  });

  it("pairs each rate's tokens/s per user with the server's", () => {
    expect(sweep!.pareto?.perInstance).toEqual(RATES.map((rate) => rate * 120));
    expect(sweep!.pareto?.perUser[0]).toBeCloseTo(1000 / (20 * (1 + 1 / 6)), 2);
  });

  it('reads a share linearly within a bucket', () => {
    const histogram = { count: 4, min: 10, max: 30, edges: [10, 20, 30], counts: [2, 2] };
    expect(shareAtOrBelow(histogram, 5)).toBe(0);
    expect(shareAtOrBelow(histogram, 15)).toBe(0.25);
    expect(shareAtOrBelow(histogram, 20)).toBe(0.5);
    expect(shareAtOrBelow(histogram, 30)).toBe(1);
  });
});

describe('the CDF chart in Chromium', () => {
  let dir: string;
  let chromium: Chromium;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    const html = renderDashboard(
      dashboardInput({ records: withRecordPaths(records), source: 'sweep-distributions test' }),
    );
    dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-cdf-'));
    await writeFile(join(dir, 'index.html'), html);
    await mkdir(SHOTS, { recursive: true });
    chromium = await launchChromium();
    ({ page, errors } = await chromium.page());
    await page.setViewport({ width: 1280, height: 1000 });
    await page.goto(pathToFileURL(join(dir, 'index.html')).href);
    await page.waitForFunction(
      () => document.querySelectorAll('article.sweep-distributions canvas').length >= 3,
      { timeout: 60_000 },
    );
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('draws a line per rate in each CDF, labelled by rate', async () => {
    const card = (await page.$('article.sweep-distributions'))!;
    await card.evaluate((c) => c.scrollIntoView());
    const drawn = await card.evaluate((c) => {
      // The colours of the rates' lines, as dashboard.js gives them.
      const colours = [
        [0x1f, 0x6f, 0xeb],
        [0x2d, 0xa4, 0x4e],
        [0xbf, 0x87, 0x00],
        [0xd1, 0x24, 0x2f],
        [0x82, 0x50, 0xdf],
      ];
      return [...c.querySelectorAll<HTMLElement>('.plot.cdf')].map((plot) => {
        const canvas = plot.querySelector('canvas')!;
        const pixels = canvas
          .getContext('2d')!
          .getImageData(0, 0, canvas.width, canvas.height).data;
        const seen = colours.map(() => 0);
        for (let i = 0; i < pixels.length; i += 4) {
          colours.forEach(([r, g, b], k) => {
            const near =
              Math.abs(pixels[i]! - r!) +
              Math.abs(pixels[i + 1]! - g!) +
              Math.abs(pixels[i + 2]! - b!);
            if (near < 30) seen[k]! += 1;
          });
        }
        return {
          metric: plot.dataset.metric,
          labels: [...plot.querySelectorAll('.u-legend .u-series .u-label')].map(
            (l) => l.textContent,
          ),
          seen,
        };
      });
    });
    expect(drawn.map((d) => d.metric)).toEqual(['ttft', 'itl']);
    for (const chart of drawn) {
      expect(chart.labels.slice(1)).toEqual(RATES.map((rate) => `rate-${rate}`));
      // Every rate's line left pixels of its colour.
      for (const pixels of chart.seen) expect(pixels).toBeGreaterThan(50);
    }
    const text = await card.evaluate((c) => c.textContent);
    expect(text).toContain('nightly · qwen3-serve: latency CDF per rate');
    expect(text).toContain('Tokens/s per user against tokens/s of the server');
    expect(await page.$$('article.sweep-distributions')).toHaveLength(1);
    await card.screenshot({ path: join(SHOTS, 'sweep-cdf.png') });
    expect(errors).toEqual([]);
  });
});

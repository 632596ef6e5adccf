/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The capacity chart in the comment: per objective of a sweep's SLO, latency (or the
// attainment) against load for the baseline and this run, the SLO line, and each side's
// capacity as a spike on the chart of the objective that set it only (the legend under the
// others names that objective), drawn by the real Mermaid in Debian's headless Chromium as
// GitHub draws a ```mermaid block; under it the capacity as the gate judged it. Names and
// units from a config or a report.json cannot break out of the chart or the legend.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkReport, CapacityCurve } from '../../src/model.js';
import { capacitySetters, interpolate, loadGrid } from '../../src/report/capacity-chart.js';
import { formatChange, formatValue } from '../../src/report/numbers.js';
import { COMMENT_LIMIT, renderComment, renderMarkdown } from '../../src/report/markdown.js';
import { CMARK_GFM_ARGS, commentPage } from '../../scripts/pictures/comment-page.js';
import { capacityResult, judgedCapacity, RATES } from '../support/capacity-sweep.js';
import { launchChromium, type Chromium } from '../support/chromium.js';
import { reportOf } from './support.js';

const MERMAID = 'node_modules/mermaid/dist/mermaid.min.js';
const SCREENSHOTS = join(process.cwd(), '.tmp', 'capacity-chart-screenshots');

const BASELINE = capacityResult({ saturation: 10 });
// Saturating at 9 req/s instead of 10: latency grows faster with load.
const SLOWER = judgedCapacity(capacityResult({ saturation: 9 }), BASELINE);

function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)\n```$/gm)].map((m) => m[1]!);
}

/** A Mermaid line as drawn: its colour and its points (SVG coordinates, y grows downwards). */
interface DrawnLine {
  stroke: string;
  points: [number, number][];
}

let chromium: Chromium;
beforeAll(async () => {
  chromium = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await chromium?.close();
});

/** Each block drawn by Mermaid; with `screenshot`, a PNG of each (`<screenshot>-<n>.png`). */
async function draw(
  blocks: string[],
  screenshot?: string,
): Promise<{ drawn: DrawnLine[][]; errors: string[] }> {
  const { page, errors } = await chromium.page();
  await page.setViewport({ width: 900, height: 700 });
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  await page.addScriptTag({ path: MERMAID });
  const drawn = await page.evaluate(async (texts: string[]) => {
    const mermaid = (globalThis as unknown as { mermaid: MermaidApi }).mermaid;
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    const out: DrawnLine[][] = [];
    for (const [index, text] of texts.entries()) {
      const { svg } = await mermaid.render(`chart${index}`, text);
      const holder = document.createElement('div');
      holder.style.width = '800px';
      holder.innerHTML = svg;
      document.body.append(holder);
      out.push(
        [...holder.querySelectorAll('path[fill="none"]')]
          .filter((path) => !/^#1313|^#333/.test(path.getAttribute('stroke') ?? ''))
          .map((path) => ({
            stroke: path.getAttribute('stroke') ?? '',
            points: (path.getAttribute('d') ?? '')
              .replace(/^M/, '')
              .split('L')
              .map((pair) => pair.split(',').map(Number) as [number, number]),
          }))
          .filter((line) => line.points.length > 1 && line.points.every((p) => p.length === 2)),
      );
    }
    return out;
  }, blocks);
  if (screenshot) {
    for (const [index, holder] of (await page.$$('body > div')).entries()) {
      await holder.screenshot({ path: join(SCREENSHOTS, `${screenshot}-${index + 1}.png`) });
    }
  }
  await page.close();
  return { drawn, errors };
}

interface MermaidApi {
  initialize(config: object): void;
  render(id: string, text: string): Promise<{ svg: string }>;
}

/** The parts of a block: its x axis, y range, line colours and lines, as Mermaid reads them. */
function parsed(block: string) {
  const x = /^ {2}x-axis "(.*)" (\S+) --> (\S+)$/m.exec(block)!;
  const y = /^ {2}y-axis "(.*)" (\S+) --> (\S+)$/m.exec(block)!;
  const palette = /plotColorPalette: "(.*)"/.exec(block)![1]!.split(', ');
  const lines = [...block.matchAll(/^ {2}line \[(.*)\]$/gm)].map((m) =>
    m[1]!.split(', ').map(Number),
  );
  return {
    xLabel: x[1]!,
    xMin: Number(x[2]),
    xMax: Number(x[3]),
    yLabel: y[1]!,
    yMin: Number(y[2]),
    palette,
    lines,
  };
}

const [BLUE, RED, SLO] = ['#55acee', '#dd2e44', '#31373d'];
const judged = (report: BenchmarkReport) => report.metrics.find((m) => m.id === 'capacity')!;

/** A spike: the SLO line but at one grid point, the one nearest `capacity`, at `bottom`. */
function expectSpike(spike: number[], limit: number, bottom: number, capacity: number) {
  const grid = loadGrid(RATES);
  const dropped = spike.flatMap((value, i) => (value === limit ? [] : [i]));
  expect(dropped).toHaveLength(1);
  expect(spike[dropped[0]!]).toBe(bottom);
  expect(Math.abs(grid[dropped[0]!]! - capacity)).toBeLessThanOrEqual((grid[1]! - grid[0]!) / 2);
}

/**
 * SLOWER, but the baseline's P99 E2E latency crosses 1500 ms at 5.167 req/s, before its
 * attainment falls below 90% (at 5.333): the baseline's capacity was set by the latency,
 * this run's by the attainment.
 */
function splitSides(): BenchmarkReport {
  const curve = structuredClone(SLOWER.capacityCurve!);
  curve.series[0]!.baseline = [300, 350, 800, 2000, 3000].map((value, i) => ({
    load: RATES[i]!,
    value,
  }));
  expect(curve.series[1]!.baseline.map((p) => p.value)).toEqual([100, 100, 100, 85, 0]);
  curve.capacity.baseline = { value: 4 + 2 * (700 / 1200), atLeast: false };
  return { ...SLOWER, name: 'split/capacity', capacityCurve: curve };
}

describe('the capacity chart of a sweep', () => {
  const comment = renderComment(reportOf([SLOWER]));
  const blocks = mermaidBlocks(comment);
  const curve = SLOWER.capacityCurve!;

  it('is one chart per objective: both curves through their loads and the SLO line', () => {
    expect(curve.series.map((s) => s.metric)).toEqual(['e2el_p99', 'slo_attainment']);
    // Without stored records there is no trend chart: the capacity charts alone.
    expect(blocks).toHaveLength(2);
    const grid = loadGrid(RATES);
    for (const [index, block] of blocks.entries()) {
      const series = curve.series[index]!;
      const chart = parsed(block);
      expect(block).toContain(`title "serve/capacity · ${series.metric} against load"`);
      expect(chart).toMatchObject({ xLabel: 'request_rate (requests/s)', xMin: 1, xMax: 8 });
      expect(chart.lines.every((line) => line.length === grid.length)).toBe(true);
      // The SLO line, the curves (baseline, this run) last, after any spike.
      expect(chart.palette.slice(-3)).toEqual([SLO, BLUE, RED]);
      const [slo, before, now] = chart.lines.slice(-3);
      expect(new Set(slo)).toEqual(new Set([series.limit]));
      // Each curve passes through the mean of its runs at every load of the sweep.
      for (const [line, points] of [
        [before!, series.baseline],
        [now!, series.current],
      ] as const) {
        for (const point of points) {
          const at = grid.findIndex((load) => Math.abs(load - point.load) < 1e-9);
          expect(Math.abs(line[at]! - point.value)).toBeLessThanOrEqual(
            Math.abs(point.value) * 5e-4,
          );
        }
      }
    }
    expect(parsed(blocks[0]!).yLabel).toBe('ms');
    expect(parsed(blocks[1]!).yLabel).toBe('percent');
  });

  it('marks both capacities on the chart of the objective that set them, and only there', () => {
    // On both sides the attainment falls below 90% (between 4 and 6 req/s) before the P99
    // E2E latency reaches 1500 ms: the attainment set both capacities.
    expect(capacitySetters(curve)).toEqual({ baseline: 1, current: 1 });
    const [latency, attainment] = blocks.map(parsed);
    expect(latency!.palette).toEqual([SLO, BLUE, RED]);
    expect(latency!.lines).toHaveLength(3);
    // Spikes (baseline, this run) first, then the SLO line and the curves.
    expect(attainment!.palette).toEqual([BLUE, RED, SLO, BLUE, RED]);
    const [baseSpike, nowSpike] = attainment!.lines;
    expectSpike(
      baseSpike!,
      curve.series[1]!.limit,
      attainment!.yMin,
      curve.capacity.baseline!.value,
    );
    expectSpike(nowSpike!, curve.series[1]!.limit, attainment!.yMin, curve.capacity.current!.value);
    const [base, now] = [curve.capacity.baseline!.value, curve.capacity.current!.value];
    expect(comment).toContain(
      '<sub>🟦 baseline · 🟥 this run (mean of the runs at each load) · ⬛ SLO e2el_p99 ≤ 1500 ms. 🟦 🟥 capacity set by slo_attainment.</sub>',
    );
    expect(comment).toContain(
      `<sub>🟦 baseline · 🟥 this run (mean of the runs at each load) · ⬛ SLO slo_attainment ≥ 90%. Spikes to the load axis (each side's mean over its passes): 🟦 capacity ${formatValue(base)} requests/s (baseline) and 🟥 capacity ${formatValue(now)} requests/s (this run), both set by this objective.</sub>`,
    );
    expect(comment.match(/set by this objective/g)).toHaveLength(1);
  });

  it('marks each side on its own chart when different objectives set them', async () => {
    const split = splitSides();
    const { capacity } = split.capacityCurve!;
    expect(capacitySetters(split.capacityCurve!)).toEqual({ baseline: 0, current: 1 });
    const comment = renderComment(reportOf([split]));
    const blocks = mermaidBlocks(comment);
    const [latency, attainment] = blocks.map(parsed);
    // The baseline's spike on the latency's chart, this run's on the attainment's.
    expect(latency!.palette).toEqual([BLUE, SLO, BLUE, RED]);
    expect(attainment!.palette).toEqual([RED, SLO, BLUE, RED]);
    expectSpike(latency!.lines[0]!, 1500, latency!.yMin, capacity.baseline!.value);
    expectSpike(attainment!.lines[0]!, 90, attainment!.yMin, capacity.current!.value);
    expect(comment).toContain(
      `⬛ SLO e2el_p99 ≤ 1500 ms. Spike to the load axis (its mean over the passes): 🟦 capacity 5.167 requests/s (baseline), set by this objective. 🟥 capacity set by slo_attainment.</sub>`,
    );
    expect(comment).toContain(
      `⬛ SLO slo_attainment ≥ 90%. Spike to the load axis (its mean over the passes): 🟥 capacity ${formatValue(capacity.current!.value)} requests/s (this run), set by this objective. 🟦 capacity set by e2el_p99.</sub>`,
    );
    const { drawn, errors } = await draw(blocks, 'split');
    expect(errors).toEqual([]);
    expect(drawn.map((lines) => lines.map((l) => l.stroke))).toEqual([
      [BLUE, SLO, BLUE, RED],
      [RED, SLO, BLUE, RED],
    ]);
    // Each spike reaches as low as the lowest point of any line: down to the load axis.
    for (const lines of drawn) {
      const bottom = Math.max(...lines[0]!.points.map((p) => p[1]));
      for (const line of lines.slice(1)) {
        expect(Math.max(...line.points.map((p) => p[1]))).toBeLessThanOrEqual(bottom);
      }
    }
  });

  it('says under the charts the capacity as the gate judged it', () => {
    const capacity = judged(SLOWER);
    expect(capacity.current!).toBeLessThan(capacity.baseline!);
    expect(comment).toContain(
      `**Capacity** ${formatValue(capacity.current)} requests/s (baseline ${formatValue(capacity.baseline)}, change ${formatChange(capacity.change)}), from 3 pass(es) of the sweep.`,
    );
    expect(comment).toMatch(
      /\*\*Capacity\*\* 4\.\d{3} requests\/s \(baseline 5\.\d{3}, change −1\d\.\d%\)/,
    );
    // After the charts, before the per-run values.
    const at = (text: string) => comment.indexOf(text);
    expect(at('**Capacity**')).toBeGreaterThan(comment.lastIndexOf('```mermaid'));
    expect(at('**Capacity**')).toBeLessThan(at('<summary>Runs and per-run values</summary>'));
    expect(mermaidBlocks(renderMarkdown(reportOf([SLOWER])))).toEqual(blocks);
  });

  it('is drawn by Mermaid: the SLO line level, this run’s capacity left of the baseline’s', async () => {
    const { drawn, errors } = await draw(blocks, 'slower');
    expect(errors).toEqual([]);
    expect(drawn.map((lines) => lines.map((l) => l.stroke))).toEqual([
      [SLO, BLUE, RED],
      [BLUE, RED, SLO, BLUE, RED],
    ]);
    for (const [index, lines] of drawn.entries()) {
      const [slo, before, now] = lines.slice(-3);
      expect(new Set(slo!.points.map((p) => p[1])).size).toBe(1);
      // At 6 req/s this run's latency is higher (drawn higher), its attainment lower.
      const at6 = loadGrid(RATES).findIndex((load) => load === 6);
      const [y, yBefore] = [now!.points[at6]![1], before!.points[at6]![1]];
      if (index === 0) expect(y).toBeLessThan(yBefore);
      else expect(y).toBeGreaterThan(yBefore);
    }
    // Both spikes reach down to the same bottom; this run's lies left of the baseline's.
    const [baseSpike, nowSpike] = drawn[1]!;
    const lowest = (line: DrawnLine) => line.points.reduce((a, b) => (b[1] > a[1] ? b : a));
    expect(lowest(nowSpike!)[1]).toBe(lowest(baseSpike!)[1]);
    expect(lowest(nowSpike!)[0]).toBeLessThan(lowest(baseSpike!)[0]);
  });
});

describe('the capacity charts of a comment, as GitHub shows them', () => {
  it('puts each side’s spike on the chart of the objective that set it, the legend under it saying so', async () => {
    // cmark-gfm renders the comment as GitHub does, in a comment box 1012 px wide.
    const markdown = renderComment(reportOf([SLOWER, splitSides()]));
    const body = execFileSync('cmark-gfm', CMARK_GFM_ARGS, { input: markdown, encoding: 'utf8' });
    const mermaid = pathToFileURL(join(process.cwd(), MERMAID)).href;
    const file = join(SCREENSHOTS, 'comment.html');
    await writeFile(file, commentPage(body, mermaid, 1012));
    const { page, errors } = await chromium.page();
    await page.setViewport({ width: 1012, height: 800 });
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => document.body.dataset.drawn === 'true', { timeout: 60_000 });
    const charts = await page.evaluate(() =>
      [...document.querySelectorAll('.mermaid')].map((chart) => ({
        title: chart.querySelector('svg text.chart-title, svg g.chart-title text')?.textContent,
        strokes: [...chart.querySelectorAll('path[fill="none"]')]
          .map((path) => path.getAttribute('stroke') ?? '')
          .filter((stroke) => !/^#1313|^#333/.test(stroke)),
        legend: chart.nextElementSibling?.textContent ?? '',
      })),
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'comment-capacity.png'), fullPage: true });
    await page.close();
    expect(errors).toEqual([]);
    expect(charts.map((c) => c.strokes)).toEqual([
      // serve/capacity: both capacities set by the attainment.
      [SLO, BLUE, RED],
      [BLUE, RED, SLO, BLUE, RED],
      // split/capacity: the baseline's by the latency, this run's by the attainment.
      [BLUE, SLO, BLUE, RED],
      [RED, SLO, BLUE, RED],
    ]);
    expect(charts.map((c) => /capacity set by (\w+)/.exec(c.legend)?.[1])).toEqual([
      'slo_attainment',
      undefined,
      'slo_attainment',
      'e2el_p99',
    ]);
    expect(charts.map((c) => c.legend.match(/🟦|🟥/g)!.join(' '))).toEqual([
      '🟦 🟥 🟦 🟥',
      '🟦 🟥 🟦 🟥',
      '🟦 🟥 🟦 🟥',
      '🟦 🟥 🟥 🟦',
    ]);
    expect(charts[1]!.legend).toContain('(this run), both set by this objective.');
  });
});

/** Per request TTFT P99 ≤ 10 s: the sweep never crosses it. */
const LOOSE = {
  objectives: [{ metric: 'ttft' as const, limitMs: 10_000, percentile: 99 }],
  attainment: 0.9,
};

describe('the capacity chart at the edges', () => {
  it('says "≥" when the SLO held at every load, and marks the highest load', async () => {
    const report = judgedCapacity(
      capacityResult({ saturation: 10, slo: LOOSE }),
      capacityResult({ saturation: 10, slo: LOOSE, sweep: 'serve' }),
    );
    expect(report.capacityCurve!.capacity.current).toEqual({ value: 8, atLeast: true });
    const comment = renderComment(reportOf([report]));
    expect(comment).toMatch(
      /\*\*Capacity\*\* ≥ 8\.000 requests\/s \(baseline ≥ 8\.000, change ±0\.0%\), from \d pass\(es\) of the sweep\./,
    );
    const curve = report.capacityCurve!;
    expect(curve.series.map((s) => s.metric)).toEqual(['ttft_p99']);
    expect(comment).toContain(
      "⬛ SLO ttft_p99 ≤ 10000 ms. Spikes to the load axis (each side's mean over its passes): 🟦 capacity ≥ 8.000 requests/s (baseline) and 🟥 capacity ≥ 8.000 requests/s (this run) at the highest load: the SLO held at every load, and this objective came closest to failing.</sub>",
    );
    const [block] = mermaidBlocks(comment);
    const { lines } = parsed(block!);
    // Both spikes drop at the last point of the axis: the highest load.
    for (const spike of lines.slice(0, 2)) {
      expect(spike.slice(0, -1).every((v) => v === 10_000)).toBe(true);
      expect(spike.at(-1)).toBeLessThan(10_000);
    }
    // A second objective with more room left at 8 req/s: its chart names the first's.
    const roomier = { ...curve.series[0]!, metric: 'ttft_p90', limit: 20_000 };
    const two = { ...curve, series: [curve.series[0]!, roomier] };
    expect(capacitySetters(two)).toEqual({ baseline: 0, current: 0 });
    const both = renderComment(reportOf([{ ...report, capacityCurve: two }]));
    expect(both).toContain(
      "⬛ SLO ttft_p90 ≤ 20000 ms. 🟦 🟥 capacity marked on ttft_p99's chart (the SLO held at every load).</sub>",
    );
    expect(parsed(mermaidBlocks(both)[1]!).palette).toEqual([SLO, BLUE, RED]);
    const blocks = [block!];
    const { errors } = await draw(blocks, 'at-least');
    expect(errors).toEqual([]);
  });

  it('draws this run alone when there is no baseline, or the baseline swept other loads', () => {
    const alone = judgedCapacity(capacityResult({ saturation: 9 }), undefined);
    // No baseline, no baseline's capacity to mark.
    expect(capacitySetters(alone.capacityCurve!)).toEqual({ baseline: undefined, current: 1 });
    const first = renderComment(reportOf([alone]));
    const [latency, attainment] = mermaidBlocks(first);
    expect(parsed(latency!).palette).toEqual([SLO, RED]);
    expect(parsed(attainment!).palette).toEqual([RED, SLO, RED]);
    expect(first).toContain('⬛ SLO e2el_p99 ≤ 1500 ms. 🟥 capacity set by slo_attainment.</sub>');
    expect(first).toMatch(
      /\*\*Capacity\*\* 4\.\d{3} requests\/s \(no baseline\), from 3 pass\(es\) of the sweep\./,
    );
    expect(first).toContain('<sub>🟥 this run (mean of the runs at each load) · ⬛ SLO');
    expect(first).not.toContain('swept over other loads');

    const fewer = capacityResult({ saturation: 10, rates: [1, 2, 4, 6] });
    const other = renderComment(
      reportOf([judgedCapacity(capacityResult({ saturation: 9 }), fewer)]),
    );
    expect(mermaidBlocks(other).map((block) => parsed(block).palette)).toEqual([
      [SLO, RED],
      [RED, SLO, RED],
    ]);
    expect(other).toContain('The baseline was swept over other loads: not drawn.');
    // The capacity line still compares both sides, as the gate judged them.
    expect(other).toMatch(/\(baseline \d\.\d{3}, change [−+]\d+\.\d%\)/);
  });

  it('keeps metric names and units from a config or a report.json out of the markup', async () => {
    const evil =
      'x"]\n%%{init: {"securityLevel": "loose"}}%%\n```\n<img src=x onerror=alert(1)> @everyone $x$ [a](https://evil.example)';
    const curve = structuredClone(SLOWER.capacityCurve!) as CapacityCurve;
    curve.unit = evil;
    curve.series = curve.series.map((series) => ({ ...series, metric: evil, unit: evil }));
    const hostile: BenchmarkReport = {
      ...SLOWER,
      name: evil,
      capacityCurve: curve,
      metrics: SLOWER.metrics.map((m) => ({ ...m, unit: evil })),
    };
    const comment = renderComment(reportOf([hostile]));
    const blocks = mermaidBlocks(comment);
    expect(blocks).toHaveLength(2);
    for (const block of blocks) {
      expect(block).not.toMatch(/%%|<img|```|"securityLevel"/);
    }
    expect(
      blocks.map((block) => block.split('\n').filter((line) => line.startsWith('  line [')).length),
    ).toEqual([3, 5]);
    const outside = comment.replace(/^```mermaid\n[\s\S]*?\n```$/gm, '');
    expect(outside).not.toContain('<img');
    expect(outside).not.toMatch(/@everyone|\]\(https:\/\/evil|\$x\$/);
    expect(outside).toContain('&lt;img src=x onerror=alert(1)&gt; @\u200Beveryone &#36;x&#36;');
    const { drawn, errors } = await draw(blocks);
    expect(errors).toEqual([]);
    expect(drawn.map((lines) => lines.length)).toEqual([3, 5]);
  });

  it('draws at most six objectives and says where the others are', () => {
    const curve = structuredClone(SLOWER.capacityCurve!);
    curve.series = [...curve.series, ...curve.series, ...curve.series, ...curve.series];
    const comment = renderComment(reportOf([{ ...SLOWER, capacityCurve: curve }]));
    expect(mermaidBlocks(comment)).toHaveLength(6);
    expect(comment).toContain('2 more objective(s) not drawn: report.json has every curve.');
  });

  it('is left out with the other charts when a comment would be too big', () => {
    const many = reportOf(
      Array.from({ length: 16 }, (_, i) => ({ ...SLOWER, name: `serve-${i}/capacity` })),
    );
    const full = renderMarkdown(many);
    expect(full.length).toBeGreaterThan(COMMENT_LIMIT);
    expect(mermaidBlocks(full)).toHaveLength(32);
    const shortened = renderComment(many);
    expect(shortened.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(mermaidBlocks(shortened)).toHaveLength(0);
    expect(shortened).not.toContain('**Capacity**');
    expect(shortened).toContain('Left out: the charts');
  });
});

describe('the grid of loads', () => {
  it('puts every load of a sweep on a grid point when it can', () => {
    const grid = loadGrid([1, 2, 4, 6, 8]);
    expect(grid[0]).toBe(1);
    expect(grid.at(-1)).toBe(8);
    expect(grid.length).toBeGreaterThanOrEqual(61);
    for (const load of [2, 4, 6]) expect(grid.some((g) => Math.abs(g - load) < 1e-9)).toBe(true);
    expect(
      loadGrid([0.5, 1, 2, 16]).filter((g) => [0.5, 1, 2, 16].includes(Number(g.toFixed(9)))),
    ).toHaveLength(4);
    // Loads no even grid of up to 121 points meets: 81 points.
    expect(loadGrid([1, Math.PI, 7])).toHaveLength(81);
  });

  it('interpolates between the points around a load', () => {
    const points = [
      { load: 1, value: 100 },
      { load: 3, value: 300 },
      { load: 4, value: 1000 },
    ];
    expect(interpolate(points, 1)).toBe(100);
    expect(interpolate(points, 2)).toBe(200);
    expect(interpolate(points, 3.5)).toBe(650);
    expect(interpolate(points, 4)).toBe(1000);
  });
});

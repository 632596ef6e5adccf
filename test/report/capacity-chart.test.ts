/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The capacity chart in the comment: per objective of a sweep's SLO, latency (or the
// attainment) against load for the baseline and this run, the SLO line and each side's
// capacity, drawn by the real Mermaid in Debian's headless Chromium as GitHub draws a
// ```mermaid block; under it the capacity as the gate judged it. Names and units from a
// config or a report.json cannot break out of the chart or the legend.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkReport, CapacityCurve } from '../../src/model.js';
import { interpolate, loadGrid } from '../../src/report/capacity-chart.js';
import { formatChange, formatValue } from '../../src/report/numbers.js';
import { COMMENT_LIMIT, renderComment, renderMarkdown } from '../../src/report/markdown.js';
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

describe('the capacity chart of a sweep', () => {
  const comment = renderComment(reportOf([SLOWER]));
  const blocks = mermaidBlocks(comment);
  const curve = SLOWER.capacityCurve!;

  it('is one chart per objective: both curves through their loads, the SLO line, both capacities', () => {
    expect(curve.series.map((s) => s.metric)).toEqual(['e2el_p99', 'slo_attainment']);
    // Without stored records there is no trend chart: the capacity charts alone.
    expect(blocks).toHaveLength(2);
    for (const [index, block] of blocks.entries()) {
      const series = curve.series[index]!;
      const chart = parsed(block);
      expect(block).toContain(`title "serve/capacity · ${series.metric} against load"`);
      expect(chart).toMatchObject({ xLabel: 'request_rate (requests/s)', xMin: 1, xMax: 8 });
      // Spikes (baseline, this run), the SLO line, the curves (baseline, this run).
      expect(chart.palette).toEqual([BLUE, RED, SLO, BLUE, RED]);
      const [baseSpike, nowSpike, slo, before, now] = chart.lines;
      const grid = loadGrid(RATES);
      expect(chart.lines.every((line) => line.length === grid.length)).toBe(true);
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
      // A spike is the SLO line but at the capacity, where it drops to the bottom of the axis.
      for (const [spike, mark] of [
        [baseSpike!, curve.capacity.baseline!],
        [nowSpike!, curve.capacity.current!],
      ] as const) {
        const dropped = spike.flatMap((value, i) => (value === series.limit ? [] : [i]));
        expect(dropped).toHaveLength(1);
        expect(spike[dropped[0]!]).toBe(chart.yMin);
        expect(Math.abs(grid[dropped[0]!]! - mark.value)).toBeLessThanOrEqual(
          (grid[1]! - grid[0]!) / 2,
        );
      }
    }
    expect(parsed(blocks[0]!).yLabel).toBe('ms');
    expect(parsed(blocks[1]!).yLabel).toBe('percent');
    expect(comment).toContain(
      "<sub>🟦 baseline · 🟥 this run (mean of the runs at each load) · ⬛ SLO e2el_p99 ≤ 1500 ms; a spike down to the load axis marks each side's capacity.</sub>",
    );
    expect(comment).toContain('⬛ SLO slo_attainment ≥ 90%;');
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
    for (const [index, lines] of drawn.entries()) {
      expect(lines.map((l) => l.stroke)).toEqual([BLUE, RED, SLO, BLUE, RED]);
      const [baseSpike, nowSpike, slo, before, now] = lines;
      expect(new Set(slo!.points.map((p) => p[1])).size).toBe(1);
      const lowest = (line: DrawnLine) => line.points.reduce((a, b) => (b[1] > a[1] ? b : a));
      // Both spikes reach down to the same bottom; this run's lies left of the baseline's.
      expect(lowest(nowSpike!)[1]).toBe(lowest(baseSpike!)[1]);
      expect(lowest(nowSpike!)[0]).toBeLessThan(lowest(baseSpike!)[0]);
      // At 6 req/s this run's latency is higher (drawn higher), its attainment lower.
      const at6 = loadGrid(RATES).findIndex((load) => load === 6);
      const [y, yBefore] = [now!.points[at6]![1], before!.points[at6]![1]];
      if (index === 0) expect(y).toBeLessThan(yBefore);
      else expect(y).toBeGreaterThan(yBefore);
    }
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
    expect(comment).toContain('(🟦 🟥 at the highest load: the SLO held at every load)');
    const [block] = mermaidBlocks(comment);
    const { lines } = parsed(block!);
    // Both spikes drop at the last point of the axis: the highest load.
    for (const spike of lines.slice(0, 2)) {
      expect(spike.slice(0, -1).every((v) => v === 10_000)).toBe(true);
      expect(spike.at(-1)).toBeLessThan(10_000);
    }
    const { errors } = await draw([block!], 'at-least');
    expect(errors).toEqual([]);
  });

  it('draws this run alone when there is no baseline, or the baseline swept other loads', () => {
    const first = renderComment(
      reportOf([judgedCapacity(capacityResult({ saturation: 9 }), undefined)]),
    );
    const [block] = mermaidBlocks(first);
    expect(parsed(block!).palette).toEqual([RED, SLO, RED]);
    expect(first).toMatch(
      /\*\*Capacity\*\* 4\.\d{3} requests\/s \(no baseline\), from 3 pass\(es\) of the sweep\./,
    );
    expect(first).toContain('<sub>🟥 this run (mean of the runs at each load) · ⬛ SLO');
    expect(first).not.toContain('swept over other loads');

    const fewer = capacityResult({ saturation: 10, rates: [1, 2, 4, 6] });
    const other = renderComment(
      reportOf([judgedCapacity(capacityResult({ saturation: 9 }), fewer)]),
    );
    expect(parsed(mermaidBlocks(other)[0]!).palette).toEqual([RED, SLO, RED]);
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
      expect(block.split('\n').filter((line) => line.startsWith('  line ['))).toHaveLength(5);
    }
    const outside = comment.replace(/^```mermaid\n[\s\S]*?\n```$/gm, '');
    expect(outside).not.toContain('<img');
    expect(outside).not.toMatch(/@everyone|\]\(https:\/\/evil|\$x\$/);
    expect(outside).toContain('&lt;img src=x onerror=alert(1)&gt; @\u200Beveryone &#36;x&#36;');
    const { drawn, errors } = await draw(blocks);
    expect(errors).toEqual([]);
    expect(drawn.map((lines) => lines.length)).toEqual([5, 5]);
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

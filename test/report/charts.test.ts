/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The comment's Mermaid charts: drawn by the real Mermaid (the npm package, in Debian's
// headless Chromium), the way GitHub draws a ```mermaid block; names from benchmarks
// cannot break out of them; they are the first thing a comment too big leaves out.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import type { BenchmarkReport, MetricTrends, PercentileCurve } from '../../src/model.js';
import { latencyCurveOf, trendOf } from '../../src/report/chart-data.js';
import { COMMENT_LIMIT, renderComment, renderMarkdown } from '../../src/report/markdown.js';
import { mermaidText } from '../../src/report/mermaid.js';
import { launchChromium, type Chromium } from '../support/chromium.js';
import { benchmark, reportOf } from './support.js';

const MERMAID = 'node_modules/mermaid/dist/mermaid.min.js';

const trend: MetricTrends = {
  at: [
    '2026-11-01T03:00:00.000Z',
    '2026-11-02T03:00:00.000Z',
    '2026-11-02T15:00:00.000Z',
    '2026-11-03T03:00:00.000Z',
    '2026-11-22T00:00:00.000Z',
  ],
  metrics: [
    // The support's baselines: throughput 110, latency_p99 111.
    { id: 'throughput', unit: 'queries/s', values: [110, 111, 109, 110.5, 96.8] },
    { id: 'latency_p99', unit: 'ms', values: [111, 112, 110, 111, 128] },
  ],
};
const curve: PercentileCurve = {
  id: 'latency_p50',
  unit: 'ms',
  percentiles: [1, 5, 10, 25, 50, 75, 90, 95, 99],
  baseline: [80, 85, 88, 95, 100, 106, 115, 120, 140],
  current: [81, 86, 90, 99, 108, 118, 130, 140, 170],
};

function charted(name: string, extra: Partial<BenchmarkReport> = {}): BenchmarkReport {
  return benchmark(
    name,
    { throughput: -0.12, latency_p99: 0.153 },
    { trend, latencyCurve: curve, ...extra },
  );
}

function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)\n```$/gm)].map((m) => m[1]!);
}

interface Drawn {
  /** Per drawn line: its colour and its points (SVG coordinates, y grows downwards). */
  lines: { stroke: string; points: [number, number][] }[];
  title: string;
  /** The x axis labels that show text, left to right, with where they are drawn. */
  xLabels: { text: string; left: number; right: number }[];
}

let chromium: Chromium;
beforeAll(async () => {
  chromium = await launchChromium();
});
afterAll(async () => {
  await chromium?.close();
});

/** Each block drawn by Mermaid in Chromium, as GitHub's renderer would. Throws on a parse error. */
async function draw(blocks: string[]): Promise<{ drawn: Drawn[]; errors: string[] }> {
  const { page, errors } = await chromium.page();
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ path: MERMAID });
  const drawn = await page.evaluate(async (texts: string[]) => {
    const mermaid = (globalThis as unknown as { mermaid: MermaidApi }).mermaid;
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    const out: Drawn[] = [];
    for (const [index, text] of texts.entries()) {
      const { svg } = await mermaid.render(`chart${index}`, text);
      const holder = document.createElement('div');
      holder.innerHTML = svg;
      document.body.append(holder);
      const lines = [...holder.querySelectorAll('path[fill="none"]')]
        .filter((path) => !/^#1313|^#333/.test(path.getAttribute('stroke') ?? ''))
        .map((path) => ({
          stroke: path.getAttribute('stroke') ?? '',
          points: (path.getAttribute('d') ?? '')
            .replace(/^M/, '')
            .split('L')
            .map((pair) => pair.split(',').map(Number) as [number, number]),
        }))
        .filter((line) => line.points.length > 1 && line.points.every((p) => p.length === 2));
      const title = holder.querySelector('text')?.textContent ?? '';
      const xLabels = [...holder.querySelectorAll('.bottom-axis .label text')]
        .map((text) => ({ text: text.textContent ?? '', box: text.getBoundingClientRect() }))
        .filter(({ text }) => text.replace(/\u200B/g, '') !== '')
        .map(({ text, box }) => ({ text, left: box.left, right: box.right }));
      out.push({ lines, title, xLabels });
    }
    return out;
  }, blocks);
  await page.close();
  return { drawn, errors };
}

interface MermaidApi {
  initialize(config: object): void;
  render(id: string, text: string): Promise<{ svg: string }>;
}

describe('the charts of a benchmark', () => {
  const report = reportOf([charted('llama-3.1-8b')]);
  const comment = renderComment(report);
  const blocks = mermaidBlocks(comment);

  it('are two xy charts in the comment and the job summary, each with its legend', () => {
    expect(blocks).toHaveLength(2);
    expect(blocks.every((b) => b.includes('\nxychart-beta\n'))).toBe(true);
    expect(mermaidBlocks(renderMarkdown(report))).toEqual(blocks);
    expect(comment).toContain(
      '🟦 throughput · 🟧 latency_p99, the last 4 stored records and this run',
    );
    expect(comment).toContain('🟦 baseline · 🟥 this run');
  });

  it('are drawn by Mermaid: the trend in % of the baseline, this run last', async () => {
    const { drawn, errors } = await draw(blocks);
    expect(errors).toEqual([]);
    const [trendChart, curveChart] = drawn;
    expect(trendChart!.lines.map((l) => l.stroke)).toEqual(['#55acee', '#f4900c']);
    for (const line of trendChart!.lines) expect(line.points).toHaveLength(5);
    const [throughput, p99] = trendChart!.lines;
    // This run's −12% throughput sits lowest (largest y), its +15% P99 highest.
    const lastY = (line: Drawn['lines'][number]) => line.points.at(-1)![1];
    expect(lastY(throughput!)).toBe(Math.max(...throughput!.points.map((p) => p[1])));
    expect(lastY(p99!)).toBe(Math.min(...p99!.points.map((p) => p[1])));
    // The x axis labels are one per point, unique, this run last.
    expect(blocks[0]).toContain('x-axis ["11-01", "11-02", "11-02 (2)", "11-03", "this run"]');

    expect(curveChart!.lines.map((l) => l.stroke)).toEqual(['#55acee', '#dd2e44']);
    const [before, now] = curveChart!.lines;
    expect(before!.points).toHaveLength(9);
    // This run's p99 is slower: drawn above the baseline's.
    expect(now!.points.at(-1)![1]).toBeLessThan(before!.points.at(-1)![1]);
  });

  it('label the dates of a long trend without overlapping them, every point still drawn', async () => {
    const day = (n: number) => new Date(Date.UTC(2026, 10, 1 + n, 3)).toISOString();
    const nights = 20;
    const long: MetricTrends = {
      at: [...Array.from({ length: nights }, (_, n) => day(n)), '2026-11-22T00:00:00.000Z'],
      metrics: [
        {
          id: 'throughput',
          unit: 'queries/s',
          values: Array.from({ length: nights + 1 }, (_, n) => 110 + (n % 3)),
        },
      ],
    };
    const [block] = mermaidBlocks(renderComment(reportOf([charted('long', { trend: long })])));
    const { drawn, errors } = await draw([block!]);
    expect(errors).toEqual([]);
    const { lines, xLabels } = drawn[0]!;
    expect(lines[0]!.points).toHaveLength(nights + 1);
    expect(xLabels.at(-1)!.text).toBe('this run');
    expect(xLabels[0]!.text).toMatch(/^11-\d\d$/);
    expect(xLabels.length).toBeGreaterThanOrEqual(5);
    for (const [index, label] of xLabels.slice(1).entries()) {
      expect(label.left, `${label.text} after ${xLabels[index]!.text}`).toBeGreaterThan(
        xLabels[index]!.right + 4,
      );
    }
  });

  it('keep names from benchmarks from breaking out of the chart', async () => {
    const evil =
      'x"]\n%%{init: {"securityLevel": "loose"}}%%\n```\n<img src=x onerror=alert(1)> @everyone';
    const text = renderComment(reportOf([charted(evil)]));
    const evilBlocks = mermaidBlocks(text);
    expect(evilBlocks).toHaveLength(2);
    for (const block of evilBlocks) {
      expect(block).not.toContain('%%');
      expect(block).not.toContain('<img');
      expect(block).not.toContain('```');
    }
    const { drawn, errors } = await draw(evilBlocks);
    expect(errors).toEqual([]);
    expect(drawn[0]!.lines).toHaveLength(2);
    expect(mermaidText('a"b`c%%d<e>\nf')).toBe('a b c d e f');
  });

  it('are left out first when a comment would be too big, and kept in the summary', () => {
    const many = reportOf(
      Array.from({ length: 22 }, (_, i) => charted(`model-${i}`, { verdict: 'regression' })),
    );
    const full = renderMarkdown(many);
    expect(full.length).toBeGreaterThan(COMMENT_LIMIT);
    expect(mermaidBlocks(full)).toHaveLength(44);
    const shortened = renderComment(many);
    expect(shortened.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(mermaidBlocks(shortened)).toHaveLength(0);
    expect(shortened).toContain('Left out: the charts');
    // Charts go before the per-run values do.
    expect(shortened).toContain('<summary>Runs and per-run values</summary>');
  });
});

describe('chart data', () => {
  const result = benchmark('b').result!;
  const record = (day: number, event: string, throughput: number): BaselineRecord =>
    createRecord({
      gateKey: 'g',
      result: {
        ...result,
        metrics: result.metrics.map((m) =>
          m.id === 'throughput' ? { ...m, values: [throughput, throughput] } : m,
        ),
      },
      commit: 'a'.repeat(40),
      branch: event === 'pull_request' ? 'feature' : 'main',
      event,
      runId: day,
      verdict: 'pass',
      createdAt: new Date(Date.UTC(2026, 10, day)),
    });

  it('takes the newest default-branch records, oldest first, then this run', () => {
    const history = [
      record(5, 'schedule', 105),
      record(4, 'pull_request', 999),
      record(3, 'push', 103),
      record(2, 'schedule', 102),
      record(1, 'schedule', 101),
    ];
    const trendData = trendOf(benchmark('b', { throughput: 0.1 }), history, 'now', 3)!;
    expect(trendData.at).toEqual([
      '2026-11-02T00:00:00.000Z',
      '2026-11-03T00:00:00.000Z',
      '2026-11-05T00:00:00.000Z',
      'now',
    ]);
    const throughput = trendData.metrics.find((m) => m.id === 'throughput')!;
    expect(throughput.values.slice(0, 3)).toEqual([102, 103, 105]);
    expect(throughput.values[3]).toBeCloseTo(110 * 1.1);
    // Only gated metrics: tokens_per_second has no threshold.
    expect(trendData.metrics.map((m) => m.id)).not.toContain('tokens_per_second');
    expect(trendOf(benchmark('b'), [], 'now')).toBeUndefined();
  });

  it('takes numpy-linear percentiles of both sides’ request latencies', () => {
    const samples = (scale: number) => [Array.from({ length: 101 }, (_, i) => i * scale)];
    const side = (scale: number) => ({
      ...result,
      metrics: [
        {
          id: 'latency_p50',
          unit: 'ms',
          direction: 'lower-is-better' as const,
          values: [1],
          samples: samples(scale),
        },
      ],
    });
    const drawn = latencyCurveOf(side(2), side(1))!;
    expect(drawn.percentiles).toEqual([1, 5, 10, 25, 50, 75, 90, 95, 99]);
    expect(drawn.baseline).toEqual([1, 5, 10, 25, 50, 75, 90, 95, 99]);
    expect(drawn.current).toEqual([2, 10, 20, 50, 100, 150, 180, 190, 198]);
    expect(latencyCurveOf(side(1), { ...result, metrics: [] })).toBeUndefined();
  });
});

/// <reference lib="dom" />
// A 20-benchmark comment looked at as a reader sees it: rendered by GitHub's Markdown
// renderer (cmark-gfm) in a GitHub-like comment, its charts drawn by Mermaid, in headless
// Chromium (scripts/pictures/comment-page.ts). It opens with one line per benchmark, its verdict,
// worst change and profile link side by side; the details are folded away, and only a
// benchmark that needs attention is open.

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkReport, MetricTrends } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { CMARK_GFM_ARGS, commentPage } from '../../scripts/pictures/comment-page.js';
import { launchChromium, type Chromium } from '../support/chromium.js';
import { benchmark, reportOf } from './support.js';

const REGRESSED = 7;
const UNPROFILED = 12;
const artifactUrl = (index: number) => `https://github.com/o/r/actions/runs/42/artifacts/${index}`;

/** 20 nightly records and this run: the trend chart of every benchmark. */
const trend: MetricTrends = {
  at: [
    ...Array.from({ length: 20 }, (_, n) => new Date(Date.UTC(2026, 9, 20 + n, 3)).toISOString()),
    '2026-11-22T00:00:00.000Z',
  ],
  metrics: [
    {
      id: 'throughput',
      unit: 'queries/s',
      values: Array.from({ length: 21 }, (_, n) => 110 + (n % 3)),
    },
  ],
};

function twentyBenchmarks(): BenchmarkReport[] {
  return Array.from({ length: 20 }, (_, index) => {
    const name = `llama-${String(index).padStart(2, '0')}`;
    const report = benchmark(
      name,
      index === REGRESSED ? { throughput: -0.12 } : { throughput: 0.004 },
      {
        trend,
        artifact: { name: `perf-gate-${name}`, url: artifactUrl(index), size: 9_000_000 },
      },
    );
    // Profiling off for this one: its artifact holds logs and results only.
    if (index === UNPROFILED)
      report.profile = {
        ...report.profile!,
        status: 'not-requested',
        note: 'profile: off',
        ntffFiles: [],
        neffFiles: [],
      };
    return report;
  });
}

interface Seen {
  height: number;
  /** The first table's rows, cell texts. */
  overview: string[][];
  overviewTop: number;
  /** Top of each link to an artifact, by its href, and the link's text. */
  links: { href: string; text: string; top: number }[];
  details: { open: boolean; summary: string }[];
}

const ROOT = resolve(import.meta.dirname, '..', '..');

let chromium: Chromium;
let work: string;
beforeAll(async () => {
  chromium = await launchChromium();
  work = await mkdtemp(join(tmpdir(), 'perf-gate-comment-'));
});
afterAll(async () => {
  await chromium?.close();
  await rm(work, { recursive: true, force: true });
});

/** The page of one comment as GitHub renders it (cmark-gfm), 1012 px wide like its comment column. */
function pageOf(markdown: string): string {
  const body = execFileSync('cmark-gfm', CMARK_GFM_ARGS, { input: markdown, encoding: 'utf8' });
  const mermaid = pathToFileURL(join(ROOT, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js'));
  return commentPage(body, mermaid.href, 1012);
}

/** The comment as Chromium lays it out, once Mermaid has drawn its charts. */
async function look(markdown: string): Promise<{ seen: Seen; errors: string[] }> {
  const file = join(work, 'comment.html');
  await writeFile(file, pageOf(markdown));
  const { page, errors } = await chromium.page();
  await page.setViewport({ width: 1012, height: 800 });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => document.body.dataset.drawn === 'true', { timeout: 60_000 });
  const seen = await page.evaluate(() => {
    const top = (element: Element) => element.getBoundingClientRect().top + window.scrollY;
    const table = document.querySelector('.markdown-body table')!;
    return {
      height: document.body.scrollHeight,
      overview: [...table.querySelectorAll('tr')].map((row) =>
        [...row.querySelectorAll('th, td')].map((cell) => cell.textContent!.trim()),
      ),
      overviewTop: top(table),
      links: [...document.querySelectorAll('a[href*="/artifacts/"]')].map((a) => ({
        href: a.getAttribute('href')!,
        text: a.textContent!.trim(),
        top: top(a),
      })),
      details: [...document.querySelectorAll('.markdown-body > details')].map((d) => ({
        open: (d as HTMLDetailsElement).open,
        summary: d.querySelector('summary')!.textContent!.trim(),
      })),
    };
  });
  await page.close();
  return { seen, errors };
}

describe('a comment of 20 benchmarks in the browser', () => {
  it('opens with an overview: each benchmark, its verdict, worst change and profile link', async () => {
    const { seen, errors } = await look(renderComment(reportOf(twentyBenchmarks())));
    expect(errors).toEqual([]);
    const [header, ...rows] = seen.overview;
    expect(header).toEqual(['Benchmark', 'Verdict', 'Worst change', 'Profile']);
    expect(rows).toHaveLength(20);
    expect(rows[REGRESSED]).toEqual([
      'llama-07',
      '❌ regression',
      'throughput −12.0%',
      '1 NTFF, 1 NEFF',
    ]);
    expect(rows[UNPROFILED]![3]).toBe('—');
    // Above the fold: the verdict of every benchmark and the regression's profile.
    expect(seen.overviewTop).toBeLessThan(400);
    const profile = seen.links.find((l) => l.href === artifactUrl(REGRESSED))!;
    expect(profile.text).toBe('1 NTFF, 1 NEFF');
    expect(profile.top).toBeLessThan(1200);
    // No link reads as a profile where none was uploaded.
    const unprofiled = seen.links.filter((l) => l.href === artifactUrl(UNPROFILED));
    expect(unprofiled.map((l) => l.text)).toEqual([`perf-gate-llama-${UNPROFILED}`]);
  });

  it('folds the details away, the regression open, and stays a few screens tall', async () => {
    const { seen } = await look(renderComment(reportOf(twentyBenchmarks())));
    expect(seen.details.filter((d) => d.summary.startsWith('llama-'))).toHaveLength(20);
    const open = seen.details.filter((d) => d.open).map((d) => d.summary);
    expect(open).toEqual(['llama-07 — ❌ regression · throughput −12.0%']);
    // Before the overview and the folding, this comment was about 23,000 px tall.
    expect(seen.height).toBeLessThan(5_000);
  });
});

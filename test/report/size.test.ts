// GitHub rejects a comment over 65,536 characters and a step summary over 1 MiB. A report
// too big for either is shortened, least important parts first, never mid-table or mid-tag.

import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { configView } from '../../src/report/config-view.js';
import {
  COMMENT_LIMIT,
  renderComment,
  renderMarkdown,
  type RenderOptions,
} from '../../src/report/markdown.js';
import {
  expectWellFormed,
  gateConfig,
  reportOf,
  sweepReport,
  variantName,
  withSummaryLink,
} from './support.js';

const REGRESSED = [7, 150, 299];
const IMPROVED = [20];
const SUMMARY_URL = 'https://github.com/o/r/actions/runs/42#summary-99';

const report = sweepReport(300, REGRESSED, IMPROVED);
const options: RenderOptions = {
  config: configView(gateConfig(report.benchmarks.map((b) => b.name))),
  summaryUrl: SUMMARY_URL,
};
const full = renderMarkdown(report, options);

const heading = (index: number) => `<summary><b>${variantName(index)}</b> — `;
const has = {
  runValues: (text: string) => text.includes('<summary>Runs and per-run values</summary>'),
  config: (text: string) => text.includes('<summary>Configuration</summary>'),
  unchangedRows: (text: string) => /^\| latency_p50 .*✅ unchanged/m.test(text),
  everyBenchmark: (text: string) => report.benchmarks.every((_, i) => text.includes(heading(i))),
  passedBenchmark: (text: string) =>
    report.benchmarks.some(
      (b, i) => b.verdict === 'pass' && !IMPROVED.includes(i) && text.includes(heading(i)),
    ),
  note: (text: string) => text.includes("> ✂️ **Shortened to fit GitHub's size limit.**"),
};

describe('a sweep of 300 variants', () => {
  it('is complete in the job summary, which stays under 1 MiB', () => {
    expect(Buffer.byteLength(full)).toBeLessThanOrEqual(1024 * 1024);
    expect(full.length).toBeGreaterThan(COMMENT_LIMIT);
    expect(has.everyBenchmark(full)).toBe(true);
    expect(has.runValues(full) && has.config(full)).toBe(true);
    expect(has.note(full)).toBe(false);
  });

  const comment = renderComment(report, options);

  it('fits a comment, keeping every regression and improvement', () => {
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    for (const index of [...REGRESSED, ...IMPROVED]) expect(comment).toContain(heading(index));
    expect(comment).toContain('## ❌ neuron-perf-gate: performance regression');
    expectWellFormed(comment);
  });

  it('says what it left out and links the job summary', () => {
    expect(has.note(comment)).toBe(true);
    const note = comment.split('\n').find((line) => line.startsWith('> ✂️'))!;
    expect(note).toContain('the per-run values, the configuration');
    expect(note).toMatch(/\d+ benchmarks that passed/);
    expect(note).toContain(`the [job summary](${SUMMARY_URL})`);
    expect(note).toContain('still ranked in their sweep table');
  });

  it('drops only as many passed benchmarks as it must', () => {
    const dropped = Number(/(\d+) benchmarks that passed/.exec(comment)![1]);
    const shown = report.benchmarks.filter((_, i) => comment.includes(heading(i))).length;
    expect(shown + dropped).toBe(300);
    expect(shown).toBeGreaterThan(REGRESSED.length + IMPROVED.length);
  });

  it('still ranks every variant', () => {
    const ranking = comment.slice(comment.indexOf('### Sweep sweep: variants by throughput'));
    for (const b of report.benchmarks) expect(ranking).toContain(`| ${b.sweep!.variant} `);
  });
});

describe('shortening order', () => {
  const limits = Array.from({ length: 24 }, (_, i) => Math.round(2_000 + (i / 23) * full.length));

  it.each(limits)(
    'within %i characters: fits, whole, least important parts gone first',
    (limit) => {
      const text = renderComment(report, { ...options, limit });
      expect(text.length).toBeLessThanOrEqual(limit);
      expectWellFormed(text);
      if (text === full) return;
      expect(has.note(text)).toBe(true);
      expect(has.runValues(text)).toBe(false);
      if (!has.config(text) || !has.unchangedRows(text) || !has.everyBenchmark(text)) {
        expect(has.config(text)).toBe(false);
      }
      if (!has.unchangedRows(text) || !has.everyBenchmark(text)) {
        expect(has.unchangedRows(text)).toBe(false);
      }
      if (has.passedBenchmark(text)) {
        for (const index of [...REGRESSED, ...IMPROVED]) expect(text).toContain(heading(index));
      }
    },
  );

  it('returns the full report when it fits', () => {
    expect(renderComment(report, { ...options, limit: full.length })).toBe(full);
  });

  it('keeps no more than fits even for an absurd limit', () => {
    for (const limit of [0, 10, 60, 300]) {
      expect(renderComment(report, { ...options, limit }).length).toBeLessThanOrEqual(limit);
    }
  });
});

describe('where the full report is', () => {
  const small = sweepReport(40, [3]);
  const note = (r: GateReport, o: RenderOptions = {}) =>
    renderComment(r, { limit: 20_000, ...o })
      .split('\n')
      .find((line) => line.startsWith('> ✂️'))!;

  it('prefers the summary URL given, then the report link, then the workflow run', () => {
    expect(note(small, { summaryUrl: SUMMARY_URL })).toContain(`[job summary](${SUMMARY_URL})`);
    const linked = withSummaryLink(small, 'https://github.com/o/r/actions/runs/42/summary');
    expect(note(linked)).toContain('[job summary](https://github.com/o/r/actions/runs/42/summary)');
    expect(note(small)).toContain(
      'the job summary of the [workflow run](https://github.com/o/r/actions/runs/42)',
    );
  });

  it('points the job summary to report.json', () => {
    const text = renderMarkdown(small, { limit: 20_000 });
    expect(text).toContain(
      'The full report is in the `report.json` of the [workflow run](https://github.com/o/r/actions/runs/42)',
    );
  });
});

describe('the job summary limit', () => {
  it('counts UTF-8 bytes, since emoji and dashes take more than one', () => {
    const small = sweepReport(20, [2]);
    const whole = renderMarkdown(small);
    const bytes = Buffer.byteLength(whole);
    expect(bytes).toBeGreaterThan(whole.length);
    const limit = whole.length + 1;
    const text = renderMarkdown(small, { limit });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limit);
    expect(has.note(text)).toBe(true);
  });

  it('shortens a first run without any baseline by leaving out benchmarks from the end', () => {
    const first = reportOf(
      sweepReport(300).benchmarks.map((b) => ({
        ...b,
        verdict: 'no-baseline' as const,
        metrics: b.metrics.map((m) => ({
          ...m,
          baseline: null,
          change: null,
          verdict: 'new' as const,
        })),
      })),
    );
    const text = renderComment(first);
    expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(text).toMatch(/\d+ benchmarks without a baseline/);
    expect(text).toContain(heading(0));
    expect(text).not.toContain(heading(299));
    expectWellFormed(text);
  });
});

import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { buildGateReport } from '../../src/report/build.js';
import { codeSpan, escapeMarkdown } from '../../src/report/escape.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { formatChange, formatValue } from '../../src/report/numbers.js';

const hostileName =
  'rerank|bs=8 <img src=x onerror=alert(1)> @octo-team `code` [link](http://x) #12';

function reportWith(name: string): GateReport {
  return buildGateReport({
    now: new Date('2026-11-22T00:00:00Z'),
    environment: { instanceType: 'inf2.xlarge', neuronCores: 2, runner: 'inf2 | runner' },
    baselineSource: 'baseline.json',
    benchmarks: [
      {
        name,
        format: 'offline-benchmark',
        verdict: 'regression',
        warnings: [],
        metrics: [
          {
            id: 'throughput',
            unit: 'queries/s',
            direction: 'higher-is-better',
            baseline: 3.17,
            current: 2.93,
            change: 2.93 / 3.17 - 1,
            ci: [-0.09, -0.062],
            method: 'student-t',
            confidence: 0.95,
            threshold: 0.05,
            verdict: 'regression',
            reason: '7.6% lower, beyond the 5% threshold',
          },
          {
            id: 'mfu',
            unit: '%',
            direction: 'higher-is-better',
            baseline: null,
            current: null,
            change: null,
            ci: null,
            method: 'none',
            confidence: 0.95,
            threshold: 0.1,
            verdict: 'missing',
            reason: 'not measured: no profiled run',
          },
        ],
      },
    ],
  });
}

/** Splits a markdown table row into cells the way GitHub does: on unescaped pipes. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/);
}

describe('escapeMarkdown', () => {
  it('neutralises table pipes, HTML, mentions, code spans and links', () => {
    const escaped = escapeMarkdown(hostileName);
    expect(escaped).not.toMatch(/[|<>`@[\]]/);
    expect(escaped).toContain('&#35;12');
    expect(escaped).toContain('&lt;img');
    expect(escaped).toContain('&#64;octo-team');
  });

  it('folds newlines so a name cannot start a new table row', () => {
    expect(escapeMarkdown('a\n| b |\r\nc')).toBe('a &#124; b &#124; c');
  });
});

describe('codeSpan', () => {
  it('uses a fence longer than any backtick run inside', () => {
    expect(codeSpan('a `b` c')).toBe('``a `b` c``');
    expect(codeSpan('plain')).toBe('`plain`');
  });
});

describe('renderMarkdown', () => {
  const markdown = renderMarkdown(reportWith(hostileName));

  it('has a verdict headline and a seven-column table whose rows stay seven columns', () => {
    expect(markdown.split('\n')[0]).toBe('## ❌ neuron-perf-gate: performance regression');
    const rows = markdown
      .split('\n')
      .filter((line) => line.startsWith('| throughput') || line.startsWith('| mfu'));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(cells(row)).toHaveLength(7);
  });

  it('shows figures, the change, the threshold and the verdict', () => {
    const row = markdown.split('\n').find((line) => line.startsWith('| throughput'));
    expect(row && cells(row).map((c) => c.trim())).toEqual([
      'throughput (queries/s)',
      '3.170',
      '2.930',
      '−7.6%',
      '−9.0% to −6.2%',
      '5%',
      '❌ regression',
    ]);
    expect(markdown).toContain('**throughput**: 7.6% lower, beyond the 5% threshold');
  });

  it('marks mfu as not measured', () => {
    const row = markdown.split('\n').find((line) => line.startsWith('| mfu'));
    expect(row).toContain('⚪ not measured');
  });

  it('escapes the benchmark name in the heading and environment values', () => {
    expect(markdown).not.toContain('<img');
    expect(markdown).not.toContain('@octo-team');
    expect(markdown).toContain('inf2 &#124; runner');
  });

  it('puts a failed benchmark output in a fence its own backticks cannot close', () => {
    const report = reportWith('x');
    const failed = {
      ...report.benchmarks[0]!,
      verdict: 'error' as const,
      metrics: [],
      error: 'run 1 (clean) failed: exit code 1\n```\n<b>not bold</b>',
    };
    const text = renderMarkdown({ ...report, verdict: 'error', benchmarks: [failed] });
    expect(text).toContain('💥');
    expect(text).toContain('````text\n```\n<b>not bold</b>\n````');
  });
});

describe('numbers', () => {
  it('writes changes with a sign and values with sensible digits', () => {
    expect(formatChange(0.0812)).toBe('+8.1%');
    expect(formatChange(-0.06)).toBe('−6.0%');
    expect(formatChange(0.00001)).toBe('±0.0%');
    expect(formatChange(null)).toBe('—');
    expect(formatValue(307.123)).toBe('307.1');
    expect(formatValue(3.1577)).toBe('3.158');
    expect(formatValue(1234.5)).toBe('1,235');
    expect(formatValue(2.4, '%')).toBe('2.400%');
  });
});

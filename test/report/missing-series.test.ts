// Series that stopped reporting in a stored night's report: after the open regressions, one
// line per benchmark, environment and last record, with the nights missed and the gate's
// issue; a malformed part of report.json is left out, never shown half.
import { describe, expect, it } from 'vitest';
import type { GateReport, MissingSeriesView } from '../../src/model.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { missingSeriesOf } from '../../src/report/missing-series.js';
import { benchmark, reportOf } from './support.js';

const LAST = { commit: 'abc0123'.padEnd(40, '0'), createdAt: '2026-11-20T03:00:00.000Z' };

function view(benchmarkName: string, metric: string, nightsMissed = 4): MissingSeriesView {
  return {
    benchmark: benchmarkName,
    metric,
    environment: 'inf2.xlarge/2 cores',
    lastSeen: LAST,
    nightsMissed,
  };
}

function withMissing(report: GateReport, series: MissingSeriesView[], issue = true): GateReport {
  return {
    ...report,
    missingSeries: {
      branch: 'main',
      after: 3,
      series,
      ...(issue ? { issue: { number: 7, url: 'https://github.com/o/r/issues/7' } } : {}),
    },
  };
}

describe('series that stopped reporting in the report', () => {
  it('names them after the headline, a benchmark’s metrics on one line, with the issue', () => {
    const report = withMissing(reportOf([benchmark('a')]), [
      view('llama-8b', 'throughput'),
      view('llama-8b', 'latency_p50'),
      view('qwen3', 'ttft_p99', 1),
    ]);
    const text = renderMarkdown(report);
    expect(text).toContain(
      '> 📭 **3 series of `main` stopped reporting** ([#\u200B7](https://github.com/o/r/issues/7)): the gate ran on 3 or more later days without them',
    );
    expect(text).toContain(
      '> - `llama-8b` on inf2.xlarge/2 cores: throughput, latency_p50; last seen `abc0123` (2026-11-20), 4 nights missed',
    );
    expect(text).toContain(
      '> - `qwen3` on inf2.xlarge/2 cores: ttft_p99; last seen `abc0123` (2026-11-20), 1 night missed',
    );
    expect(text.indexOf('stopped reporting')).toBeLessThan(text.indexOf('1 benchmark, 1 passed'));
  });

  it('counts the lines past the eighth', () => {
    const series = Array.from({ length: 10 }, (_, i) => view(`bench-${i}`, 'throughput'));
    const text = renderMarkdown(withMissing(reportOf([benchmark('a')]), series, false));
    expect(text).toContain('`bench-7`');
    expect(text).not.toContain('`bench-8`');
    expect(text).toContain('> - and 2 more');
  });

  it('leaves out what does not read as it should', () => {
    const report = withMissing(reportOf([benchmark('a')]), [view('ok', 'throughput')]);
    const broken = {
      ...report,
      missingSeries: {
        ...report.missingSeries!,
        series: [{ benchmark: 'x' }, view('ok', 'throughput')],
      },
    } as unknown as GateReport;
    expect(missingSeriesOf(broken)?.series).toEqual([view('ok', 'throughput')]);
    const none = {
      ...report,
      missingSeries: { branch: 'main', after: 3, series: [{ metric: 1 }] },
    };
    expect(missingSeriesOf(none as unknown as GateReport)).toBeUndefined();
    expect(renderMarkdown(reportOf([benchmark('a')]))).not.toContain('stopped reporting');
  });
});

// The comment's start-up line: what told ready, the warm start and the cold one with what it
// compiled, each with its change; nothing without startup:, and report.json's values read
// as untrusted (a pattern shown as code, a non-number dropped).
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, Comparison, StartupSummary } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { startupLine } from '../../src/report/startup-line.js';
import { benchmark, comparison, expectWellFormed, reportOf } from './support.js';

const seconds = (id: string, baseline: number | null, current: number): Comparison =>
  comparison(id, baseline === null ? 0 : current / baseline - 1, {
    unit: 's',
    direction: 'lower-is-better',
    baseline,
    current,
    threshold: 0.15,
    ...(baseline === null ? { change: null, verdict: 'new' as const } : {}),
  });

function timed(startup: StartupSummary, metrics: Comparison[]): BenchmarkReport {
  const report = benchmark('rerank');
  return {
    ...report,
    metrics: [...report.metrics, ...metrics],
    result: { ...report.result!, startup },
  };
}

describe('startupLine', () => {
  it('says what told ready, the warm start and the cold start with their changes', () => {
    const report = timed(
      {
        readyLog: 'init engine .* took',
        seconds: [9.1, 0.82, 0.83],
        compiledRuns: [1],
        cold: { seconds: 4.0, compileSeconds: 315, graphsCompiled: 4, log: 'x' },
      },
      [
        seconds('benchmark_startup', 0.8, 0.825),
        seconds('cold_startup', null, 4.0),
        seconds('cold_compile_time', null, 315),
      ],
    );
    expect(startupLine(report)).toBe(
      '⏱️ **Start-up**: launch → first output line matching `init engine .* took`: **0.825 s (+3.1%)** ' +
        '(each warm clean run; run 1 compiled and is left out); cold (an empty compile cache): ' +
        '**4.000 s** (4 graphs compiled, compiling 5 min 15 s).',
    );
    const comment = renderComment(reportOf([report]));
    expect(comment).toContain('⏱️ **Start-up**');
    expectWellFormed(comment);
  });

  it('shows the figure the table shows: the geometric mean its change is computed from', () => {
    const warm = {
      ...seconds('benchmark_startup', 1.0, 1.1),
      change: 0.2,
      basis: { estimator: 'geometric-mean' as const, baseline: 1.0, current: 1.2 },
    };
    expect(startupLine(timed({ seconds: [1.3, 1.1, 1.2] }, [warm]))).toContain(
      '**1.200 s (+20.0%)**',
    );
  });

  it('says when a start was not measured, and nothing without startup:', () => {
    const report = timed(
      { seconds: [null], cold: { graphsCompiled: 0, log: 'x', note: 'the cold start failed' } },
      [],
    );
    expect(startupLine(report)).toBe(
      '⏱️ **Start-up**: launch → first line of its result file: not measured (see the warnings); ' +
        'cold: not measured (the cold start failed).',
    );
    expect(startupLine(benchmark('rerank'))).toBeUndefined();
  });

  it("says what a server's clean starts loaded from the compile cache, beside its cold start", () => {
    const cold = { seconds: 9.5, compileSeconds: 318, graphsCompiled: 4, log: 'x' };
    const served = (serverStarts: StartupSummary['serverStarts']) =>
      startupLine(
        timed({ seconds: [], cold, ...(serverStarts ? { serverStarts } : {}) }, [
          seconds('cold_startup', 9.0, 9.5),
        ]),
      );
    expect(served({ starts: 1, graphsLoaded: 4, graphsCompiled: 0 })).toBe(
      "⏱️ **Start-up**: the server's clean start (server_startup) loaded 4 graphs from the " +
        'compile cache and compiled none; cold (an empty compile cache): **9.500 s (+5.6%)** ' +
        '(4 graphs compiled).',
    );
    expect(served({ starts: 2, graphsLoaded: 4, graphsCompiled: 4 })).toContain(
      "the server's 2 clean starts (server_startup) loaded 4 graphs from the compile cache and compiled 4 graphs;",
    );
    // No start of the client's own is timed: nothing said of one.
    expect(served(undefined)).toBe(
      '⏱️ **Start-up**: cold (an empty compile cache): **9.500 s (+5.6%)** (4 graphs compiled).',
    );
    const odd = { starts: 1, graphsLoaded: 'all', graphsCompiled: 0 } as unknown;
    expect(served(odd as StartupSummary['serverStarts'])).not.toContain('server_startup');
  });

  it('reads report.json as untrusted: the pattern as code, odd values dropped', () => {
    const report = timed(
      {
        readyLog: 'a`b](http://x)',
        seconds: [1],
        compiledRuns: ['1' as unknown as number],
        cold: { seconds: 2, graphsCompiled: 'many' as unknown as number, log: 'x' },
      },
      [seconds('benchmark_startup', null, 1), seconds('cold_startup', null, 2)],
    );
    const line = startupLine(report)!;
    expect(line).toContain('``a`b](http://x)``');
    expect(line).toContain('(each clean run)');
    expect(line).toContain('**2.000 s**.');
  });
});

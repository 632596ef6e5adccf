// The comment's confirmation line says what the confirmation added: clean runs, restarts of
// the server (server_startup), or both; and report.json keeps the restarts as it read them.
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, Confirmation } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { benchmark, expectWellFormed, reportOf } from './support.js';

function confirmed(confirmation: Partial<Confirmation>): BenchmarkReport {
  return benchmark(
    'served',
    {},
    {
      confirmation: {
        runs: 0,
        verdictBefore: 'pass',
        metricsBefore: [],
        ...confirmation,
      },
    },
  );
}

describe('the confirmation line', () => {
  it('says how many confirmation restarts ran when only the start-up was open', () => {
    const comment = renderComment(reportOf([confirmed({ restarts: 5 })]));
    expectWellFormed(comment);
    expect(comment).toContain(
      '🔁 **Confirmed** with 5 confirmation restart(s) of the server (server_startup: every clean start judged together): the pass verdict stands.',
    );
  });

  it('says both when runs and restarts were taken', () => {
    const comment = renderComment(reportOf([confirmed({ runs: 2, restarts: 10 })]));
    expect(comment).toContain(
      '🔁 **Confirmed** with 2 more clean run(s), judged on all runs together, and 10 confirmation restart(s) of the server',
    );
  });

  it('says nothing of restarts when none ran', () => {
    const comment = renderComment(reportOf([confirmed({ runs: 2 })]));
    expect(comment).toContain(
      '🔁 **Confirmed** with 2 more clean run(s), judged on all runs together: ',
    );
    expect(comment).not.toContain('restart');
  });
});

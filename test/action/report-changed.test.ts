// Whether a gate run is worth a new pull request comment: MFU left unprofiled on purpose
// (profile: on-change) is no change; MFU that a profile should have measured is one.
import { describe, expect, it } from 'vitest';
import { reportChanged } from '../../src/action/github-publish.js';
import type { BenchmarkReport, Comparison } from '../../src/model.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { benchmark, reportOf } from '../report/support.js';

const NOTE = 'not profiled: profile: on-change and no timing metric moved';

/** A benchmark whose timings held and whose MFU (measured in the baseline) is missing now. */
function withoutMfu(profile: BenchmarkReport['profile']): BenchmarkReport {
  const held = benchmark('llama');
  const metrics: Comparison[] = held.metrics.map((m) =>
    m.id === 'mfu'
      ? {
          ...m,
          current: null,
          change: null,
          ci: null,
          verdict: 'missing',
          reason: `not measured: ${NOTE}`,
        }
      : { ...m, verdict: 'unchanged' },
  );
  return { ...held, verdict: 'pass', metrics, ...(profile ? { profile } : {}) };
}

const skipped = {
  status: 'not-requested' as const,
  note: NOTE,
  ntffFiles: [],
  neffFiles: [],
  totalBytes: 0,
  metrics: {},
};

describe('reportChanged', () => {
  it('is false when only MFU is missing because the run was not profiled on purpose', () => {
    expect(reportChanged(reportOf([withoutMfu(skipped)]))).toBe(false);
  });

  it('is true when MFU the baseline has is missing after a profile that failed', () => {
    const failed = { ...skipped, status: 'failed' as const, note: 'the profiler crashed' };
    expect(reportChanged(reportOf([withoutMfu(failed)]))).toBe(true);
  });
});

describe('the profile block of a run not profiled on purpose', () => {
  it('says why MFU and MBU have no value', () => {
    const text = renderMarkdown(reportOf([withoutMfu(skipped)]));
    expect(text).toContain(`#### Profile\n\nMFU and MBU are not measured: ${NOTE}.`);
    expect(text).not.toContain('NTFF');
  });

  it('is left out when profiling was not asked for at all', () => {
    const silent = { ...skipped, note: undefined };
    expect(renderMarkdown(reportOf([withoutMfu(silent)]))).not.toContain('#### Profile');
  });
});

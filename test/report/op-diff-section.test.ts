// "Where the device time went" in the comment: only for a benchmark whose gated metric moved
// beyond its threshold; the op that explains most of the change first, with its share; the
// top ops folded (the rest counted, left to report.json); collectives and the roofline; op
// names from the profiler (pull-request code) shown as code, never as markdown.
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, EngineName, OpTime } from '../../src/model.js';
import { profileDiffOf } from '../../src/profile/opdiff/profile-diff.js';
import { renderComment } from '../../src/report/markdown.js';
import { COMMENT_TOP_OPS, opDiffSection } from '../../src/report/op-diff-section.js';
import { benchmark, expectWellFormed, outsideCode, reportOf } from './support.js';

function ops(slow: Record<string, number> = {}, names = 40): OpTime[] {
  return Array.from({ length: names }, (_, i) => {
    const op = `Layer[${i}]/mlp.down_proj/aten.mm`;
    const engine: EngineName = i % 2 ? 'tensor' : 'vector';
    return {
      op,
      deviceNs: 100_000 * (1 + (i % 7) / 100) * (slow[op] ?? 1),
      calls: 1,
      hbmBytes: 1_000_000,
      instructions: { [engine]: 10 },
    };
  });
}

function withDiff(report: BenchmarkReport, slow: Record<string, number>): BenchmarkReport {
  const base = {
    ops: ops(),
    roofline: { mfu: 4.88, maxAchievable: 23.2 },
    collectives: [
      {
        operation: 'AllReduce',
        algorithm: 'Ring',
        replicaGroup: '[[0,1]]',
        count: 224,
        totalMs: 0.089,
        busGBps: 110.5,
      },
    ],
  };
  const head = { ...base, ops: ops(slow), roofline: { mfu: 4.61, maxAchievable: 23.2 } };
  return {
    ...report,
    profileDiff: profileDiffOf(base, head, "the baseline's profile (its newest record, abc1234)")!,
  };
}

describe('opDiffSection', () => {
  it('leads with the op that explains the change and its share, the rest folded', () => {
    const report = withDiff(benchmark('rerank', { latency_p50: 0.12 }), {
      'Layer[3]/mlp.down_proj/aten.mm': 3,
    });
    const section = opDiffSection(report)!;
    expect(section).toMatch(
      /^\*\*Where the device time went\*\* — `Layer\[3\]\/mlp\.down_proj\/aten\.mm`: \+0\.20\d ms, \*\*\d+% of the change\*\*, tensor engine\./,
    );
    expect(section).toContain('<details><summary>Top ops, collectives and roofline</summary>');
    expect(section).toContain("Compared with the baseline's profile (its newest record, abc1234)");
    expect(section).toMatch(/\| AllReduce · Ring · `\[\[0,1\]\]` +\| 224 → 224 \|/);
    expect(section).toContain(
      'Roofline: base MFU 4.880% of 23.20% achievable; head MFU 4.610% of 23.20% achievable.',
    );
  });

  it('shows at most the top ops and counts the rest', () => {
    const slow = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [`Layer[${i}]/mlp.down_proj/aten.mm`, 2]),
    );
    const report = withDiff(benchmark('rerank', { latency_p50: 0.3 }), slow);
    const section = opDiffSection(report)!;
    const rows = section.split('\n').filter((line) => line.startsWith('| `Layer['));
    expect(rows).toHaveLength(COMMENT_TOP_OPS);
    expect(section).toContain(`_${9 - COMMENT_TOP_OPS} more in report.json._`);
  });

  it('is left out when no gated metric moved beyond its threshold', () => {
    const report = withDiff(benchmark('rerank'), { 'Layer[3]/mlp.down_proj/aten.mm': 3 });
    expect(report.metrics.every((m) => m.verdict === 'unchanged')).toBe(true);
    expect(opDiffSection(report)).toBeUndefined();
    expect(renderComment(reportOf([report]))).not.toContain('Where the device time went');
  });

  it('shows an op name with markdown in it as code only', () => {
    const hostile = '<img src=x onerror=alert(1)>|**bold**`tick';
    const base = {
      ops: [...ops(), { op: hostile, deviceNs: 100_000, calls: 1, hbmBytes: 0, instructions: {} }],
    };
    const head = {
      ops: [...ops(), { op: hostile, deviceNs: 400_000, calls: 1, hbmBytes: 0, instructions: {} }],
    };
    const report: BenchmarkReport = {
      ...benchmark('rerank', { latency_p50: 0.2 }),
      profileDiff: profileDiffOf(base, head, 'base')!,
    };
    const comment = renderComment(reportOf([report]));
    expectWellFormed(comment);
    expect(comment).toContain('Where the device time went');
    expect(outsideCode(comment)).not.toContain('<img');
    expect(outsideCode(comment)).not.toContain('**bold**');
  });
});

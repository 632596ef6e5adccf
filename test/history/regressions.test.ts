import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../src/history/analyze.js';
import {
  beyondThreshold,
  findRegressions,
  heldOutRecords,
  seenTheNightBefore,
  type Regression,
} from '../../src/history/regressions.js';
import { detectChangePoints } from '../../src/history/changepoints.js';
import { renderHistoryText, renderRegressionMarkdown } from '../../src/history/render.js';
import type { AcceptanceMark, Series } from '../../src/history/series.js';
import { makeSeries } from './make-series.js';

function named(series: Series, benchmark: string, metric: string): Series {
  return { ...series, id: `gate · ${benchmark} · ${metric} · any`, benchmark, metric };
}

const acceptance = (benchmark: string, at: string, reason: AcceptanceMark['reason']) => ({
  gateKey: 'gate',
  benchmark,
  path: `gate/${benchmark}/accepted.json`,
  at,
  reason,
  records: [],
  environmentKey: 'any',
});

describe('findRegressions', () => {
  it('keeps naming the first bad night of a real step night after night when the nights drift', () => {
    // An 8% slowdown on a machine that drifts (AR(1) night effect, 1% CV, phi 0.8): its
    // regression must keep its first bad night (within the 2 runs an issue is matched
    // by), else its issue would be closed as noise while the step is still there.
    // 40 nights before the step, not 80: each night's analysis confirms the step with 199
    // shuffles and 199 model draws of the whole history, so 80 took 54 s of the 60 s
    // timeout on a loaded machine (40: 22 s); it loses as many, and fails as surely when
    // the shuffles move blocks of 5 nights (9 lost of 10).
    const before = 40;
    let lost = 0;
    for (let s = 0; s < 10; s += 1) {
      const series = makeSeries({
        nights: before + 30,
        runs: 24,
        runCv: 0.05,
        nightCv: 0.01,
        nightPhi: 0.8,
        level: (n) => (n >= before ? 1.08 : 1),
        seed: `kept-${s}`,
      });
      let seen = false;
      for (let n = before + 2; n <= before + 30; n += 1) {
        const analysis = detectChangePoints({ ...series, points: series.points.slice(0, n) });
        const near = findRegressions([analysis], []).find(
          (r) => r.status === 'open' && Math.abs(r.firstBad.index - before) <= 2,
        );
        if (near) seen = true;
        else if (seen) {
          lost += 1;
          break;
        }
      }
    }
    // Shuffling blocks of nights under drift lost 8 in 10 of them (the tail test then
    // named a later night every night); a few losses are the drift's own doing.
    expect(lost).toBeLessThanOrEqual(2);
  });

  it('makes a regression, and asks for its issue, only of a persisting step at least the metric threshold', () => {
    // A 3% slowdown, plain to the history at 24 runs a night: a change point, but smaller
    // than the 5% a pull request would be failed for, so no regression; 8% is one.
    const regressionOf = (step: number, threshold: number | null | undefined) => {
      const series = makeSeries({
        nights: 45,
        runs: 24,
        level: (n) => (n >= 30 ? 1 - step : 1),
        direction: 'higher-is-better',
        seed: `threshold-${step}`,
      });
      const withThreshold = {
        ...named(series, 'a', 'throughput'),
        ...(threshold !== undefined ? { threshold } : {}),
      };
      const { analyses, regressions } = analyzeHistory({
        series: [withThreshold],
        acceptances: [],
        skipped: 0,
      });
      expect(analyses[0]!.changePoints.map((cp) => cp.firstBad.index)).toContain(30);
      expect(regressions.length).toBeLessThanOrEqual(1);
      return regressions[0];
    };
    expect(regressionOf(0.03, 0.05)).toBeUndefined();
    expect(regressionOf(0.08, 0.05)?.persistent).toBe(true);
    // Not gated: shown, never a regression; no threshold known: every step counts.
    expect(regressionOf(0.08, null)).toBeUndefined();
    expect(regressionOf(0.03, undefined)?.persistent).toBe(true);
  });

  it('lists the series past their thresholds and counts those that only agree on the night', () => {
    const level = (n: number) => (n >= 30 ? 1.08 : 1);
    const series = ['latency_p50', 'latency_p99', 'latency_mean'].map((metric, i) => ({
      ...named(makeSeries({ nights: 45, runs: 24, level, seed: `agree-${metric}` }), 'a', metric),
      threshold: [0.05, 0.1, null][i],
    }));
    const { regressions } = analyzeHistory({ series, acceptances: [], skipped: 0 });
    expect(regressions).toHaveLength(1);
    expect(regressions[0]!.changes.map((c) => c.metric)).toEqual(['latency_p50']);
    expect(regressions[0]!.belowThreshold).toBe(2);
    expect(regressions[0]!.consensus.series).toBe(3);
    const issue = renderRegressionMarkdown(regressions[0]!);
    expect(issue.match(/^\| a \|/gm)).toHaveLength(1);
    expect(issue).toContain('2 more series moved on the same night within their thresholds');
    const text = renderHistoryText(analyzeHistory({ series, acceptances: [], skipped: 0 }), 't');
    expect(text).toMatch(/1 series of a, and 2 more series moved on the same night/);
  });

  it('makes one regression of the change points one slowdown causes in every benchmark and metric', () => {
    const level = (n: number) => (n >= 30 ? 1.1 : 1);
    const series = ['a', 'b'].flatMap((benchmark) =>
      ['latency_p50', 'latency_p99'].map((metric) =>
        named(makeSeries({ nights: 45, level, seed: `${benchmark}${metric}` }), benchmark, metric),
      ),
    );
    // Given in reverse: the regression lists its changes by series id all the same.
    const reversed = [...series].reverse();
    const { regressions } = analyzeHistory({ series: reversed, acceptances: [], skipped: 0 });
    expect(regressions).toHaveLength(1);
    const [regression] = regressions;
    expect(regression!.changes.map((c) => c.seriesId)).toEqual(series.map((s) => s.id).sort());
    expect(regression!.id).toBe('gate@run-30');
    expect(regression!.status).toBe('open');
    expect(regression!.changes).toHaveLength(4);
    expect(regression!.benchmarks).toEqual(['a', 'b']);
    expect(regression!.lastGood.runId).toBe('run-29');
  });

  it('lists the changes of one regression by series id, though they start a night apart', () => {
    const at = (night: number) => (n: number) => (n >= night ? 1.1 : 1);
    const series = [
      named(makeSeries({ nights: 45, level: at(31), seed: 'later' }), 'a', 'latency_p50'),
      named(makeSeries({ nights: 45, level: at(30), seed: 'earlier' }), 'b', 'latency_p50'),
    ];
    const { regressions } = analyzeHistory({ series, acceptances: [], skipped: 0 });
    expect(regressions).toHaveLength(1);
    const changes = regressions[0]!.changes;
    expect(changes.map((c) => c.change.firstBad.index)).toEqual([31, 30]);
    expect(changes.map((c) => c.benchmark)).toEqual(['a', 'b']);
  });

  it('closes a regression that a later change point restores, and keeps two apart', () => {
    const level = (n: number) => (n >= 30 && n < 50 ? 1.1 : n >= 70 ? 1.08 : 1);
    const series = [named(makeSeries({ nights: 90, level }), 'a', 'latency_p50')];
    const { regressions } = analyzeHistory({ series, acceptances: [], skipped: 0 });
    expect(regressions.map((r) => [r.firstBad.index, r.status])).toEqual([
      [30, 'restored'],
      [70, 'open'],
    ]);
    expect(regressions[0]!.changes[0]!.restoredBy?.firstBad.index).toBe(50);
  });

  it('counts a regression restored once a later change point wins back half of its step', () => {
    // +10% on night 30; on night 50 the level comes back by 65% of the step, or by 35%.
    const statusAfter = (wonBack: number) => {
      const level = (n: number) => (n >= 50 ? 1 + 0.1 * (1 - wonBack) : n >= 30 ? 1.1 : 1);
      const series = [named(makeSeries({ nights: 70, runs: 12, level }), 'a', 'latency_p50')];
      const { analyses, regressions } = analyzeHistory({ series, acceptances: [], skipped: 0 });
      // Both steps are found either way: only the share won back decides.
      const [step, back] = analyses[0]!.changePoints;
      expect([step?.firstBad.index, step?.direction]).toEqual([30, 'regression']);
      expect(back?.direction).toBe('improvement');
      expect(Math.abs(back!.firstBad.index - 50)).toBeLessThanOrEqual(1);
      expect(regressions).toHaveLength(1);
      return regressions[0]!.status;
    };
    expect(statusAfter(0.65)).toBe('restored');
    expect(statusAfter(0.35)).toBe('open');
  });

  it('closes a regression someone accepted after it began, but not one accept-after took', () => {
    const level = (n: number) => (n >= 30 ? 1.1 : 1);
    const series = [named(makeSeries({ nights: 45, level }), 'a', 'latency_p50')];
    const set = { series, acceptances: [] as AcceptanceMark[], skipped: 0 };
    const late = series[0]!.points[35]!.createdAt;
    const early = series[0]!.points[10]!.createdAt;
    const status = (acceptances: AcceptanceMark[]) =>
      analyzeHistory({ ...set, acceptances }).regressions.map((r) => r.status);
    expect(status([acceptance('a', late, 'manual')])).toEqual(['accepted']);
    expect(status([acceptance('a', late, 'accept-current')])).toEqual(['accepted']);
    expect(status([acceptance('a', late, 'accept-after')])).toEqual(['open']);
    expect(status([acceptance('a', early, 'manual')])).toEqual(['open']);
    expect(status([acceptance('b', late, 'manual')])).toEqual(['open']);
  });

  it('holds the records of an open regression out of the baseline, from its first bad one', () => {
    const level = (n: number) => (n >= 30 ? 1.1 : 1);
    const series = [named(makeSeries({ nights: 45, level }), 'a', 'latency_p50')];
    const analysis = analyzeHistory({ series, acceptances: [], skipped: 0 });
    const held = heldOutRecords(analysis.regressions, analysis.analyses);
    expect([...held.get('a')!]).toEqual(series[0]!.points.slice(30).map((p) => p.path));
    // Nothing once it is no longer open, nor for a series the analyses do not hold.
    const closed = analysis.regressions.map((r) => ({
      ...r,
      changes: r.changes.map((c) => ({ ...c, status: 'restored' as const })),
    }));
    expect(heldOutRecords(closed, analysis.analyses).size).toBe(0);
    expect(heldOutRecords(analysis.regressions, []).size).toBe(0);
  });

  it("counts a step as large as the metric's threshold as beyond it", () => {
    const series = makeSeries({ nights: 3 });
    expect(beyondThreshold({ ...series, threshold: 0.05 }, { change: 0.05 })).toBe(true);
    expect(beyondThreshold({ ...series, threshold: 0.05 }, { change: -0.05 })).toBe(true);
    expect(beyondThreshold({ ...series, threshold: 0.05 }, { change: 0.0499 })).toBe(false);
    expect(beyondThreshold({ ...series, threshold: null }, { change: 0.5 })).toBe(false);
    expect(beyondThreshold({ ...series }, { change: 0.001 })).toBe(true);
  });
});

describe('seenTheNightBefore', () => {
  // An 8% step on night 30 of 45, at 24 runs a night: plain on the night before too.
  const stepped = (level: number) =>
    named(
      makeSeries({ nights: 45, runs: 24, level: (n) => (n >= 30 ? level : 1), seed: 'before' }),
      'a',
      'latency_p50',
    );
  const analyzed = (level: number) =>
    analyzeHistory({ series: [stepped(level)], acceptances: [], skipped: 0 });
  const slower = analyzed(1.08);
  const regression = slower.regressions[0]!;
  /** The regression as if its series had put its first bad night at `index`. */
  const movedTo = (index: number, status: Regression['status'] = 'open'): Regression => ({
    ...regression,
    changes: regression.changes.map((c) => ({
      ...c,
      status,
      change: { ...c.change, firstBad: { ...c.change.firstBad, index } },
    })),
  });

  it('asks whether the night before already showed the regression, within groupRuns nights', () => {
    expect(regression.changes[0]!.change.firstBad.index).toBe(30);
    expect(seenTheNightBefore(slower.analyses, regression)).toBe(true);
    expect(seenTheNightBefore(slower.analyses, movedTo(32))).toBe(true);
    expect(seenTheNightBefore(slower.analyses, movedTo(28))).toBe(true);
    expect(seenTheNightBefore(slower.analyses, movedTo(33))).toBe(false);
    expect(seenTheNightBefore(slower.analyses, movedTo(27))).toBe(false);
  });

  it('is false for a step whose first night was the newest the night before', () => {
    const fresh = named(
      makeSeries({ nights: 45, runs: 24, level: (n) => (n >= 43 ? 1.1 : 1), seed: 'fresh' }),
      'a',
      'latency_p50',
    );
    const { analyses, regressions } = analyzeHistory({
      series: [fresh],
      acceptances: [],
      skipped: 0,
    });
    expect(regressions.map((r) => r.changes[0]!.change.firstBad.index)).toEqual([43]);
    expect(seenTheNightBefore(analyses, regressions[0]!)).toBe(false);
  });

  it('counts neither an improvement on that night, nor a change no longer open, nor an unknown series', () => {
    const faster = analyzed(0.92);
    expect(faster.analyses[0]!.changePoints.map((cp) => cp.direction)).toEqual(['improvement']);
    expect(seenTheNightBefore(faster.analyses, regression)).toBe(false);
    expect(seenTheNightBefore(slower.analyses, movedTo(30, 'restored'))).toBe(false);
    expect(seenTheNightBefore([], regression)).toBe(false);
  });
});

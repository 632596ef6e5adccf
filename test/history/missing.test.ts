// Series that stopped reporting, counted in the gate's own run days: a series is named once
// the gate ran on `after` later days without it; a weekend or a paused gate names nothing.
import { describe, expect, it } from 'vitest';
import { findMissingSeries } from '../../src/history/missing.js';
import type { Series, SeriesPoint } from '../../src/history/series.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 2, 3, 0, 0);

function point(day: number): SeriesPoint {
  return {
    path: `gate/b/${day}.json`,
    commit: day.toString(16).padStart(40, 'a'),
    createdAt: new Date(START + day * DAY).toISOString(),
    runId: `run-${day}`,
    event: 'schedule',
    branch: 'main',
    verdict: 'pass',
    environment: {},
    values: [1],
    mean: 1,
  };
}

function series(
  benchmark: string,
  days: number[],
  environment: Series['environment'] = { instanceType: 'inf2.xlarge' },
  gateKey = 'gate',
): Series {
  const environmentKey = [environment.instanceType, environment.configHash].join('/');
  return {
    id: `${gateKey} · ${benchmark} · latency_p50 · ${environmentKey}`,
    gateKey,
    benchmark,
    metric: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    environmentKey,
    environment,
    points: days.map(point),
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const at = (day: number) => new Date(START + day * DAY + 3_600_000);

describe('findMissingSeries', () => {
  it('names a series once the gate ran on `after` later days without it', () => {
    const kept = series('kept', range(0, 10));
    const stopped = series('stopped', range(0, 7));
    expect(findMissingSeries([kept, stopped], { after: 3, now: at(9) })).toEqual([]);
    const missing = findMissingSeries([kept, stopped], { after: 3, now: at(10) });
    expect(missing).toEqual([
      {
        seriesId: stopped.id,
        gateKey: 'gate',
        benchmark: 'stopped',
        metric: 'latency_p50',
        environmentKey: stopped.environmentKey,
        lastSeen: {
          commit: point(7).commit,
          createdAt: point(7).createdAt,
          runId: 'run-7',
        },
        nightsMissed: 3,
      },
    ]);
  });

  it('counts run days, not calendar days: days without any run are no nights', () => {
    // The gate runs on weekdays only; "stopped" last ran on a Friday (day 4).
    const weekdays = [0, 1, 2, 3, 4, 7, 8, 9, 10, 11];
    const kept = series('kept', weekdays);
    const stopped = series('stopped', [0, 1, 2, 3, 4]);
    expect(findMissingSeries([kept, stopped], { after: 3, now: at(8) })).toEqual([]);
    const [missing] = findMissingSeries([kept, stopped], { after: 3, now: at(11) });
    expect(missing?.nightsMissed).toBe(5);
  });

  it('names nothing when the whole gate stopped, however long ago', () => {
    const a = series('a', range(0, 5));
    const b = series('b', range(0, 5));
    expect(findMissingSeries([a, b], { after: 1, now: at(60) })).toEqual([]);
  });

  it('forgets a series that came back', () => {
    const kept = series('kept', range(0, 12));
    const back = series('back', [...range(0, 5), 12]);
    expect(findMissingSeries([kept, back], { after: 3, now: at(11) })).toHaveLength(1);
    expect(findMissingSeries([kept, back], { after: 3, now: at(12) })).toEqual([]);
  });

  it('does not count days after now', () => {
    const kept = series('kept', range(0, 20));
    const stopped = series('stopped', range(0, 7));
    expect(findMissingSeries([kept, stopped], { after: 3, now: at(9) })).toEqual([]);
  });

  it('is off at after: 0', () => {
    const kept = series('kept', range(0, 10));
    const stopped = series('stopped', range(0, 2));
    expect(findMissingSeries([kept, stopped], { after: 0, now: at(10) })).toEqual([]);
  });

  it('counts each gate on its own run days', () => {
    const other = series('other', range(0, 10), { instanceType: 'inf2.xlarge' }, 'other-gate');
    const stopped = series('stopped', range(0, 3));
    const quiet = series('quiet', range(0, 3));
    expect(findMissingSeries([other, stopped, quiet], { after: 1, now: at(10) })).toEqual([]);
  });

  it('does not name a series whose benchmark config changed (a new series took over)', () => {
    const before = series('b', range(0, 5), { instanceType: 'inf2.xlarge', configHash: 'aaa' });
    const after = series('b', range(6, 10), { instanceType: 'inf2.xlarge', configHash: 'bbb' });
    expect(findMissingSeries([before, after], { after: 3, now: at(10) })).toEqual([]);
  });

  it('does not name a trn2 series from before the LNC was read, taken over by one naming it', () => {
    const before = series('b', range(0, 5), { instanceType: 'trn2.48xlarge', neuronCores: 64 });
    const withLnc = series('b', range(6, 10), {
      instanceType: 'trn2.48xlarge',
      neuronCores: 64,
      logicalNcConfig: 2,
    });
    // Its own series: the key names the LNC (history/series.ts).
    const after = { ...withLnc, id: `${withLnc.id}/LNC 2`, environmentKey: 'trn2.48xlarge/LNC 2' };
    expect(findMissingSeries([before, after], { after: 3, now: at(10) })).toEqual([]);
  });

  it('names a runner type that stopped while another type of the same benchmark runs on', () => {
    const small = series('b', range(0, 5), { instanceType: 'inf2.xlarge' });
    const large = series('b', range(0, 10), { instanceType: 'inf2.48xlarge' });
    const missing = findMissingSeries([small, large], { after: 3, now: at(10) });
    expect(missing.map((m) => m.environmentKey)).toEqual([small.environmentKey]);
    expect(missing[0]?.nightsMissed).toBe(5);
  });

  it('leaves A/B series out', () => {
    const kept = series('kept', range(0, 10));
    const ab: Series = { ...series('ab', range(0, 2)), ab: true };
    expect(findMissingSeries([kept, ab], { after: 3, now: at(10) })).toEqual([]);
  });
});

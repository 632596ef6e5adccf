// Which objective set a sweep's capacity: the one whose mean curve stops holding its SLO
// first as load grows; when every SLO held, the one with the least room at the highest load.

import { describe, expect, it } from 'vitest';
import { settingObjective } from '../../src/derive/setting-objective.js';

const latency = (limit: number, values: number[]) => ({
  limit,
  holds: 'at-most' as const,
  points: values.map((value, i) => ({ load: i + 1, value })),
});
const attainment = (values: number[]) => ({
  limit: 90,
  holds: 'at-least' as const,
  points: values.map((value, i) => ({ load: i + 1, value })),
});

describe('the objective that set the capacity', () => {
  it('is the one whose SLO stops holding first as load grows', () => {
    // The latency crosses 1000 ms at load 2.5, the attainment 90% at 3.5.
    const latencyFirst = [latency(1000, [500, 800, 1200, 1600]), attainment([100, 99, 95, 85])];
    expect(settingObjective({ series: latencyFirst })).toBe(0);
    expect(settingObjective({ series: [...latencyFirst].reverse() })).toBe(1);
  });

  it('puts failing at the lowest load before any crossing', () => {
    const atOnce = [attainment([100, 95, 80, 70]), latency(400, [500, 600, 700, 800])];
    expect(settingObjective({ series: atOnce })).toBe(1);
  });

  it('is the one with the least room at the highest load when every SLO held', () => {
    // 5% of the attainment's limit left against 20% of the latency's.
    const held = [latency(1000, [500, 600, 700, 800]), attainment([100, 99, 97, 94.5])];
    expect(settingObjective({ series: held })).toBe(1);
  });

  it('reads points in any order and passes over an objective without points', () => {
    const shuffled = latency(1000, [500, 800, 1200, 1600]);
    shuffled.points.reverse();
    const empty = { limit: 90, holds: 'at-least' as const, points: [] };
    expect(settingObjective({ series: [empty, attainment([100, 99, 95, 85]), shuffled] })).toBe(2);
  });
});

// The best server setting: the highest median capacity wins, its values become the
// best-setting benchmark's capacity; a setting not measured cannot be best.
import { describe, expect, it } from 'vitest';
import {
  bestSettingInfoOf,
  bestSettingName,
  deriveBestSetting,
  type SettingCapacity,
} from '../../src/derive/best-setting.js';
import { CAPACITY_FORMAT, type BenchmarkResult } from '../../src/model.js';

function capacity(setting: string, values: number[], unit = 'requests/s'): SettingCapacity {
  const result: BenchmarkResult = {
    name: `serve/${setting}/capacity`,
    format: CAPACITY_FORMAT,
    metrics: [{ id: 'capacity', unit, direction: 'higher-is-better', values }],
    runs: values.map((_, i) => ({
      index: i + 1,
      kind: 'clean',
      ok: true,
      durationMs: 1000,
      exitCode: 0,
      timedOut: false,
    })),
  };
  return { setting, params: { 'max-num-seqs': Number(setting.split('-').at(-1)) }, result };
}

function unmeasured(setting: string, reason: string): SettingCapacity {
  return {
    setting,
    params: {},
    result: {
      name: `serve/${setting}/capacity`,
      format: CAPACITY_FORMAT,
      metrics: [],
      runs: [],
      notMeasured: { capacity: { reason, unit: 'requests/s', direction: 'higher-is-better' } },
    },
  };
}

describe('deriveBestSetting', () => {
  it('takes the setting with the highest median capacity, not the highest mean or single run', () => {
    const derived = deriveBestSetting('serve', [
      capacity('seqs-4', [5, 5.1, 5.2]),
      // Mean 6.33 and the highest run, but median 5.0.
      capacity('seqs-8', [4.9, 5.0, 9.1]),
      capacity('seqs-16', [5.4, 5.5, 5.3]),
    ]);
    expect(derived.result.name).toBe(bestSettingName('serve'));
    expect(derived.result.name).toBe('serve/best-setting');
    expect(derived.result.format).toBe(CAPACITY_FORMAT);
    expect(derived.result.metrics).toEqual([
      {
        id: 'capacity',
        unit: 'requests/s',
        direction: 'higher-is-better',
        values: [5.4, 5.5, 5.3],
      },
    ]);
    expect(derived.result.runs).toHaveLength(3);
    const info = bestSettingInfoOf(derived.result)!;
    expect(info.best).toEqual({
      setting: 'seqs-16',
      params: { 'max-num-seqs': 16 },
      capacity: 5.4,
      unit: 'requests/s',
      runs: 3,
    });
    expect(info.runnerUp?.setting).toBe('seqs-4');
    expect(info.runnerUp?.capacity).toBe(5.1);
    expect(derived.warnings).toEqual([]);
  });

  it('keeps the first listed on a tie', () => {
    const derived = deriveBestSetting('serve', [
      capacity('seqs-4', [6, 6]),
      capacity('seqs-8', [6, 6]),
    ]);
    expect(bestSettingInfoOf(derived.result)?.best.setting).toBe('seqs-4');
  });

  it('never names a setting that was not measured, and says which were left out', () => {
    const derived = deriveBestSetting('serve', [
      unmeasured('seqs-16', 'the SLO fails at the lowest load of the sweep already'),
      capacity('seqs-4', [3, 3.1, 3.2]),
      { setting: 'seqs-8', params: {} },
    ]);
    const info = bestSettingInfoOf(derived.result)!;
    expect(info.best.setting).toBe('seqs-4');
    expect(info.runnerUp).toBeUndefined();
    expect(info.notMeasured.map((n) => n.setting)).toEqual(['seqs-16', 'seqs-8']);
    expect(derived.warnings[0]).toContain(
      'not ranked, as not measured: seqs-16 (the SLO fails at the lowest load of the sweep already); seqs-8 (its capacity could not be derived)',
    );
  });

  it('is not measured, with each reason, when no setting was', () => {
    const derived = deriveBestSetting('serve', [
      unmeasured('seqs-4', 'variant rate-1 was not measured'),
      unmeasured('seqs-8', 'variant rate-2 was not measured'),
    ]);
    expect(derived.result.metrics).toEqual([]);
    expect(derived.result.notMeasured?.capacity?.reason).toBe(
      "no setting's capacity was measured, so none can be best (seqs-4: variant rate-1 was not measured; seqs-8: variant rate-2 was not measured)",
    );
    expect(bestSettingInfoOf(derived.result)).toBeUndefined();
  });

  it('does not rank a capacity in another unit', () => {
    const derived = deriveBestSetting('serve', [
      capacity('seqs-4', [3, 3]),
      capacity('seqs-8', [30, 30], 'concurrency'),
    ]);
    expect(bestSettingInfoOf(derived.result)?.best.setting).toBe('seqs-4');
    expect(derived.warnings).toEqual([
      "setting seqs-8: its capacity is in concurrency, the others' in requests/s; it is not ranked",
    ]);
  });
});

// A profiled run the profiler itself warns about, or whose NeuronCore was throttled, is
// named as contaminated with what its tables say; a clean one has no reason.
import { describe, expect, it } from 'vitest';
import { contaminationOf } from '../../src/profile/tables/contamination.js';

describe('contaminationOf', () => {
  it('has no reason for a run without warnings or throttling', () => {
    expect(
      contaminationOf({
        warnings: [],
        throttles: [{ nc_idx: 0, throttle_type: 'all', throttle_active_time_ns: 0 }],
      }),
    ).toEqual([]);
  });

  it('names each warning category once, with its first message and how many more', () => {
    expect(
      contaminationOf({
        warnings: [
          { category: 'Missing Data', message: 'Current NEFF is missing compiler metrics.' },
          { category: 'Missing Data', message: 'Dropped 12 DMA packets.' },
          { category: 'Timestamps', message: 'Clock skew between cores.' },
        ],
        throttles: [],
      }),
    ).toEqual([
      'profiler warning, Missing Data: Current NEFF is missing compiler metrics. (and 1 more)',
      'profiler warning, Timestamps: Clock skew between cores.',
    ]);
  });

  it('names a throttled NeuronCore from the all-types row, not each type again', () => {
    expect(
      contaminationOf({
        warnings: [],
        throttles: [
          { nc_idx: 1, throttle_type: 'activity_0', throttle_active_time_ns: 2_000_000 },
          { nc_idx: 1, throttle_type: 'activity_1', throttle_active_time_ns: 500_000 },
          {
            nc_idx: 1,
            throttle_type: 'all',
            throttle_active_time_ns: 2_500_000,
            throttle_active_time_percent: 0.2,
          },
          { nc_idx: 0, throttle_type: 'all', throttle_active_time_ns: 0 },
        ],
      }),
    ).toEqual(['NeuronCore 1 throttled for 2.50 ms, 20.0% of the time']);
  });

  it('names per-type rows when the profile has no all-types row', () => {
    expect(
      contaminationOf({
        warnings: [],
        throttles: [{ nc_idx: 0, throttle_type: 'activity_0', throttle_active_time_ns: 1_000_000 }],
      }),
    ).toEqual(['NeuronCore 0 throttled for 1.00 ms']);
  });
});

// The simulator's numpy statistics against values numpy 2.4 printed for the same input:
// the last bit matters, because the gate reads the figures the real script would write.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR } from './helpers.js';

interface NumpyStats {
  numpyMean(values: number[]): number;
  numpyPercentile(values: number[], q: number): number;
  pythonSum(values: number[]): number;
}

let stats: NumpyStats;
beforeAll(async () => {
  stats = (await import(
    pathToFileURL(join(SIMULATOR, 'lib', 'numpy-stats.mjs')).href
  )) as NumpyStats;
});

const REFERENCE_TIMES = [
  0.2961, 0.3012, 0.2987, 0.3071, 0.3105, 0.295, 0.334, 0.3972, 0.312, 0.315,
];

describe('numpy-exact statistics of the simulator', () => {
  it('np.percentile interpolates from the upper neighbour when the fraction is >= 0.5', () => {
    // a + (b - a) * t would give 0.36876000000000003 and 0.3449876497891373 here.
    expect(stats.numpyPercentile(REFERENCE_TIMES, 95)).toBe(0.3687599999999999);
    const eleven = [
      0.2754097001964184, 0.29928164083807934, 0.28100430753322275, 0.27793927313713207,
      0.29767079742323876, 0.2869645002427769, 0.30038116004527254, 0.27339514515146973,
      0.26141964072697393, 0.34817632338065513, 0.3162895874654772,
    ];
    expect(stats.numpyPercentile(eleven, 99)).toBe(0.3449876497891374);
    expect(stats.numpyPercentile(REFERENCE_TIMES, 50)).toBe(0.30879999999999996);
    expect(stats.numpyPercentile(REFERENCE_TIMES, 100)).toBe(0.3972);
    expect(stats.numpyPercentile([0.5], 95)).toBe(0.5);
  });

  it('np.mean sums pairwise, Python sum() left to right', () => {
    const twelve = [
      0.3446356777115819, 0.24741008166045558, 0.2920846808428562, 0.31723719929910166,
      0.2888553760005593, 0.35993079279009565, 0.27252356281894646, 0.3180793698038865,
      0.2764437033559066, 0.35334469087268217, 0.3063360263196852, 0.29578199842909214,
    ];
    expect(stats.numpyMean(twelve)).toBe(0.30605526332540406);
    expect(stats.pythonSum(twelve) / 12).toBe(0.30605526332540417);
    // The reference file's total_time is Python's sum (numpy's would be 3.1668).
    expect(stats.pythonSum(REFERENCE_TIMES)).toBe(3.1667999999999994);
  });
});

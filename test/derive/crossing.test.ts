// Where a sweep crosses its SLO: linear interpolation between the loads that bracket it,
// the lowest crossing of the objectives that fail, and the first failure ending the search.
import { describe, expect, it } from 'vitest';
import { capacityOfSweep, type Check, type LoadPoint } from '../../src/derive/crossing.js';

const latency = (value: number, limit = 500): Check => ({ value, limit, holds: 'at-most' });
const share = (value: number, limit = 90): Check => ({ value, limit, holds: 'at-least' });
const point = (load: number, ...checks: Check[]): LoadPoint => ({ load, checks });

describe('capacity of one sweep', () => {
  it('interpolates between the last load that holds and the first that fails', () => {
    // P99 400 ms at 2 req/s, 800 ms at 4: 500 ms is a quarter of the way.
    const sweep = [point(4, latency(800)), point(1, latency(200)), point(2, latency(400))];
    expect(capacityOfSweep(sweep)).toEqual({ kind: 'crossed', value: 2.5 });
  });

  it('takes the lowest crossing of the objectives that fail there', () => {
    // Attainment 95% → 85% crosses 90% halfway (3 req/s); the P99 at 2.5 req/s comes first.
    const sweep = [
      point(1, latency(200), share(99)),
      point(2, latency(400), share(95)),
      point(4, latency(800), share(85)),
    ];
    expect(capacityOfSweep(sweep)).toEqual({ kind: 'crossed', value: 2.5 });
    const looser = sweep.map((p) => point(p.load, latency(p.checks[0]!.value, 1000), p.checks[1]!));
    expect(capacityOfSweep(looser)).toEqual({ kind: 'crossed', value: 3 });
  });

  it('stops at the first failure: a later load that holds again is noise', () => {
    const sweep = [point(1, latency(300)), point(2, latency(600)), point(3, latency(450))];
    expect(capacityOfSweep(sweep)).toEqual({ kind: 'crossed', value: 1 + 200 / 300 });
  });

  it('is at least the highest load when the SLO holds everywhere', () => {
    expect(capacityOfSweep([point(1, latency(100)), point(8, latency(500))])).toEqual({
      kind: 'at-least',
      value: 8,
    });
  });

  it('has no value when even the lowest load fails', () => {
    expect(capacityOfSweep([point(2, latency(900)), point(1, latency(501))])).toEqual({
      kind: 'below-lowest',
      lowest: 1,
    });
  });
});

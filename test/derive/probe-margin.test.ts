// A probe's margin read off a run as the gate reads it: its sign is the SLO's verdict on
// the run (the percentile objectives and goodput.ts's attainment), its size the headroom.
import { describe, expect, it } from 'vitest';

import type { SloSpec } from '../../src/config/slo.js';
import { goodRequests } from '../../src/derive/goodput.js';
import { probeMargin } from '../../src/derive/probe-margin.js';
import type { BenchmarkResult, RequestTable } from '../../src/model.js';
import { seededRandom } from '../../src/stats/rng.js';

const SLO: SloSpec = {
  objectives: [
    { metric: 'ttft', limitMs: 500 },
    { metric: 'tpot', limitMs: 50 },
    { metric: 'e2el', limitMs: 4000, percentile: 99 },
  ],
  attainment: 0.9,
};

const result = (p99: number): BenchmarkResult => ({
  name: 'serve/rate-4',
  format: 'vllm-bench-serve',
  metrics: [{ id: 'e2el_p99', unit: 'ms', direction: 'lower-is-better', values: [p99] }],
  runs: [],
});

function table(ttft: number[], tpot: number[], sent = ttft.length): RequestTable {
  return {
    sent,
    succeeded: ttft.length,
    ttft: Float64Array.from(ttft),
    tpot: Float64Array.from(tpot),
  };
}

describe('a probe’s margin', () => {
  it('is the E2E P99’s headroom when the requests have more', () => {
    const requests = table([100, 100, 100, 100, 100, 100, 100, 100, 100, 100], Array(10).fill(10));
    expect(probeMargin(result(3200), SLO, requests)).toEqual({ margin: 4000 / 3200 - 1 });
  });

  it('is the 9th best request’s headroom of 10 when 90% must meet the objectives', () => {
    const ttft = [100, 100, 100, 100, 100, 100, 100, 100, 400, 900];
    const requests = table(ttft, [10, 10, 10, 10, 10, 10, 10, 10, 45, 10]);
    // The 9th best: ttft 400/500, tpot 45/50 → 0.9 of its limits.
    const margin = probeMargin(result(1000), SLO, requests);
    expect(margin).toEqual({ margin: expect.closeTo(1 / 0.9 - 1, 9) });
    // A failed request counts as one that met nothing: 9 sent of 11 is below 90%.
    expect(
      (probeMargin(result(1000), SLO, table(ttft, Array(10).fill(10), 11)) as { margin: number })
        .margin,
    ).toBeLessThan(0);
  });

  it('holds exactly when goodput.ts counts enough good requests', () => {
    const random = seededRandom('probe-margin');
    for (let trial = 0; trial < 300; trial += 1) {
      const n = 20;
      const scale = 0.5 + random.next() * 8;
      const ttft = Array.from({ length: n }, () => 60 * scale * (0.8 + 0.4 * random.next()));
      const tpot = Array.from({ length: n }, () => 12 * scale * (0.8 + 0.4 * random.next()));
      const requests = table(ttft, tpot);
      const counted = goodRequests(requests, SLO.objectives.slice(0, 2));
      const attained = 'good' in counted && counted.good / n >= 0.9;
      const read = probeMargin(result(1000), SLO, requests);
      expect('margin' in read && read.margin >= 0).toBe(attained);
    }
  });

  it('says why a run cannot be read', () => {
    expect(probeMargin(result(1000), SLO, undefined)).toEqual({
      reason: 'serve/rate-4 lists no requests one by one (--save-detailed)',
    });
    const noP99 = { ...result(1000), metrics: [] };
    expect('reason' in probeMargin(noP99, SLO, table([1], [1]))).toBe(true);
  });
});

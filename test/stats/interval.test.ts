// Reference values for the interval of a relative change: Student's t quantiles (scipy
// t.ppf), Welch's standard error and Welch–Satterthwaite degrees of freedom worked by hand,
// and coverage simulations with fixed seeds.
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';
import { studentTQuantile } from '../../src/stats/distributions.js';
import { changeInterval, MIN_BOOTSTRAP_SAMPLES } from '../../src/stats/interval.js';
import { fUpperTail, logSpread, welchSpread, withMoreRuns } from '../../src/stats/spread.js';
import { percentile } from '../../src/stats/percentile.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

/** scipy.stats.t.ppf(p, df) */
const T_TABLE: [number, number, number][] = [
  [0.975, 1, 12.706204736174698],
  [0.975, 2, 4.302652729749464],
  [0.975, 4, 2.7764451051977987],
  [0.975, 6, 2.4469118511449692],
  [0.975, 16, 2.1199052992210112],
  [0.95, 10, 1.8124611228107335],
  [0.995, 14, 2.976842734370834],
];

function metric(logs: number[]): Metric {
  return {
    id: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    values: logs.map(Math.exp),
  };
}

const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;

describe('Student t quantiles', () => {
  it('match scipy to 9 digits', () => {
    for (const [p, df, expected] of T_TABLE) {
      expect(studentTQuantile(p, df)).toBeCloseTo(expected, 9);
    }
  });
});

describe('standard error and degrees of freedom', () => {
  it("Welch: each side's own variance, Welch–Satterthwaite df (worked by hand)", () => {
    // Variances 1 and 20/3: SE² = 1/3 + 5/3 = 2; df = 2² / ((1/3)²/2 + (5/3)²/3) = 216/53.
    const { se, df } = welchSpread([1, 2, 3], [2, 4, 6, 8]);
    expect(se).toBeCloseTo(Math.SQRT2, 12);
    expect(df).toBeCloseTo(216 / 53, 12);
    // Swapping the sides changes nothing.
    expect(welchSpread([2, 4, 6, 8], [1, 2, 3])).toEqual({ se, df });
    // Sides without any spread: no error, with the pooled degrees of freedom.
    expect(welchSpread([5, 5, 5], [7, 7, 7, 7])).toEqual({ se: 0, df: 5 });
  });

  it('pools one run-to-run variance when the sides scatter alike', () => {
    // Sums of squares 2 and 10 over 6 df: pooled variance 2, SE² = 2 (1/3 + 1/5) = 16/15.
    const { se, df } = logSpread([1, 2, 3], [1, 2, 3, 4, 5])!;
    expect(se).toBeCloseTo(Math.sqrt(16 / 15), 12);
    expect(df).toBe(6);
  });

  it("switches to Welch's when an F test says the variances differ at 1%", () => {
    // F(2, 14) upper 0.5% point is 7.92; a ratio of 100 is far beyond, 2 is not.
    expect(fUpperTail(7.922, 2, 14)).toBeCloseTo(0.005, 4);
    const quiet = [
      0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14,
    ];
    const noisy = [0, 0.5, 1];
    expect(logSpread(noisy, quiet)).toMatchObject(welchSpread(noisy, quiet));
    expect(logSpread([0, 0.05, 0.1], quiet)!.df).toBe(16);
  });

  it('pools when the side that scatters less has too few runs to trust its own variance', () => {
    // Three current runs 100 times quieter than 15 baseline runs: an F test says the
    // variances differ, but three runs' variance says little, and Welch's test would take
    // them as exact (SE² 0.0003 / 3 + 0.0175 / 15); pooled over 16 df instead.
    const quiet = [0, 0.001, 0.002];
    const wide = [
      -0.14, -0.12, -0.1, -0.08, -0.06, -0.04, -0.02, 0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.14,
    ];
    expect(fUpperTail(variance(wide) / variance(quiet), 14, 2)).toBeLessThan(0.005);
    const spread = logSpread(quiet, wide)!;
    expect(spread.df).toBe(16);
    const pooled = (2 * variance(quiet) + 14 * variance(wide)) / 16;
    expect(spread.se).toBeCloseTo(Math.sqrt(pooled * (1 / 3 + 1 / 15)), 12);
    expect(spread.se).toBeGreaterThan(welchSpread(quiet, wide).se * 1.5);
  });
});

describe('the t interval of a change', () => {
  it('is exp(difference of mean logs ± t(0.975, df) × SE) — pooled', () => {
    const current = [0.1, 0.12, 0.08];
    const baseline = [0, 0.02, -0.02, 0.01, -0.01];
    const { ci, method } = changeInterval(metric(current), metric(baseline), {
      confidence: 0.95,
      seed: 's',
    });
    expect(method).toBe('student-t');
    const center = mean(current) - mean(baseline);
    // Sums of squares 0.0008 and 0.001 over 6 df.
    const se = Math.sqrt((0.0018 / 6) * (1 / 3 + 1 / 5));
    expect(ci![0]).toBeCloseTo(Math.expm1(center - 2.4469118511449692 * se), 12);
    expect(ci![1]).toBeCloseTo(Math.expm1(center + 2.4469118511449692 * se), 12);
  });

  it('is exp(difference of mean logs ± t(0.975, Welch df) × Welch SE) when one side is noisy', () => {
    const current = [0, 0.3, 0.6];
    const baseline = [0, 0.01, -0.01, 0.02, -0.02, 0.01, -0.01, 0];
    const { ci } = changeInterval(metric(current), metric(baseline), {
      confidence: 0.95,
      seed: 's',
    });
    const wc = 0.09 / 3;
    const vb = baseline.reduce((s, x) => s + x * x, 0) / 7;
    const wb = vb / 8;
    const df = (wc + wb) ** 2 / (wc ** 2 / 2 + wb ** 2 / 7);
    const half = studentTQuantile(0.975, df) * Math.sqrt(wc + wb);
    expect(ci![0]).toBeCloseTo(Math.expm1(0.3 - half), 12);
    expect(ci![1]).toBeCloseTo(Math.expm1(0.3 + half), 12);
  });
});

describe('coverage, simulated with fixed seeds', () => {
  it('the t interval of 3 runs against 15 holds the true change 95% of the time', () => {
    const random = seededRandom('t coverage');
    const draw = (n: number, shift: number) =>
      Array.from({ length: n }, () => shift + 0.03 * normal(random));
    let covered = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i += 1) {
      const { ci } = changeInterval(metric(draw(3, 0.05)), metric(draw(15, 0)), {
        confidence: 0.95,
        seed: `${i}`,
      });
      const truth = Math.expm1(0.05);
      if (ci![0] <= truth && truth <= ci![1]) covered += 1;
    }
    // Binomial sd at 95% and 4000 trials is 0.34%: a 90% interval lands far outside.
    expect(covered / trials).toBeGreaterThan(0.94);
    expect(covered / trials).toBeLessThan(0.96);
  });

  it('the request bootstrap of one run a side holds the true P50 change about 95% of the time', () => {
    const random = seededRandom('bootstrap coverage');
    const requests = (n: number, scale: number) =>
      Array.from({ length: n }, () => scale * Math.exp(0.3 * normal(random)));
    const p50 = (samples: number[]): Metric => ({
      id: 'latency_p50',
      unit: 'ms',
      direction: 'lower-is-better',
      values: [0],
      samples: [samples],
      percentile: 50,
    });
    let covered = 0;
    const trials = 600;
    for (let i = 0; i < trials; i += 1) {
      const { ci, method } = changeInterval(p50(requests(301, 1.1)), p50(requests(301, 1)), {
        confidence: 0.95,
        seed: `${i}`,
        replicates: 1000,
      });
      expect(method).toBe('request-bootstrap');
      if (ci![0] <= 0.1 && 0.1 <= ci![1]) covered += 1;
    }
    // Binomial sd at 95% and 600 trials is 0.9%; a 90% bootstrap covers about 90%.
    expect(covered / trials).toBeGreaterThan(0.925);
    expect(covered / trials).toBeLessThan(0.975);
  });
});

describe('an interval without the wild runs (withoutRuns)', () => {
  const time = (values: number[], extra: Partial<Metric> = {}): Metric => ({
    id: 'time',
    unit: 'ms',
    direction: 'lower-is-better',
    values,
    ...extra,
  });
  const geomean = (values: number[]) =>
    Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);

  it('leaves out runs on both sides, older records included, and names each against its side', () => {
    const current = time([10, 10.2, 13]);
    // Window of two records, then two older ones: index 6 is the first older record's 2nd run.
    const baseline = time([10, 10.1, 9.9, 10, 10.2], {
      records: [3, 2],
      olderRecords: [
        [10, 14],
        [9.8, 10.1],
      ],
    });
    const interval = changeInterval(current, baseline, {
      confidence: 0.95,
      seed: 's',
      withoutRuns: { current: [2], baseline: [0, 6] },
    });
    const keptBaseline = [10.1, 9.9, 10, 10.2];
    expect(interval.change).toBeCloseTo(geomean([10, 10.2]) / geomean(keptBaseline) - 1, 12);
    expect(interval.excluded).toEqual([
      { side: 'baseline', change: expect.closeTo(10 / geomean(keptBaseline) - 1, 12) },
      { side: 'baseline', change: expect.closeTo(14 / geomean(keptBaseline) - 1, 12) },
      { side: 'current', change: expect.closeTo(13 / geomean([10, 10.2]) - 1, 12) },
    ]);
  });

  it('names no left-out run that was never a measurement (zero), and drops a record left empty', () => {
    const baseline = time([10, 10.1, 9.9, 0, 0], { records: [3, 2], olderRecords: [[10, 0]] });
    const interval = changeInterval(time([10, 10.2, 9.9]), baseline, {
      confidence: 0.95,
      seed: 's',
      withoutRuns: { current: [], baseline: [6] },
    });
    expect(interval.excluded).toBeUndefined();
    // The window's second record holds no positive value: the interval stands on the first.
    expect(interval.method).toBe('student-t');
    expect(interval.change).toBeCloseTo(
      geomean([10, 10.2, 9.9]) / geomean([10, 10.1, 9.9]) - 1,
      12,
    );
  });
});

describe("the baseline's stored records", () => {
  const time = (values: number[], extra: Partial<Metric> = {}): Metric => ({
    id: 'time',
    unit: 'ms',
    direction: 'lower-is-better',
    values,
    ...extra,
  });

  it('takes a stored record with no measurement in it (zeros) for no record at all', () => {
    // Two current runs against a window of records of two: the spread of the record means
    // (history-spread.ts) is the noise, whether or not a failed night left zeros beside them.
    const records = [10, 10.3, 9.8, 10.1, 10.4, 10.2, 9.9, 10];
    const options = { confidence: 0.95, seed: 's' };
    const clean = changeInterval(
      time([10.6, 10.7]),
      time(records, { records: [2, 2, 2, 2] }),
      options,
    );
    const withFailed = changeInterval(
      time([10.6, 10.7]),
      time([...records, 0, 0], { records: [2, 2, 2, 2, 2] }),
      options,
    );
    expect(clean.spread?.history).toBe(4);
    expect(withFailed.spread?.history).toBe(4);
    expect(withFailed.ci).toEqual(clean.ci);
  });
});

describe('when one run a side is bootstrapped from its requests', () => {
  const p95 = (samples: number[]): Metric => ({
    id: 'latency_p95',
    unit: 'ms',
    direction: 'lower-is-better',
    values: [Math.max(...samples)],
    samples: [samples],
    percentile: 95,
  });
  const requests = (n: number) => Array.from({ length: n }, (_, i) => 1 + i / n);

  it('needs MIN_BOOTSTRAP_SAMPLES requests on each side, and no fewer', () => {
    const enough = requests(MIN_BOOTSTRAP_SAMPLES);
    const few = requests(MIN_BOOTSTRAP_SAMPLES - 1);
    const method = (current: number[], baseline: number[]) =>
      changeInterval(p95(current), p95(baseline), { confidence: 0.95, seed: 's' }).method;
    expect(method(enough, enough)).toBe('request-bootstrap');
    expect(method(enough, few)).toBe('none');
    expect(method(few, enough)).toBe('none');
  });

  it('names the figures the change is a ratio of: percentiles of requests, or geometric means of runs', () => {
    const options = { confidence: 0.95, seed: 's' };
    const slower = requests(50).map((v) => v * 1.2);
    const byRequests = compareMetric(p95(slower), p95(requests(50)), 0.1, options);
    expect(byRequests.basis?.estimator).toBe('request-percentile');
    const runs = (values: number[]): Metric => ({ ...p95([]), samples: undefined, values });
    const byRuns = compareMetric(runs([12, 12.2, 11.9]), runs([10, 10.1, 9.9]), 0.1, options);
    expect(byRuns.basis?.estimator).toBe('geometric-mean');
  });
});

describe('the request bootstrap against plain resampling', () => {
  it('gives the interval of a bootstrap that resamples every request, interpolation included', () => {
    // P97 of 20 requests lies 43% of the way from the 19th to the 20th smallest. Here the
    // current side's top two requests stand far apart (2 and 4 against about 1), so a
    // resample's P97 takes six values in turn, and the interpolation step decides where
    // the low end of an interval lies: a bootstrap that read each resample's 19th
    // smallest request instead would put it near no change. The change itself (P97 2.86
    // against 1.18) is the same either way and lies inside both intervals.
    const random = seededRandom('plain bootstrap');
    const tight = Array.from({ length: 20 }, (_, i) => 1 + i / 100);
    const current = [...tight.slice(0, 18), 2, 4];
    const p97 = (samples: number[]): Metric => ({
      id: 'latency_p97',
      unit: 'ms',
      direction: 'lower-is-better',
      values: [0],
      samples: [samples],
      percentile: 97,
    });
    const resampled = (values: number[]) =>
      percentile(
        values.map(() => values[Math.floor(random.next() * values.length)]!),
        97,
      );
    const replicates = 8000;
    const ratios = Array.from(
      { length: replicates },
      () => resampled(current) / resampled(tight) - 1,
    ).sort((a, b) => a - b);
    const plainQuantile = (q: number) => ratios[Math.round(q * (replicates - 1))]!;
    for (const confidence of [0.95, 0.4]) {
      const { ci, method, change } = changeInterval(p97(current), p97(tight), {
        confidence,
        seed: 'reference',
        replicates,
      });
      expect(method).toBe('request-bootstrap');
      expect(change).toBeCloseTo(percentile(current, 97) / percentile(tight, 97) - 1, 12);
      const tail = (1 - confidence) / 2;
      // The resampled P97s take few distinct values: the ends agree to a few percent.
      expect(ci![0], `${confidence}`).toBeCloseTo(plainQuantile(tail), 1);
      expect(ci![1], `${confidence}`).toBeCloseTo(plainQuantile(1 - tail), 1);
    }
  });
});

describe('a metric regresses only on clear evidence', () => {
  it('calls the same data a regression at 95% and inconclusive at a stricter test level', () => {
    const current = metric([0.1, 0.12, 0.08]);
    const baseline = metric([0, 0.02, -0.02, 0.01, -0.01]);
    const at95 = compareMetric(current, baseline, 0.05, { confidence: 0.95, seed: 's' });
    expect(at95.verdict).toBe('regression');
    // The lower end of the 99.99% interval: 0.1 − t(0.99995, 6) × SE < 0.
    const strict = compareMetric(current, baseline, 0.05, {
      confidence: 0.95,
      seed: 's',
      testLevel: 0.00005,
    });
    expect(strict.verdict).toBe('inconclusive');
    expect(strict.ci).toEqual(at95.ci);
    expect(strict.reason).toContain("not clear enough for the gate's 99.99% test");
  });
});

describe('the spread more current runs would give', () => {
  const pooled = { se: 0.03, df: 16, perRun: 0.0009, runs: 3 };

  it('shrinks the current runs part and adds their degrees of freedom', () => {
    // Var = 0.0009 - 0.0009/3 + 0.0009/8 = 0.0007125
    const more = withMoreRuns(pooled, 5);
    expect(more.se).toBeCloseTo(Math.sqrt(0.0007125), 12);
    expect(more.df).toBe(21);
  });

  it("gives a drift spread Satterthwaite's df again: more within-day df, the days' part as it was", () => {
    // se² = dayPart 0.0004 + runPart 0.0005; runPart with 5 more runs: 0.0005 - 0.0009/3 +
    // 0.0009/8 = 0.0003125; df = 0.0007125² / (0.0004² / 4 + 0.0003125² / (10 + 5)).
    const drift = { se: 0.03, df: 6.3, perRun: 0.0009, runs: 3, drift: true };
    const more = withMoreRuns({ ...drift, dayPart: 0.0004, dayDf: 4, withinDf: 10 }, 5);
    expect(more.se).toBeCloseTo(Math.sqrt(0.0007125), 12);
    expect(more.df).toBeCloseTo(0.0007125 ** 2 / (0.0004 ** 2 / 4 + 0.0003125 ** 2 / 15), 9);
    expect(more.df).toBeLessThan(6.3 + 5);
  });

  it('matches the df driftSpread gives when no run is added', () => {
    const more = withMoreRuns(
      {
        se: 0.03,
        df: 0.0009 ** 2 / (0.0004 ** 2 / 4 + 0.0005 ** 2 / 10),
        perRun: 0.0009,
        runs: 3,
        drift: true,
        dayPart: 0.0004,
        dayDf: 4,
        withinDf: 10,
      },
      1e-12,
    );
    expect(more.df).toBeCloseTo(0.0009 ** 2 / (0.0004 ** 2 / 4 + 0.0005 ** 2 / 10), 6);
  });
});

function variance(values: number[]): number {
  const m = values.reduce((a, v) => a + v, 0) / values.length;
  return values.reduce((a, v) => a + (v - m) ** 2, 0) / (values.length - 1);
}

describe('leaving baseline runs out keeps each record its own runs', () => {
  const time = (values: number[], records?: number[]): Metric => ({
    id: 'time',
    unit: 'ms',
    direction: 'lower-is-better',
    values,
    ...(records ? { records } : {}),
  });
  // Records of two differ from each other more than their runs do: the record means are
  // the noise (history-spread.ts), so the interval reads where each record ends.
  const current = time([10.6, 10.7]);
  const options = { confidence: 0.95, seed: 's' };
  const ciOf = (baseline: Metric, drop: number[]) =>
    changeInterval(current, baseline, { ...options, withoutRuns: { current: [], baseline: drop } })
      .ci;

  it("drops a record's first run from that record, not the one before it", () => {
    const baseline = time([10, 10.1, 9.6, 9.7, 10.4, 10.5, 9.9, 10], [2, 2, 2, 2]);
    const shrunk = time([10, 10.1, 9.7, 10.4, 10.5, 9.9, 10], [2, 1, 2, 2]);
    const flat = changeInterval(current, time(shrunk.values), options).ci;
    const left = ciOf(baseline, [2]);
    expect(left).toEqual(changeInterval(current, shrunk, options).ci);
    expect(left).not.toEqual(flat);
  });

  it("drops an older record's run from that record, counting from after the window's runs", () => {
    const window = time([10, 10.1, 9.6, 9.7, 10.4, 10.5], [2, 2, 2]);
    const withOlder = (olderRecords: number[][]): Metric => ({ ...window, olderRecords });
    const baseline = withOlder([[9.8, 10.6], [10.2, 9.9], [10.3]]);
    const ci = (metric: Metric) => changeInterval(current, metric, options).ci;
    // Index 6 + 3: the second older record's second run.
    const left = ciOf(baseline, [9]);
    expect(left).toEqual(ci(withOlder([[9.8, 10.6], [10.2], [10.3]])));
    expect(left).not.toEqual(ci(baseline));
    // An older record left empty is no record.
    expect(ciOf(baseline, [10])).toEqual(
      ci(
        withOlder([
          [9.8, 10.6],
          [10.2, 9.9],
        ]),
      ),
    );
  });

  it('drops a record whose every run is left out, the others kept as records', () => {
    const baseline = time([10, 10.1, 9.6, 10.4, 10.5, 9.9, 10], [2, 1, 2, 2]);
    const shrunk = time([10, 10.1, 10.4, 10.5, 9.9, 10], [2, 2, 2]);
    const flat = changeInterval(current, time(shrunk.values), options).ci;
    const left = ciOf(baseline, [2]);
    expect(left).toEqual(changeInterval(current, shrunk, options).ci);
    expect(left).not.toEqual(flat);
  });
});

import { describe, expect, it } from 'vitest';
import { measureNoise } from '../../src/calibrate/noise.js';
import { reachAt, recommendThreshold, type GateShape } from '../../src/calibrate/recommend.js';
import { renderCalibration } from '../../src/calibrate/render.js';
import { runCli } from '../../src/cli/main.js';
import { studentTQuantile } from '../../src/stats/distributions.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { offlineResult, rawTimes, tempDir, writeJson } from '../support/offline-result.js';

const SHAPE: GateShape = {
  runs: 3,
  baselineWindow: 5,
  confirmRuns: 2,
  confidence: 0.95,
  gatedMetrics: 4,
};

/**
 * The gate's rule written out again, independently of recommend.ts and of the gate's
 * interval code: Student's pooled t test on log run values, one confirmation run at a time
 * while the change is beyond the threshold but not clear, looks at the documented levels
 * (budget 0.5% per gate run: ¼, ¼, ½ of it over the looks, Šidák over 4 metrics).
 */
const LOOK_LEVELS = [0.00125, 0.00125, 0.0025].map((b) => 1 - (1 - b) ** (1 / 4));

function gateFailRate(logSd: number, threshold: number, slowdown: number, pairs: number): number {
  const random = seededRandom(`independent ${logSd} ${slowdown}`);
  const draw = (n: number, shift: number) =>
    Array.from({ length: n }, () => shift + logSd * normal(random));
  const limit = Math.log1p(threshold);
  let fails = 0;
  for (let i = 0; i < pairs; i += 1) {
    const baseline = draw(15, 0);
    const current = draw(5, Math.log1p(slowdown));
    for (let look = 0; look < 3; look += 1) {
      const now = current.slice(0, 3 + look);
      const change = medianOf(now) - medianOf(baseline);
      if (change <= limit) break;
      const df = now.length + baseline.length - 2;
      const pooled = (sumSquares(now) + sumSquares(baseline)) / df;
      const se = Math.sqrt(pooled * (1 / now.length + 1 / baseline.length));
      const low =
        meanOf(now) - meanOf(baseline) - studentTQuantile(1 - LOOK_LEVELS[look]!, df) * se;
      if (low > 0) {
        fails += 1;
        break;
      }
    }
  }
  return fails / pairs;
}

const meanOf = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
const sumSquares = (v: number[]) => v.reduce((s, x) => s + (x - meanOf(v)) ** 2, 0);
function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

describe('recommendThreshold', () => {
  it('asks for a larger threshold the noisier the metric (not 0.5% at every noise level)', () => {
    const quiet = recommendThreshold(0.012, 'lower-is-better', SHAPE, 1000);
    const middle = recommendThreshold(0.03, 'lower-is-better', SHAPE, 1000);
    const noisy = recommendThreshold(0.05, 'lower-is-better', SHAPE, 1000);
    expect(quiet.threshold).toBeGreaterThan(0.005);
    expect(middle.threshold).toBeGreaterThan(quiet.threshold);
    expect(noisy.threshold).toBeGreaterThan(middle.threshold);
    for (const r of [quiet, middle, noisy]) {
      expect(r.power).toBeGreaterThanOrEqual(0.95);
      expect(r.falseAlarmRate).toBeLessThan(0.01);
    }
  });

  it('recommends a threshold whose power and false alarms, simulated again independently, hold', () => {
    const { threshold } = recommendThreshold(0.03, 'lower-is-better', SHAPE, 2000);
    expect(gateFailRate(0.03, threshold, 2 * threshold, 2000)).toBeGreaterThan(0.93);
    expect(gateFailRate(0.03, threshold, 0, 2000)).toBeLessThan(0.01);
    // One step smaller would not be caught reliably: the recommendation is the smallest.
    expect(gateFailRate(0.03, threshold - 0.01, 2 * (threshold - 0.01), 2000)).toBeLessThan(0.95);
  });

  it('says so when no threshold reaches 95%: the largest, capped, with its power', () => {
    const capped = recommendThreshold(0.6, 'lower-is-better', SHAPE, 1000);
    expect(capped.capped).toBe(true);
    expect(capped.threshold).toBeCloseTo(0.45, 12);
    expect(capped.power).toBeLessThan(0.95);
    const text = renderCalibration([
      {
        name: 'noisy',
        shape: SHAPE,
        metrics: [
          {
            noise: { id: 'latency_p99', unit: 'ms', runs: 10, cv: 0.6, spread: 0.9, logSd: 0.6 },
            recommendation: capped,
          },
        ],
      },
    ]);
    expect(text).toContain(
      `Warning: latency_p99 is too noisy for any threshold at these runs: even at 45%, the largest tried, a regression of twice it fails the gate only ${Number((capped.power * 100).toFixed(1))}% of the time`,
    );
    const fine = recommendThreshold(0.03, 'lower-is-better', SHAPE, 1000);
    expect(fine.capped).toBeUndefined();
  });

  it('without confirmation runs asks for at least as large a threshold', () => {
    const confirmed = recommendThreshold(0.03, 'lower-is-better', SHAPE, 1000);
    const unconfirmed = recommendThreshold(
      0.03,
      'lower-is-better',
      { ...SHAPE, confirmRuns: 0 },
      1000,
    );
    expect(unconfirmed.threshold).toBeGreaterThanOrEqual(confirmed.threshold);
  });
});

describe('what a threshold in use lets the gate see (reachAt)', () => {
  it('states the chance the rule, simulated independently, catches twice the threshold', () => {
    // Run SD 6%, a 5% threshold: the independent rule's looks with all 5 runs.
    const reach = reachAt(0.06, 'lower-is-better', 0.05, SHAPE);
    expect(reach.runs).toBe(5);
    const simulated = gateFailRate(0.06, 0.05, 0.1, 4000);
    expect(reach.power).toBeLessThan(0.95);
    // The last look's power with every run: the sequential looks stop some earlier.
    expect(Math.abs(reach.power - simulated)).toBeLessThan(0.08);
  });

  it('says how many runs would reach 95%, and none where the baseline window alone is too noisy', () => {
    const reach = reachAt(0.06, 'lower-is-better', 0.05, SHAPE);
    expect(reach.runsFor95).toBeGreaterThan(5);
    // As many confirmation runs as that takes (the baseline's records stay as they are).
    const confirmRuns = reach.runsFor95! - SHAPE.runs;
    const at = (confirm: number) =>
      reachAt(0.06, 'lower-is-better', 0.05, { ...SHAPE, confirmRuns: confirm }).power;
    expect(at(confirmRuns)).toBeGreaterThan(0.94);
    expect(at(confirmRuns - 2)).toBeLessThan(0.95);
    // 15 baseline runs at SD 20%: their mean alone is known to ±5%, so no current run helps.
    expect(reachAt(0.2, 'lower-is-better', 0.05, SHAPE).runsFor95).toBeNull();
  });
});

describe('measureNoise', () => {
  it('measures the CV and the largest distance from the median', () => {
    const [noise] = measureNoise({
      name: 'b',
      format: 'x',
      runs: [],
      metrics: [
        { id: 'throughput', unit: 'q/s', direction: 'higher-is-better', values: [10, 11, 9, 10] },
      ],
    });
    expect(noise?.cv).toBeCloseTo(Math.sqrt(2 / 3) / 10, 10);
    expect(noise?.spread).toBeCloseTo(0.1, 10);
    expect(noise?.runs).toBe(4);
  });
});

describe('neuron-perf-gate calibrate --results', () => {
  it('prints a thresholds block for every measured metric', async () => {
    const dir = await tempDir();
    const files = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((run) =>
        writeJson(dir, `r${run}.json`, offlineResult(rawTimes(1 + 0.01 * (run % 3), run))),
      ),
    );
    let out = '';
    const code = await runCli(['calibrate', '--results', ...files, '--name', 'reranker'], {
      cwd: dir,
      env: {},
      stdout: (text) => (out += text),
      stderr: () => {},
    });
    expect(code).toBe(0);
    expect(out).toContain('reranker: noise of 6 runs');
    expect(out).toMatch(/ {4}thresholds:\n {6}throughput: \d+(\.\d)?%\n {6}latency_p50: /);
    expect(out).toContain('10 or more');
    expect(out).toContain('caught at 2× threshold');
    expect(out).toContain('miss day-to-day drift');
    // The built-in thresholds at this noise: each with its chance and the runs for 95%.
    expect(out).toMatch(
      /\| latency_p50 +\| 5% +\| \d+(\.\d)?% with 13 runs +\| (\d+|out of reach[^|]*) +\|/,
    );
  });

  it('rejects --runs with --results and a --runs below 2', async () => {
    const io = { cwd: '/', env: {}, stdout: () => {}, stderr: (t: string) => (err += t) };
    let err = '';
    expect(await runCli(['calibrate', '--results', 'a.json', '--runs', '5'], io)).toBe(2);
    expect(err).toContain('--runs goes with --config');
    err = '';
    expect(await runCli(['calibrate', '--runs', '1'], io)).toBe(2);
  });
});

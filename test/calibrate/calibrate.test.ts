import { describe, expect, it } from 'vitest';
import { measureNoise } from '../../src/calibrate/noise.js';
import { recommendThreshold, type GateShape } from '../../src/calibrate/recommend.js';
import { runCli } from '../../src/cli/main.js';
import { compareMetric } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { offlineResult, rawTimes, tempDir, writeJson } from '../support/offline-result.js';

const SHAPE: GateShape = { runs: 3, baselineWindow: 5, confirmRuns: 2, confidence: 0.95 };

/** False alarms of the gate's rule at `threshold`, simulated independently of recommend.ts. */
function falseAlarmRate(logSd: number, threshold: number, pairs: number): number {
  const random = seededRandom('independent check');
  const draw = (n: number) => Array.from({ length: n }, () => Math.exp(logSd * normal(random)));
  const metric = (values: number[]): Metric => ({
    id: 'throughput',
    unit: 'q/s',
    direction: 'higher-is-better',
    values,
  });
  let alarms = 0;
  for (let i = 0; i < pairs; i += 1) {
    const baseline = metric(draw(15));
    const current = draw(3);
    const options = { confidence: 0.95, seed: `${i}` };
    if (compareMetric(metric(current), baseline, threshold, options).verdict !== 'regression')
      continue;
    const confirmed = compareMetric(metric([...current, ...draw(2)]), baseline, threshold, options);
    if (confirmed.verdict === 'regression') alarms += 1;
  }
  return alarms / pairs;
}

describe('recommendThreshold', () => {
  it('asks for a larger threshold for a noisier metric', () => {
    const quiet = recommendThreshold(0.01, 'higher-is-better', SHAPE, 2000);
    const noisy = recommendThreshold(0.05, 'higher-is-better', SHAPE, 2000);
    expect(noisy.threshold).toBeGreaterThan(quiet.threshold);
    expect(quiet.falseAlarmRate).toBeLessThan(0.01);
  });

  it('recommends a threshold whose false-alarm rate, simulated again independently, stays near 1%', () => {
    const { threshold } = recommendThreshold(0.03, 'higher-is-better', SHAPE, 4000);
    expect(falseAlarmRate(0.03, threshold, 3000)).toBeLessThan(0.02);
  });

  it('without confirmation runs asks for at least as large a threshold', () => {
    const confirmed = recommendThreshold(0.03, 'lower-is-better', SHAPE, 3000);
    const unconfirmed = recommendThreshold(
      0.03,
      'lower-is-better',
      { ...SHAPE, confirmRuns: 0 },
      3000,
    );
    expect(unconfirmed.threshold).toBeGreaterThanOrEqual(confirmed.threshold);
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

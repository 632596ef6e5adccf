import { markdownTable } from 'markdown-table';
import { GATE_FALSE_ALARM_RATE } from '../config/defaults.js';
import type { GateShape, Reach, Recommendation } from './recommend.js';
import type { MetricNoise } from './noise.js';

export interface CalibratedMetric {
  noise: MetricNoise;
  recommendation: Recommendation;
  /** What the threshold in use (the config's, else the built-in one) lets the gate see; none when not gated. */
  reach?: Reach;
}

export interface CalibratedBenchmark {
  name: string;
  /** The gate settings the thresholds were found for. */
  shape: GateShape;
  metrics: CalibratedMetric[];
}

/** The noise table and a ready-to-paste `thresholds:` block per benchmark. */
export function renderCalibration(benchmarks: CalibratedBenchmark[]): string {
  const parts: string[] = [];
  for (const benchmark of benchmarks) {
    const { shape } = benchmark;
    if (benchmark.metrics.length === 0) {
      parts.push(
        `${benchmark.name}: fewer than 2 runs of every metric; nothing to measure noise from.`,
      );
      continue;
    }
    const runs = Math.min(...benchmark.metrics.map((m) => m.noise.runs));
    const rows = benchmark.metrics.map(({ noise, recommendation }) => [
      noise.id,
      `${percent(noise.cv, 2)}`,
      `±${percent(noise.spread, 1)}`,
      percent(recommendation.threshold, 1),
      percent(recommendation.falseAlarmRate, 2),
      percent(recommendation.power, 1),
    ]);
    parts.push(
      `${benchmark.name}: noise of ${runs} runs; for each metric the smallest threshold at which ` +
        `a regression of twice the threshold fails the gate 95% of the time, with ` +
        `runs ${shape.runs}, baseline window ${shape.baselineWindow}, confirm-runs ${shape.confirmRuns} ` +
        `(simulated with this noise; false alarms are held under ` +
        `${percent(GATE_FALSE_ALARM_RATE, 2)} per gate run by the gate's budget, whatever the threshold)\n\n` +
        markdownTable([
          [
            'metric',
            'run-to-run CV',
            'largest run off the median',
            'threshold',
            'false alarms',
            'caught at 2× threshold',
          ],
          ...rows,
        ]),
    );
    const lines = benchmark.metrics.map(
      ({ noise, recommendation }) => `      ${noise.id}: ${percent(recommendation.threshold, 1)}`,
    );
    parts.push(
      `Paste into the entry of ${benchmark.name}:\n\n    thresholds:\n${lines.join('\n')}`,
    );
    const reach = reachTable(benchmark);
    if (reach) parts.push(reach);
    parts.push(...cappedWarnings(benchmark));
    parts.push(
      'Warning: runs made back to back miss day-to-day drift (another machine, a warmer ' +
        'room, a driver update), which the baseline of stored records does contain; ' +
        'thresholds from them can be too small. Measure on different days, or add margin.',
    );
    if (runs < 10) {
      parts.push(
        `Note: ${runs} runs give a rough estimate of the noise; 10 or more, made on different days, give thresholds you can trust.`,
      );
    }
  }
  return `${parts.join('\n\n')}\n`;
}

/**
 * The thresholds in use at this noise: how often a regression of twice each is caught with
 * every run the gate may take, and the clean runs a gate run would need for 95%.
 */
function reachTable(benchmark: CalibratedBenchmark): string | undefined {
  const rows = benchmark.metrics.flatMap(({ noise, reach }) =>
    reach
      ? [
          [
            noise.id,
            percent(reach.threshold, 1),
            `${percent(reach.power, 1)} with ${reach.runs} runs`,
            reach.runsFor95 === null ? 'out of reach: the baseline’s noise' : `${reach.runsFor95}`,
          ],
        ]
      : [],
  );
  if (rows.length === 0) return undefined;
  const { shape } = benchmark;
  return (
    `With the thresholds in use (the config's, else the built-in ones): a regression of twice ` +
    `each caught with up to ${shape.runs + shape.confirmRuns} runs (runs ${shape.runs} + ` +
    `confirm-runs ${shape.confirmRuns}, against ${shape.baselineWindow} stored records), and the runs ` +
    `that would catch it 95% of the time (runs + confirm-runs)\n\n` +
    markdownTable([
      ['metric', 'threshold in use', 'caught at 2× the threshold in use', 'runs for 95%'],
      ...rows,
    ])
  );
}

/** Metrics no threshold calibrate tries lets the gate catch: what the largest leaves. */
function cappedWarnings(benchmark: CalibratedBenchmark): string[] {
  return benchmark.metrics
    .filter(({ recommendation }) => recommendation.capped)
    .map(
      ({ noise, recommendation }) =>
        `Warning: ${noise.id} is too noisy for any threshold at these runs: even at ` +
        `${percent(recommendation.threshold, 1)}, the largest tried, a regression of twice it ` +
        `fails the gate only ${percent(recommendation.power, 1)} of the time, not 95%. More ` +
        'runs (see the runs for 95% above), a steadier benchmark, or its threshold off.',
    );
}

function percent(fraction: number, digits: number): string {
  return `${Number((fraction * 100).toFixed(digits))}%`;
}

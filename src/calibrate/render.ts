import { markdownTable } from 'markdown-table';
import { GATE_FALSE_ALARM_RATE } from '../config/defaults.js';
import type { GateShape, Recommendation } from './recommend.js';
import type { MetricNoise } from './noise.js';

export interface CalibratedMetric {
  noise: MetricNoise;
  recommendation: Recommendation;
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

function percent(fraction: number, digits: number): string {
  return `${Number((fraction * 100).toFixed(digits))}%`;
}

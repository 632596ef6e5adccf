// Synthetic series for the history tests: nights of runs with seeded noise that is not the
// detector's model (gamma-distributed run noise, an optional shared night effect, stalls).
import type { Environment } from '../../src/model.js';
import type { Series, SeriesPoint } from '../../src/history/series.js';
import { gamma, normal, seededRandom } from '../../src/stats/rng.js';

export interface NightPlan {
  nights: number;
  runs?: number;
  /** Run-to-run CV (gamma noise of that CV). */
  runCv?: number;
  /** CV of an effect shared by all runs of a night. */
  nightCv?: number;
  /** How alike consecutive nights' effects are (AR(1) in the log; 0: independent). */
  nightPhi?: number;
  /** Level on night n (1 = baseline). */
  level?: (night: number) => number;
  environment?: (night: number) => Environment;
  /** Nights whose every run is this much slower (a bad night, not a change). */
  outliers?: Map<number, number>;
  direction?: Series['direction'];
  seed?: string;
}

export function makeSeries(plan: NightPlan): Series {
  const random = seededRandom(plan.seed ?? 'series');
  const runs = plan.runs ?? 3;
  const runCv = plan.runCv ?? 0.02;
  const shape = 1 / (runCv * runCv);
  const points: SeriesPoint[] = [];
  const phi = plan.nightPhi ?? 0;
  let effect = 0;
  for (let night = 0; night < plan.nights; night += 1) {
    const innovation = (plan.nightCv ?? 0) * normal(random);
    effect = night === 0 ? innovation : phi * effect + Math.sqrt(1 - phi * phi) * innovation;
    const shared = Math.exp(effect);
    const level = (plan.level?.(night) ?? 1) * shared * (plan.outliers?.get(night) ?? 1);
    const values = Array.from({ length: runs }, () => 100 * level * (gamma(random, shape) / shape));
    points.push({
      path: `gate/bench/night-${String(night).padStart(3, '0')}.json`,
      commit: (night + 1).toString(16).padStart(40, 'c'),
      createdAt: new Date(Date.UTC(2026, 0, 1) + night * 86_400_000).toISOString(),
      runId: `run-${night}`,
      event: 'schedule',
      branch: 'main',
      verdict: 'pass',
      environment: plan.environment?.(night) ?? { neuronSdkVersion: '2.26.0' },
      values,
      mean: values.reduce((s, v) => s + v, 0) / values.length,
    });
  }
  return {
    id: `gate · bench · latency_p50 · any`,
    gateKey: 'gate',
    benchmark: 'bench',
    metric: 'latency_p50',
    unit: 'ms',
    direction: plan.direction ?? 'lower-is-better',
    environmentKey: 'any',
    environment: {},
    points,
  };
}

/** One value a night, as MFU or capacity: throughput-like, higher is better, 5% threshold. */
export function oneValueSeries(plan: NightPlan): Series {
  return {
    ...makeSeries({ runs: 1, runCv: 0.01, direction: 'higher-is-better', ...plan }),
    id: 'gate · bench · mfu · any',
    metric: 'mfu',
    threshold: 0.05,
  };
}

import { resolve } from 'node:path';
import { readResultFiles } from '../baseline/result-files.js';
import { measureNoise } from '../calibrate/noise.js';
import { reachAt, recommendThreshold, type GateShape } from '../calibrate/recommend.js';
import { thresholdOf } from '../config/default-thresholds.js';
import { renderCalibration, type CalibratedBenchmark } from '../calibrate/render.js';
import { resolveGateConfig } from '../config/load.js';
import { DEFAULTS } from '../config/defaults.js';
import type { GateConfig } from '../config/types.js';
import { EXIT, usageError } from '../errors.js';
import type { BenchmarkResult } from '../model.js';
import { deriveAll } from '../derive/slo-metrics.js';
import { measureRuns } from '../runner/measured.js';
import { StderrLogger } from '../publish/stderr-logger.js';
import { createProcessRunner } from '../runner/process.js';
import { single, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';
import { cliSandbox, ISOLATION_FLAGS } from './isolation.js';

export const CALIBRATE_FLAGS = {
  config: { takes: 'one' },
  runs: { takes: 'one' },
  results: { takes: 'many' },
  format: { takes: 'one' },
  name: { takes: 'one' },
  out: { takes: 'one' },
  quiet: { takes: 'none' },
  ...ISOLATION_FLAGS,
} as const;

/**
 * `calibrate`: measures the run-to-run noise of every metric and prints, per metric, the
 * smallest threshold at which the gate catches a regression of twice the threshold 95% of
 * the time (false alarms stay under 1% by the gate's budget), from new runs or files.
 */
export async function calibrateCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const resultFiles = args.flags.get('results') ?? [];
  const log = new StderrLogger({ showOutput: !args.flags.has('quiet') }, io.stderr);
  let results: BenchmarkResult[];
  let shapeFor: (result: BenchmarkResult) => GateShape;
  let thresholdsFor: (result: BenchmarkResult) => Record<string, number> = () => ({});
  if (resultFiles.length > 0) {
    if (args.flags.has('runs'))
      throw usageError('--runs goes with --config; --results uses the runs in the files');
    results = await readResultFiles(
      resultFiles.map((path) => resolve(io.cwd, path)),
      {
        format: single(args, 'format') ?? 'auto',
        fallbackName: single(args, 'name') ?? 'benchmark',
      },
    );
    shapeFor = () => defaultShape();
  } else {
    const config = await resolveGateConfig(
      { config: single(args, 'config') ?? '', 'out-dir': single(args, 'out') ?? '' },
      { workspace: io.cwd, origin: 'cli' },
    );
    const runs = calibrationRuns(single(args, 'runs'));
    shapeFor = (result) => shapeOf(config, result.source);
    thresholdsFor = (result) =>
      config.benchmarks.find((b) => b.name === result.source)?.thresholds ?? {};
    const sandbox = await cliSandbox(args, io, {
      repositories: [io.cwd, ...config.benchmarks.map((b) => b.workingDirectory)],
      keep: [config.outDir],
      log,
    });
    const runner = createProcessRunner({ sandbox });
    results = [];
    try {
      for (const spec of config.benchmarks) {
        log.info(`${spec.name}: ${runs} clean runs to measure the noise`);
        const measured = await measureRuns(
          { ...spec, runs },
          { runner, log, outDir: config.outDir, env: io.env },
        );
        if ('error' in measured) {
          io.stderr(`neuron-perf-gate: ${measured.error}\n`);
          return EXIT.runFailed;
        }
        results.push(...deriveAll(measured.results, spec.slo).map((derived) => derived.result));
      }
    } finally {
      await sandbox.dispose();
    }
  }
  const calibrated: CalibratedBenchmark[] = results.map((result) => {
    const noises = measureNoise(result);
    // Every measured metric gets a threshold, so all of them share the budget.
    const shape = { ...shapeFor(result), gatedMetrics: noises.length };
    return {
      name: result.name,
      shape,
      metrics: noises.map((noise) => {
        const direction = result.metrics.find((m) => m.id === noise.id)!.direction;
        const inUse = thresholdOf(thresholdsFor(result), noise.id, result.format);
        return {
          noise,
          recommendation: recommendThreshold(
            noise.logSd,
            direction,
            shape,
            2000,
            `${result.name}/${noise.id}`,
          ),
          ...(inUse === null ? {} : { reach: reachAt(noise.logSd, direction, inUse, shape) }),
        };
      }),
    };
  });
  io.stdout(renderCalibration(calibrated));
  return EXIT.ok;
}

function calibrationRuns(flag: string | undefined): number {
  if (flag === undefined) return 10;
  const runs = Number(flag);
  if (!Number.isInteger(runs) || runs < 2 || runs > 1000) {
    throw usageError(
      `--runs: found '${flag}'; allowed: a whole number of runs from 2 to 1000 (10 or more is best)`,
    );
  }
  return runs;
}

function shapeOf(config: GateConfig, source: string | undefined): GateShape {
  const spec = config.benchmarks.find((b) => b.name === source);
  return {
    runs: spec?.runs ?? DEFAULTS.runs,
    baselineWindow: config.baselineWindow,
    confirmRuns: spec?.confirmRuns ?? DEFAULTS.confirmRuns,
    confidence: config.confidence,
  };
}

function defaultShape(): GateShape {
  return {
    runs: DEFAULTS.runs,
    baselineWindow: DEFAULTS.baselineWindow,
    confirmRuns: DEFAULTS.confirmRuns,
    confidence: DEFAULTS.confidence,
  };
}

import { basename, resolve } from 'node:path';
import { pairBySettings } from '../baseline/by-settings.js';
import { MISSING_BASELINE_FILE } from '../baseline/file-store.js';
import { readResultFiles } from '../baseline/result-files.js';
import { judgeResults } from '../compare/judge.js';
import { unusedThresholdWarnings } from '../compare/threshold-keys.js';
import { thresholdKeyProblem } from '../config/metric-names.js';
import { parseConfidence } from '../config/confidence.js';
import { DEFAULTS, GATE_FALSE_ALARM_RATE } from '../config/defaults.js';
import { inputError, usageError } from '../errors.js';
import type { BenchmarkResult } from '../model.js';
import { writeReportFiles } from '../publish/files.js';
import { buildGateReport } from '../report/build.js';
import { renderMarkdown } from '../report/markdown.js';
import { single, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';
import { exitCodeFor } from './exit-code.js';
import { THRESHOLD_FLAGS, thresholdText, thresholdsFromFlags } from './thresholds.js';

export const COMPARE_FLAGS = {
  baseline: { takes: 'many' },
  current: { takes: 'many' },
  format: { takes: 'one' },
  ...THRESHOLD_FLAGS,
  name: { takes: 'one' },
  out: { takes: 'one' },
  confidence: { takes: 'one' },
  'fail-on-inconclusive': { takes: 'none' },
} as const;

/** `compare`: judges result files against baseline files; runs nothing. */
export async function compareCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const baselinePaths = required(args, 'baseline').map((path) => resolve(io.cwd, path));
  const currentPaths = required(args, 'current').map((path) => resolve(io.cwd, path));
  const thresholds = thresholdsFromFlags(thresholdText(args));
  const judgeOptions = {
    confidence: confidenceFromFlag(single(args, 'confidence')),
    failOnInconclusive: args.flags.has('fail-on-inconclusive'),
    // One look, so the whole budget: every gated metric of every benchmark shares it.
    falseAlarmRate: GATE_FALSE_ALARM_RATE,
  };
  const options = {
    format: single(args, 'format') ?? 'auto',
    fallbackName: single(args, 'name') ?? 'benchmark',
  };
  const read = await readResultFiles(baselinePaths, {
    ...options,
    missing: MISSING_BASELINE_FILE,
  });
  const current = await readResultFiles(currentPaths, options);
  refuseUnknownThresholdKeys(thresholds, current);
  const source = baselinePaths.map((path) => basename(path)).join(', ');
  const { baseline, notes } = matchByName(read, current, source);
  const benchmarks = judgeResults(
    current,
    { source, benchmarks: baseline },
    () => thresholds,
    judgeOptions,
  );
  const report = buildGateReport({
    benchmarks,
    environment: {},
    baselineSource: source,
    warnings: [
      ...notes,
      ...unusedThresholdWarnings(Object.keys(thresholds), benchmarks),
      ...unmatched(
        current.map((b) => b.name),
        baseline.map((b) => b.name),
      ),
    ],
  });
  const out = single(args, 'out');
  const markdown = out
    ? (await writeReportFiles(resolve(io.cwd, out), report)).markdown
    : renderMarkdown(report);
  io.stdout(markdown);
  io.stderr(`neuron-perf-gate: ${report.verdict}\n`);
  return exitCodeFor(report.verdict);
}

function confidenceFromFlag(flag: string | undefined): number {
  if (flag === undefined) return DEFAULTS.confidence;
  const parsed = parseConfidence(flag);
  if (!parsed.ok) throw usageError(`--confidence '${flag}': ${parsed.message}`);
  return parsed.fraction;
}

function required(args: ParsedArgs, name: 'baseline' | 'current'): string[] {
  const values = args.flags.get(name) ?? [];
  if (values.length === 0) throw usageError(`compare needs --${name} FILE...; see --help`);
  return values;
}

/**
 * Benchmarks are matched by name. When each side holds one benchmark they are paired
 * whatever their names (an unnamed result against a saved, named baseline), and the
 * report says so. A baseline of which no benchmark matches any current one is an error:
 * comparing with nothing must not pass.
 */
function matchByName(
  baseline: BenchmarkResult[],
  current: BenchmarkResult[],
  source: string,
): { baseline: BenchmarkResult[]; notes: string[] } {
  const [only] = baseline;
  const [now] = current;
  if (baseline.length === 1 && current.length === 1 && only && now && only.name !== now.name) {
    return {
      baseline: [{ ...only, name: now.name }],
      notes: [
        `compared current ${JSON.stringify(now.name)} with baseline ${JSON.stringify(only.name)}: ` +
          'the names differ, and each side holds one benchmark',
      ],
    };
  }
  const paired = pairedBySettings(baseline, current);
  const names = new Set(current.map((b) => b.name));
  if (baseline.length > 0 && !paired.baseline.some((b) => names.has(b.name))) {
    const list = (side: BenchmarkResult[]) => side.map((b) => JSON.stringify(b.name)).join(', ');
    throw inputError(
      source,
      `no baseline benchmark (${list(baseline)}) matches a current one (${list(current)}); ` +
        'benchmarks are matched by name: give the current results the baseline name with --name, ' +
        'or pass the baseline file of these benchmarks',
    );
  }
  return paired;
}

/**
 * Benchmarks named by their settings with no baseline of the same name, paired with the
 * one whose settings fit (baseline/by-settings.ts): the baseline's entry takes the
 * current name, and the note says which it was.
 */
function pairedBySettings(
  baseline: BenchmarkResult[],
  current: BenchmarkResult[],
): { baseline: BenchmarkResult[]; notes: string[] } {
  const pairs = pairBySettings(
    current.map((b) => b.name),
    baseline.map((b) => b.name),
  );
  const currentOf = new Map([...pairs].map(([now, pair]) => [pair.baseline, now]));
  return {
    baseline: baseline.map((b) => {
      const now = currentOf.get(b.name);
      return now === undefined ? b : { ...b, name: now };
    }),
    notes: [...pairs].map(([now, pair]) => `${now}: ${pair.note}`),
  };
}

/** Baseline benchmarks no current result matched: most often a renamed benchmark. */
function unmatched(current: string[], baseline: string[]): string[] {
  const missing = baseline.filter((name) => !current.includes(name));
  if (missing.length === 0) return [];
  return [`baseline benchmarks with no current result: ${missing.join(', ')}`];
}

/** `--threshold thruput=5%`: a key no built-in format can report is refused (metric-names.ts). */
function refuseUnknownThresholdKeys(
  thresholds: Record<string, number>,
  current: readonly BenchmarkResult[],
): void {
  const formats = current.map((result) => result.format);
  for (const key of Object.keys(thresholds)) {
    const problem = thresholdKeyProblem(key, formats);
    if (problem !== undefined) throw usageError(`--threshold ${problem}`);
  }
}

// bench:accuracy's "best possible" table (oracle.ts): per scenario, the detection of an
// oracle that knows the noise exactly, next to the action's, and whether 95% is out of reach
// for any rule deciding on these statistics of these runs.

import {
  criticalValue,
  detections,
  LEARNED_RUNS,
  ORACLE_STATISTICS,
  ORACLE_VARIANTS,
  type OracleVariant,
} from './oracle.js';
import { percent, table, wilson } from './text.js';
import { meanOf } from '../src/stats/mean.js';

/** The cap on false alarms per gate run (the oracle's main level) and the gate's budget. */
export const ORACLE_LEVELS = [0.01, 0.005] as const;
const TARGET = 0.95;

export interface OracleScenario {
  name: string;
  /** Per unchanged pull request: its statistics in ORACLE_VARIANTS order. */
  unchanged: readonly (readonly number[])[];
  /** Per slowed-down pull request, the same. */
  slowed: readonly (readonly number[])[];
  /** Per unchanged pull request: the learned-noise statistics in LEARNED_RUNS order. */
  learnedUnchanged: readonly (readonly number[])[];
  /** Per slowed-down pull request, the same. */
  learnedSlowed: readonly (readonly number[])[];
  /** Records the learned-noise oracle learns the drift from (window and older). */
  storedRecords: number;
  /** Slowed-down pull requests the action failed. */
  actionDetected: number;
}

export interface OracleSetting {
  firstRuns: number;
  allRuns: number;
  windowRuns: number;
  /** Runs of every stored record, the window's included (unless the scenario has the window alone). */
  storedRuns: number;
  slowdown: number;
}

interface Detection {
  variant: OracleVariant;
  detected: number;
  pairs: number;
  /** Standard deviation of the statistic over the unchanged pull requests. */
  spread: number;
}

/** The oracle's detection for each variant of one scenario at level α. */
export function oracleDetections(scenario: OracleScenario, alpha: number): Detection[] {
  return ORACLE_VARIANTS.map((variant, i) => {
    const unchanged = scenario.unchanged.map((values) => values[i]!);
    const slowed = scenario.slowed.map((values) => values[i]!);
    return {
      variant,
      detected: detections(slowed, criticalValue(unchanged, alpha)),
      pairs: slowed.length,
      spread: standardDeviation(unchanged),
    };
  });
}

/** The variant that detects the most, among those `where` accepts. */
function best(found: Detection[], where: (v: OracleVariant) => boolean): Detection {
  return found.filter((d) => where(d.variant)).reduce((a, b) => (b.detected > a.detected ? b : a));
}

/** Prints the tables; returns the scenarios where 95% is out of reach for the oracle. */
export function printOracle(
  scenarios: readonly OracleScenario[],
  setting: OracleSetting,
): string[] {
  if (scenarios.length === 0) return [];
  const [alpha, budget] = ORACLE_LEVELS;
  const unreachable: string[] = [];
  const rows: string[][] = [];
  const statisticRows: string[][] = [];
  for (const scenario of scenarios) {
    const atAlpha = oracleDetections(scenario, alpha);
    const atBudget = oracleDetections(scenario, budget);
    const main = best(atAlpha, (v) => v.runs === 'all' && v.baseline === 'window');
    const [low, high] = wilson(main.detected, main.pairs);
    const verdict =
      high < TARGET
        ? 'unreachable for any rule deciding on these statistics'
        : low >= TARGET
          ? 'reachable by an oracle knowing the noise'
          : 'at the target, within sampling error';
    if (high < TARGET) unreachable.push(scenario.name);
    const rate = (d: Detection) => percent(d.detected / d.pairs);
    const pairs = scenario.slowed.length;
    rows.push([
      scenario.name,
      percent(scenario.actionDetected / pairs),
      main.variant.statistic,
      percent(main.spread, 2),
      `${rate(main)} (${percent(low)}–${percent(high)})`,
      rate(best(atBudget, (v) => v.runs === 'all' && v.baseline === 'window')),
      rate(best(atAlpha, (v) => v.runs === 'first' && v.baseline === 'window')),
      rate(best(atAlpha, (v) => v.runs === 'all' && v.baseline === 'stored')),
      verdict,
    ]);
    statisticRows.push([
      scenario.name,
      ...ORACLE_STATISTICS.map((statistic) =>
        (['all', 'first'] as const)
          .map((runs) => {
            const d = atAlpha.find(
              (f) =>
                f.variant.statistic === statistic &&
                f.variant.runs === runs &&
                f.variant.baseline === 'window',
            )!;
            return rate(d);
          })
          .join(' / '),
      ),
    ]);
  }
  const { firstRuns, allRuns, windowRuns, slowdown } = setting;
  console.log(
    `Best possible: an oracle that knows the noise exactly. Its critical value for a statistic ` +
      `is the ${percent(1 - alpha, 0)} quantile of that statistic over the scenario's unchanged ` +
      `pull requests (false alarms ${percent(alpha, 0)} per gate run, the issue's cap; ` +
      `${percent(budget)} the gate's budget); it ignores thresholds. It sees the runs the action ` +
      `draws: all ${allRuns} current runs (${firstRuns} + every confirmation run) or the first ` +
      `${firstRuns}, against the window's ${windowRuns} baseline runs; "stored" adds the older ` +
      `records (${windowRuns} → ${setting.storedRuns} runs, unless the scenario has the window alone; ` +
      `the gate learns only the drift from them, since they may measure older code). Detection of every latency ` +
      `${percent(slowdown, 0)} slower, best statistic (95% interval); an upper bound for rules ` +
      `deciding on these statistics of these runs, not for every conceivable rule.`,
  );
  console.log(
    table(
      [
        'scenario',
        'action',
        `oracle's best statistic (${allRuns} runs, window)`,
        'A/A SD',
        `detected at ${percent(alpha, 0)}`,
        `at ${percent(budget)}`,
        `first ${firstRuns} runs`,
        'stored',
        `${percent(TARGET, 0)} for any rule on these statistics`,
      ],
      rows,
    ),
  );
  console.log('');
  console.log(
    `Oracle detection by statistic at ${percent(alpha, 0)}, window baseline, ` +
      `${allRuns} / ${firstRuns} current runs:`,
  );
  console.log(table(['scenario', ...ORACLE_STATISTICS], statisticRows));
  console.log('');
  printLearnedNoise(scenarios, setting);
  return unreachable;
}

/**
 * The learned-noise oracle next to the noise-known one on the same statistic (mean log P50,
 * window baseline) and the action: what learning the spread from the stored records costs.
 */
function printLearnedNoise(scenarios: readonly OracleScenario[], setting: OracleSetting): void {
  const [alpha, budget] = ORACLE_LEVELS;
  const known = (scenario: OracleScenario, runs: 'first' | 'all', level: number) => {
    const i = ORACLE_VARIANTS.findIndex(
      (v) => v.statistic === 'p50 mean log' && v.runs === runs && v.baseline === 'window',
    );
    const unchanged = scenario.unchanged.map((values) => values[i]!);
    return detections(
      scenario.slowed.map((values) => values[i]!),
      criticalValue(unchanged, level),
    );
  };
  const learned = (scenario: OracleScenario, runs: 'first' | 'all', level: number) => {
    const i = LEARNED_RUNS.indexOf(runs);
    const unchanged = scenario.learnedUnchanged.map((values) => values[i]!);
    return detections(
      scenario.learnedSlowed.map((values) => values[i]!),
      criticalValue(unchanged, level),
    );
  };
  const rows = scenarios.map((scenario) => {
    const pairs = scenario.slowed.length;
    const withInterval = (detected: number) => {
      const [low, high] = wilson(detected, pairs);
      return `${percent(detected / pairs)} (${percent(low)}–${percent(high)})`;
    };
    const cells = (runs: 'first' | 'all') => [
      withInterval(known(scenario, runs, alpha)),
      percent(known(scenario, runs, budget) / pairs),
      withInterval(learned(scenario, runs, alpha)),
      percent(learned(scenario, runs, budget) / pairs),
    ];
    return [
      scenario.name,
      percent(scenario.actionDetected / pairs),
      String(scenario.storedRecords),
      ...cells('all'),
      ...cells('first'),
    ];
  });
  const { firstRuns, allRuns, windowRuns } = setting;
  console.log(
    `Learned noise: the mean log P50 difference (current − the window's ${windowRuns} runs) over ` +
      `a standard error the rule learns from the stored records, as the gate's drift interval ` +
      `does (one-way random effects: σ² within the records and the current runs, τ² = ` +
      `max(0, (MSB − MSW) / n₀) from every stored record's mean, always in, no F test; SE² = ` +
      `τ² (1 + 1 / window records) + σ² (1 / n + 1 / ${windowRuns})). Its critical value is ` +
      `the ${percent(1 - alpha, 0)} (${percent(1 - budget)}) quantile of that t statistic over ` +
      `the unchanged pull requests: it knows the null distribution of its own t, and learns only ` +
      `the spread. An upper bound for rules that studentize this statistic this way, not for ` +
      `every rule. Noise known: the same difference, not studentized (the oracle above). ` +
      `Detection with its 95% interval, all ${allRuns} current runs or the first ${firstRuns}:`,
  );
  console.log(
    table(
      [
        'scenario',
        'action',
        'records',
        `known, ${allRuns} runs, ${percent(alpha, 0)}`,
        percent(budget),
        `learned, ${allRuns} runs, ${percent(alpha, 0)}`,
        percent(budget),
        `known, ${firstRuns} runs, ${percent(alpha, 0)}`,
        percent(budget),
        `learned, ${firstRuns} runs, ${percent(alpha, 0)}`,
        percent(budget),
      ],
      rows,
    ),
  );
}

function standardDeviation(values: readonly number[]): number {
  const m = meanOf(values);
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / Math.max(1, values.length - 1));
}

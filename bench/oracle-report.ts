// bench:accuracy's "best possible" table (oracle.ts): per scenario, the detection of an
// oracle that knows the noise exactly, next to the action's, and whether 95% is out of reach
// for any rule deciding on these statistics of these runs.

import {
  criticalValue,
  detections,
  ORACLE_STATISTICS,
  ORACLE_VARIANTS,
  type OracleVariant,
} from './oracle.js';
import { percent, table, wilson } from './text.js';

/** The cap on false alarms per gate run (the oracle's main level) and the gate's budget. */
export const ORACLE_LEVELS = [0.01, 0.005] as const;
const TARGET = 0.95;

export interface OracleScenario {
  name: string;
  /** Per unchanged pull request: its statistics in ORACLE_VARIANTS order. */
  unchanged: readonly (readonly number[])[];
  /** Per slowed-down pull request, the same. */
  slowed: readonly (readonly number[])[];
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
  return unreachable;
}

function standardDeviation(values: readonly number[]): number {
  const m = values.reduce((s, v) => s + v, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / Math.max(1, values.length - 1));
}

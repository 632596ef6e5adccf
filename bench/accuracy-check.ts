// The quick accuracy check that CI runs (.ci/run): a few of the rates the full benches
// measured (bench:accuracy, bench:changepoints), re-measured on a fixed seed and a fixed,
// small number of pull requests and series, each against the band an unchanged rule
// stays in. It fails when a false-alarm rate or a detection rate leaves its band, so a
// later change cannot quietly undo a measured rate.
//
// The figures, their recorded counts (from large runs) and the bands are in
// bench/accuracy-recorded.json. A band is the quick count's two-sided 99.9% range under
// the recorded rate, the recorded rate's own uncertainty included (acceptance-band.ts).
//
// The quick run's seed is fixed, so it is deterministic: the same code gives the same
// counts on every run and every machine, and an unchanged rule never fails by chance from
// one CI run to the next. What the band bounds is the draw of the seed itself: the quick
// pull requests are a sample independent of the recorded run's (another seed), and an
// unchanged rule lands outside its band on such a sample with probability ≤ 0.1% a figure.
// So a FAIL says the rule (or the noise models, or the code the benches drive) changed
// enough to move the rate, not that the dice fell badly; and a change that keeps the rate
// but reshuffles which pull requests fail has the same ≤ 0.1% a figure of failing. What it
// cannot see: a change smaller than the band's width (about ±3.3 standard errors of the
// quick count, wider for the record's own uncertainty), and any rate it does not measure.
// Measured on 4c0dae9's code: it fails with GATE_FALSE_ALARM_RATE at 4× (5 figures), with
// the metrics' split dropped (3) and with the history's tailAlpha doubled (1); it passes
// with GATE_FALSE_ALARM_RATE doubled, LEND_TEST_LEVEL at 10× and FOCUS_SHARE at 0.5.
// The false-alarm figures are the weakest (a rate of 0.5% on 1,000 pull requests is 5 ± 2):
// a looser rule shows first as higher detection.
//
//   npm run bench:accuracy-check                      the quick check (CI)
//   npm run bench:accuracy-check -- --record [--figure ID]...
//        each figure at its recorded size and seed (hours for 24,000 pull requests):
//        the counts to put in accuracy-recorded.json
//   npm run bench:accuracy-check -- --write-bands     recompute the bands in the file

import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { DRIFT_HISTORY_RECORDS } from '../src/baseline/older-records.js';
import { DEFAULTS } from '../src/config/defaults.js';
import { acceptanceBand } from './acceptance-band.js';
import { DETECT_SLOWDOWN, simulateGated, storedRecords } from './accuracy-pairs.js';
import { changepointSims, HISTORY, loadSimModel } from './changepoint-sims.js';
import { SCENARIOS } from './noise-models.js';
import { percent, table } from './text.js';

const FILE = new URL('../../bench/accuracy-recorded.json', import.meta.url);
const FILE_NAME = 'bench/accuracy-recorded.json';

/** Gates of 3 series, nights 20 … 100 analysed (bench:changepoints' defaults). */
const GATE_SERIES = 3;
const NIGHTS_ANALYSED = HISTORY + 40 - 20 + 1;

type Measure =
  | {
      bench: 'accuracy';
      scenario: string;
      rule: 'action' | 'compare';
      /** `unchanged`: false alarms (A/A); `slowed`: detection of every latency 10% slower. */
      pullRequests: 'unchanged' | 'slowed';
    }
  | {
      bench: 'changepoints';
      /** `false-change-points`: a series-night; `step-by-2nd-night`: a 3% step's series. */
      figure: 'false-change-points' | 'step-by-2nd-night';
      runs: number;
    };

interface Figure {
  id: string;
  what: string;
  measure: Measure;
  recorded: {
    rate: number;
    count: number;
    /** Trials the rate is of: pull requests, series, or series-nights. */
    total: number;
    /** Pull requests or series run (false change points: series; total is their nights). */
    trials: number;
    seed: string;
    command: string;
    source: string;
  };
  quick: { trials: number; total: number; accept: [number, number] };
}

interface RecordedFile {
  about: string[];
  /** The quick run's seed, another than the recorded runs'. */
  seed: string;
  /** The bands' two-sided coverage. */
  level: number;
  figures: Figure[];
}

/** Trials a figure's count is of, from the pull requests or series run. */
function totalOf(measure: Measure, trials: number): number {
  if (measure.bench === 'changepoints' && measure.figure === 'false-change-points') {
    return Math.ceil(trials / GATE_SERIES) * GATE_SERIES * NIGHTS_ANALYSED;
  }
  return trials;
}

function load(): RecordedFile {
  return JSON.parse(readFileSync(FILE, 'utf8')) as RecordedFile;
}

/** The band of a figure's quick count, from its recorded count and its quick trials. */
function bandOf(figure: Figure, level: number): [number, number] {
  const { count, total } = figure.recorded;
  const quickTotal = totalOf(figure.measure, figure.quick.trials);
  const band = acceptanceBand(count, total, quickTotal, level);
  return [band.low, band.high];
}

interface Counted {
  count: number;
  total: number;
  seconds: number;
  /**
   * False change points: the variance of the gates' counts over their mean (1 for
   * independent series-nights, above it when a gate's alarms cluster).
   */
  dispersion?: number;
}

/** Counts of every figure, measured with `seed` on `trials` pull requests or series each. */
async function measure(
  figures: readonly Figure[],
  seed: string,
  trialsOf: (figure: Figure) => number,
): Promise<Map<string, Counted>> {
  const counts = new Map<string, Counted>();
  // bench:accuracy: one pass over a scenario's pull requests serves both rules.
  const accuracy = figures.filter((f) => f.measure.bench === 'accuracy');
  const groups = new Map<string, Figure[]>();
  for (const figure of accuracy) {
    const m = figure.measure as Extract<Measure, { bench: 'accuracy' }>;
    const key = `${m.scenario}\0${m.pullRequests}`;
    groups.set(key, [...(groups.get(key) ?? []), figure]);
  }
  for (const [key, group] of groups) {
    const [name, kind] = key.split('\0') as [string, 'unchanged' | 'slowed'];
    const scenario = SCENARIOS.find((s) => s.name === name);
    if (!scenario) throw new Error(`${FILE_NAME}: no scenario ${name}`);
    const pairs = Math.max(...group.map(trialsOf));
    const slowdown = kind === 'slowed' ? DETECT_SLOWDOWN : 0;
    const stored = storedRecords(scenario, DRIFT_HISTORY_RECORDS);
    const started = performance.now();
    const fails = { action: 0, compare: 0 };
    for (let pair = 0; pair < pairs; pair += 1) {
      // bench:accuracy's streams: the same seed and pair give the same pull request.
      const stream = `${seed}/${scenario.name}/${pair}`;
      const outcome = simulateGated(scenario, slowdown, stream, DEFAULTS.confirmRuns, stored);
      if (outcome.action.fail) fails.action += 1;
      if (outcome.compare.fail) fails.compare += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    for (const figure of group) {
      const m = figure.measure as Extract<Measure, { bench: 'accuracy' }>;
      counts.set(figure.id, { count: fails[m.rule], total: pairs, seconds });
    }
  }
  // bench:changepoints at its defaults: independent nights, run CV 5%, gates of 3.
  const history = figures.filter((f) => f.measure.bench === 'changepoints');
  if (history.length > 0) {
    const sims = changepointSims(await loadSimModel(), {
      seed,
      runCv: 0.05,
      nights: { cv: 0, phi: 0 },
      sharedNights: false,
      gateSeries: GATE_SERIES,
      detect: {},
    });
    for (const figure of history) {
      const m = figure.measure as Extract<Measure, { bench: 'changepoints' }>;
      const trials = trialsOf(figure);
      const started = performance.now();
      if (m.figure === 'false-change-points') {
        const { alarms, nights, perGate } = sims.falseRate(m.runs, sims.ours, trials);
        const seconds = (performance.now() - started) / 1000;
        const mean = alarms / perGate.length;
        const variance =
          perGate.reduce((sum, n) => sum + (n - mean) ** 2, 0) / Math.max(1, perGate.length - 1);
        const dispersion = mean > 0 ? variance / mean : undefined;
        counts.set(figure.id, { count: alarms, total: nights, seconds, dispersion });
      } else {
        const delays = sims.stepFigures(m.runs, sims.ours, trials);
        const seconds = (performance.now() - started) / 1000;
        counts.set(figure.id, {
          count: delays.filter((d) => d <= 1).length,
          total: trials,
          seconds,
        });
      }
    }
  }
  return counts;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      record: { type: 'boolean', default: false },
      'write-bands': { type: 'boolean', default: false },
      figure: { type: 'string', multiple: true },
    },
  });
  const file = load();
  const unknown = (values.figure ?? []).filter((id) => !file.figures.some((f) => f.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `--figure ${unknown.join(', ')}: not in ${FILE_NAME}; one of ${file.figures.map((f) => f.id).join(', ')}`,
    );
  }
  const figures = file.figures.filter((f) => !values.figure || values.figure.includes(f.id));

  if (values['write-bands']) {
    for (const figure of file.figures) {
      figure.quick.total = totalOf(figure.measure, figure.quick.trials);
      figure.quick.accept = bandOf(figure, file.level);
    }
    writeFileSync(FILE, `${JSON.stringify(file, null, 2)}\n`);
    console.log(`${FILE_NAME}: bands written at ${percent(file.level)}`);
    return 0;
  }

  if (values.record) {
    console.log(`Each figure at its recorded size and seed: the counts for ${FILE_NAME}.`);
    const groups = new Map<string, Figure[]>();
    for (const figure of figures) {
      groups.set(figure.recorded.seed, [...(groups.get(figure.recorded.seed) ?? []), figure]);
    }
    const rows: string[][] = [];
    for (const [seed, group] of groups) {
      const counts = await measure(group, seed, (f) => f.recorded.trials);
      for (const figure of group) {
        const { count, total, seconds, dispersion } = counts.get(figure.id)!;
        rows.push([
          figure.id,
          seed,
          `${count}/${total}`,
          percent(count / total, 3),
          `was ${figure.recorded.count}/${figure.recorded.total}`,
          `${seconds.toFixed(1)} s`,
          dispersion === undefined ? '' : dispersion.toFixed(2),
        ]);
      }
    }
    console.log(table(['figure', 'seed', 'count', 'rate', 'recorded', 'time', 'dispersion'], rows));
    return 0;
  }

  const started = performance.now();
  console.log(
    `neuron-perf-gate quick accuracy check — seed "${file.seed}", each count against the ` +
      `${percent(file.level)} band of an unchanged rule (${FILE_NAME})`,
  );
  const stale = figures.filter((f) => {
    const [low, high] = bandOf(f, file.level);
    const total = totalOf(f.measure, f.quick.trials);
    return f.quick.total !== total || f.quick.accept[0] !== low || f.quick.accept[1] !== high;
  });
  const counts = await measure(figures, file.seed, (f) => f.quick.trials);
  const rows: string[][] = [];
  const failed: string[] = [];
  for (const figure of figures) {
    const { count, total, seconds } = counts.get(figure.id)!;
    const [low, high] = figure.quick.accept;
    const pass = total === figure.quick.total && count >= low && count <= high;
    if (!pass) failed.push(figure.id);
    const r = figure.recorded;
    rows.push([
      figure.id,
      `${percent(r.rate, 2)} (${r.count}/${r.total})`,
      `${low}–${high} of ${figure.quick.total} (${percent(low / figure.quick.total, 2)}–${percent(high / figure.quick.total, 2)})`,
      `${count}/${total} (${percent(count / total, 2)})`,
      pass ? 'PASS' : 'FAIL',
      `${seconds.toFixed(1)} s`,
    ]);
  }
  console.log('');
  console.log(table(['figure', 'recorded', 'accepted', 'quick', 'verdict', 'time'], rows));
  console.log('');
  for (const figure of figures) console.log(`  ${figure.id}: ${figure.what}`);
  console.log('');
  for (const id of failed) {
    const figure = figures.find((f) => f.id === id)!;
    const { count, total } = counts.get(id)!;
    console.log(
      `FAIL ${id}: ${count} of ${total} is outside ${figure.quick.accept[0]}–${figure.quick.accept[1]}, ` +
        `the counts an unchanged rule gives (recorded ${percent(figure.recorded.rate, 2)}, ` +
        `${figure.recorded.count}/${figure.recorded.total}). If the change was not meant to move ` +
        `this rate, it broke it. If it was: re-measure it at full size ` +
        `(\`${figure.recorded.command}\`, or \`npm run bench:accuracy-check -- --record --figure ${id}\`), ` +
        `put the new count and total in ${FILE_NAME} and run \`npm run bench:accuracy-check -- ` +
        `--write-bands\`, in the same commit as the change, and say in its message why the rate moved.`,
    );
  }
  for (const figure of stale) {
    failed.push(`${figure.id} (stale band)`);
    console.log(
      `FAIL ${figure.id}: its band in ${FILE_NAME} is not the one its recorded count and quick ` +
        `size give: run \`npm run bench:accuracy-check -- --write-bands\` and commit the file.`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `wall time ${seconds.toFixed(1)} s; ` +
      (failed.length === 0
        ? `all ${figures.length} figures in their bands`
        : `${failed.length} of ${figures.length} FAILED: ${failed.join(', ')}`),
  );
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main();

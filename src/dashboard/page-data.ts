// The dashboard's data as the page reads it: compact columns (365 nights × 100 series must
// stay well under 5 MB), one table of records shared by every metric of a record, and no
// URL that came from the data: the page builds a run's, a commit's and an issue's link only
// from the repository URL checked here and a number or a hex sha.

import { bisectCommand, commitLink, compareLink, repositoryBase } from '../history/commit-range.js';
import type { MissingSeries } from '../history/missing.js';
import type { AcceptanceMark, Series } from '../history/series.js';
import type { Environment } from '../model.js';
import type { CapacityChart } from './capacity-curves.js';
import type { ChangeMark, RegressionMark } from './change-marks.js';
import { numericRunId } from '../history/commit-range.js';
import { repositoryLinks } from './links.js';
import type { SweepCurve } from './sweeps.js';
import type { SweepDistributions } from './sweep-distributions.js';
import { displayUnit } from '../report/display-unit.js';

export type { ChangeMark, RegressionMark };

export interface DashboardInput {
  title: string;
  /** Where the records came from, for the reader. */
  source: string;
  generatedAt: string;
  series: Series[];
  acceptances: AcceptanceMark[];
  changes?: ChangeMark[];
  /** Open regressions: what the page opens with. */
  regressions?: RegressionMark[];
  /** Series that stopped reporting while their gate kept running (history/missing.ts). */
  missing?: MissingSeries[];
  /** Commit subjects by full sha, where known. */
  subjects?: ReadonlyMap<string, string>;
  sweeps?: SweepCurve[];
  /** Each sweep's TTFT and ITL CDFs per rate, from its newest records' histograms. */
  distributions?: SweepDistributions[];
  /** The newest latency–load curve of each capacity benchmark, beside its series. */
  capacities?: CapacityChart[];
  /** `https://github.com/owner/repo`: runs are linked below it; no links without it. */
  repositoryUrl?: string;
  /**
   * Commits in each open regression's range (after the last good up to the first bad), by
   * `rangeKey`, where a clone counted them (commit-subjects.ts); the page says "N commits"
   * only then.
   */
  rangeCommits?: ReadonlyMap<string, number>;
}

/** The software whose change is marked on the charts, in the order the label names it. */
const VERSIONS: [keyof Environment, string][] = [
  ['neuronSdkVersion', 'SDK'],
  ['compilerVersion', 'compiler'],
  ['runtimeVersion', 'runtime'],
  ['vllmVersion', 'vLLM'],
  ['vllmNeuronVersion', 'vllm-neuron'],
];

export const VERDICT_CODES = { pass: 'p', regression: 'r', 'no-baseline': 'n', error: 'e' };

export interface PageData {
  title: string;
  source: string;
  generatedAt: string;
  /** `https://github.com/o/r/actions/runs/`, or null: no run links. */
  runBase: string | null;
  /** `https://github.com/o/r/commit/`, or null: no commit links. */
  commitBase: string | null;
  /** `https://github.com/o/r/issues/`, or null: no issue links. */
  issueBase: string | null;
  gates: string[];
  benchmarks: string[];
  environments: string[];
  /** Software version labels ("SDK 2.27.0 · compiler 2.20 · vLLM 0.10.1"). */
  versions: string[];
  /** Commit subjects, kept once; a record names one by index. */
  subjects: string[];
  /**
   * One row per record: [unix seconds, commit (12 hex), run number or 0, verdict code,
   * version index, accepted (0/1), profiled (0/1), subject index or -1].
   */
  records: [number, string, number, string, number, number, number, number][];
  series: PageSeries[];
  /** Open regressions, oldest first. */
  regressions: PageRegression[];
  /** Series that stopped reporting: [series index, the gate's run days since its last point]. */
  missing: [number, number][];
  sweeps: SweepCurve[];
  distributions: SweepDistributions[];
  capacities: CapacityChart[];
}

/** A change point as the page draws it; levels in the series' display unit. */
export interface PageChange {
  /** Index of the first point on the new level. */
  at: number;
  /** after / before − 1, and its interval. */
  change: number;
  low: number;
  high: number;
  before: number;
  after: number;
  /** 1: inside the metric's threshold (drawn quiet). */
  quiet?: 1;
  status?: ChangeMark['status'];
  label: string;
}

export interface PageRegression {
  id: string;
  gate: number;
  /** The environments of the series it moved (indices), the one with most series first. */
  environments: number[];
  /** Record rows of its first bad and last good records. */
  since: number;
  lastGood: number;
  issue?: number;
  /**
   * Its open changes beyond their thresholds, the largest first (the worst change leads):
   * [series index, index in that series' changes].
   */
  changes: [number, number][];
  /** Links of its range, made here below the checked repository URL; absent without one. */
  range?: PageRange;
  /** `neuron-perf-gate bisect --good … --bad …` for its worst series; absent when the ends are one commit. */
  bisect?: string;
  /** Commits after the last good up to the first bad, when a clone counted them. */
  commits?: number;
}

export interface PageRange {
  good: string;
  bad: string;
  /** GitHub's compare page `<good>...<bad>`; absent when both nights measured one commit. */
  compare?: string;
}

export interface PageSeries {
  id: string;
  gate: number;
  benchmark: number;
  metric: string;
  unit: string;
  /** 1: higher is better; -1: lower is better. */
  better: 1 | -1;
  environment: number;
  /** Per point: its record row, mean, lowest and highest run. */
  r: number[];
  /** Runs per point: one number when every point has as many. */
  n: number | number[];
  v: number[];
  lo: number[];
  hi: number[];
  /** The metric's relative threshold (0.05), or null when it is not gated. */
  threshold: number | null;
  /** Change points, oldest first. */
  changes: PageChange[];
  /** 1 on an A/B comparison's series: paired changes and their intervals, not runs. */
  ab?: 1;
}

/** The page's data from the series; pure. */
export function pageData(input: DashboardInput): PageData {
  const gates = new Index();
  const benchmarks = new Index();
  const environments = new Index();
  const versions = new Index();
  const subjects = new Index();
  const recordRows = new Map<string, number>();
  const records: PageData['records'] = [];
  const accepted = acceptedPaths(input.acceptances);
  const recordOf = (point: Series['points'][number], profiled: boolean): number => {
    let row = recordRows.get(point.path);
    if (row === undefined) {
      row = records.length;
      recordRows.set(point.path, row);
      const subject = input.subjects?.get(point.commit);
      records.push([
        Math.round(Date.parse(point.createdAt) / 1000),
        /^[0-9a-f]{7,64}$/i.test(point.commit) ? point.commit.slice(0, 12).toLowerCase() : '',
        numericRunId(point.runId),
        VERDICT_CODES[point.verdict] ?? 'e',
        versions.of(versionLabel(point.environment)),
        accepted.has(point.path) || point.acceptance ? 1 : 0,
        profiled ? 1 : 0,
        subject ? subjects.of(subject) : -1,
      ]);
    } else if (profiled) {
      records[row]![6] = 1;
    }
    return row;
  };
  const changes = new Map<string, Map<string, ChangeMark>>();
  for (const change of input.changes ?? []) {
    const byPath = changes.get(change.seriesId) ?? new Map<string, ChangeMark>();
    byPath.set(change.path, change);
    changes.set(change.seriesId, byPath);
  }
  const series = input.series.map((s): PageSeries => {
    // MFU and MBU come from the profiled run: their records have a profile to open.
    const profiled = s.metric === 'mfu' || s.metric === 'mbu';
    const marks = changes.get(s.id);
    // In the unit the series reads best in, as in the report (ns for a tiny pytest round).
    const shown = displayUnit(
      s.unit,
      s.points.flatMap((p) => p.values),
    );
    const scaled = (value: number) => round(value * shown.factor);
    return {
      id: s.id,
      gate: gates.of(s.gateKey),
      benchmark: benchmarks.of(s.benchmark),
      metric: s.metric,
      unit: shown.unit,
      better: s.direction === 'higher-is-better' ? 1 : -1,
      environment: environments.of(s.environmentKey),
      ...(s.ab ? { ab: 1 as const } : {}),
      threshold: s.threshold ?? null,
      r: s.points.map((p) => recordOf(p, profiled)),
      n: runCounts(s.points),
      v: s.points.map((p) => scaled(p.mean)),
      lo: s.points.map((p) => scaled(Math.min(...p.values))),
      hi: s.points.map((p) => scaled(Math.max(...p.values))),
      changes: s.points.flatMap((p, index): PageChange[] => {
        const mark = marks?.get(p.path);
        return mark === undefined ? [] : [pageChange(mark, index, scaled)];
      }),
    };
  });
  const links = repositoryLinks(input.repositoryUrl);
  return {
    title: input.title,
    source: input.source,
    generatedAt: input.generatedAt,
    runBase: links?.runs ?? null,
    commitBase: links?.commits ?? null,
    issueBase: links?.issues ?? null,
    gates: gates.values,
    benchmarks: benchmarks.values,
    environments: environments.values,
    versions: versions.values,
    subjects: subjects.values,
    records,
    series,
    regressions: pageRegressions(input, series, recordRows),
    missing: pageMissing(input),
    sweeps: input.sweeps ?? [],
    distributions: input.distributions ?? [],
    capacities: input.capacities ?? [],
  };
}

function pageChange(mark: ChangeMark, at: number, scaled: (v: number) => number): PageChange {
  return {
    at,
    change: round(mark.change),
    low: round(mark.interval[0]),
    high: round(mark.interval[1]),
    before: scaled(mark.before),
    after: scaled(mark.after),
    ...(mark.quiet ? { quiet: 1 as const } : {}),
    ...(mark.status ? { status: mark.status } : {}),
    label: mark.label,
  };
}

/** The open regressions, by the record rows and the series' change points they name. */
function pageRegressions(
  input: DashboardInput,
  series: readonly PageSeries[],
  recordRows: ReadonlyMap<string, number>,
): PageRegression[] {
  const seriesIndex = new Map(input.series.map((s, i) => [s.id, i]));
  const ranges = new Map(regressionRanges(input).map((range) => [range.id, range]));
  const base = repositoryBase(input.repositoryUrl);
  return (input.regressions ?? []).flatMap((regression): PageRegression[] => {
    const since = recordRows.get(regression.firstBad);
    const lastGood = recordRows.get(regression.lastGood);
    if (since === undefined || lastGood === undefined) return [];
    const changes = regression.changes.flatMap(({ seriesId, path }): [number, number][] => {
      const index = seriesIndex.get(seriesId);
      if (index === undefined) return [];
      const at = input.series[index]!.points.findIndex((p) => p.path === path);
      const change = series[index]!.changes.findIndex((c) => c.at === at);
      return change < 0 ? [] : [[index, change]];
    });
    if (changes.length === 0) return [];
    const size = ([s, c]: [number, number]) => Math.abs(series[s]!.changes[c]!.change);
    changes.sort((a, b) => size(b) - size(a) || a[0] - b[0]);
    const worst = input.series[changes[0]![0]]!;
    const range = ranges.get(regression.id);
    const issue = regression.issue;
    const commits = range && input.rangeCommits?.get(rangeKey(range));
    const bisect =
      range &&
      bisectCommand(shortSha(range.good), shortSha(range.bad), {
        benchmark: worst.benchmark,
        metric: worst.metric,
      });
    return [
      {
        id: regression.id,
        gate: series[changes[0]![0]]!.gate,
        environments: mostFirst(changes.map(([s]) => series[s]!.environment)),
        since,
        lastGood,
        ...(issue !== undefined && Number.isSafeInteger(issue) && issue > 0 ? { issue } : {}),
        changes,
        ...(range ? rangeLinks(base, range) : {}),
        ...(bisect ? { bisect } : {}),
        ...(commits !== undefined ? { commits } : {}),
      },
    ];
  });
}

/** An open regression's last good and first bad commit (full shas, as the records hold them). */
export interface RegressionRange {
  id: string;
  good: string;
  bad: string;
}

/** The commit range of each open regression whose ends are records of the page's series. */
export function regressionRanges(input: DashboardInput): RegressionRange[] {
  const wanted = new Set((input.regressions ?? []).flatMap((r) => [r.firstBad, r.lastGood]));
  const commitOf = new Map<string, string>();
  for (const s of input.series) {
    for (const point of s.points)
      if (wanted.has(point.path)) commitOf.set(point.path, point.commit);
  }
  return (input.regressions ?? []).flatMap((regression): RegressionRange[] => {
    const good = commitOf.get(regression.lastGood);
    const bad = commitOf.get(regression.firstBad);
    return good && bad ? [{ id: regression.id, good, bad }] : [];
  });
}

/** The key of a range in `rangeCommits`: `<good>..<bad>`, as git spells the range. */
export function rangeKey(range: Pick<RegressionRange, 'good' | 'bad'>): string {
  return `${range.good}..${range.bad}`;
}

function rangeLinks(base: string | undefined, range: RegressionRange): { range?: PageRange } {
  const good = commitLink(base, range.good);
  const bad = commitLink(base, range.bad);
  if (!good || !bad) return {};
  const compare = compareLink(base, range.good, range.bad);
  return { range: { good, bad, ...(compare ? { compare } : {}) } };
}

/** 12 hex digits, as the page names commits: unambiguous in practice, short to read. */
function shortSha(commit: string): string {
  return commit.slice(0, 12);
}

/** The distinct values, the most frequent first (ties: first seen first). */
function mostFirst(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([value]) => value);
}

/** The missing series, by the index of their series on the page. */
function pageMissing(input: DashboardInput): [number, number][] {
  const seriesIndex = new Map(input.series.map((s, i) => [s.id, i]));
  return (input.missing ?? []).flatMap((missing): [number, number][] => {
    const index = seriesIndex.get(missing.seriesId);
    return index === undefined ? [] : [[index, missing.nightsMissed]];
  });
}

/** Runs per point, one number when all are alike (most histories): the page stays small. */
function runCounts(points: Series['points']): number | number[] {
  const counts = points.map((p) => p.values.length);
  return counts.every((c) => c === counts[0]) ? (counts[0] ?? 0) : counts;
}

/** "SDK 2.27.0 · vLLM 0.10.1": the software versions a record names. */
export function versionLabel(environment: Environment): string {
  return VERSIONS.flatMap(([key, label]) =>
    environment[key] !== undefined && environment[key] !== ''
      ? [`${label} ${String(environment[key])}`]
      : [],
  ).join(' · ');
}

function acceptedPaths(acceptances: readonly AcceptanceMark[]): Set<string> {
  return new Set(acceptances.flatMap((a) => [a.path, ...a.records]));
}

/** Five significant digits: enough for a chart, and short in JSON. */
function round(value: number): number {
  return Number(value.toPrecision(5));
}

/** Strings kept once, referred to by index. */
class Index {
  readonly values: string[] = [];
  private readonly map = new Map<string, number>();
  of(value: string): number {
    let index = this.map.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.map.set(value, index);
    }
    return index;
  }
}

// The dashboard's data as the page reads it: compact columns (365 nights × 100 series must
// stay well under 5 MB), one table of records shared by every metric of a record, and no
// URL that came from the data: the page builds a run's link only from the repository URL
// checked here and the run's number.

import type { AcceptanceMark, Series } from '../history/series.js';
import type { Environment } from '../model.js';
import type { CapacityChart } from './capacity-curves.js';
import type { SweepCurve } from './sweeps.js';
import { displayUnit } from '../report/display-unit.js';

/** A found change in a series (from src/history's change-point search). */
export interface ChangeMark {
  seriesId: string;
  /** The first point after the change (a record path). */
  path: string;
  /** For the reader: "+8.1% (p < 0.01)". */
  label: string;
}

export interface DashboardInput {
  title: string;
  /** Where the records came from, for the reader. */
  source: string;
  generatedAt: string;
  series: Series[];
  acceptances: AcceptanceMark[];
  changes?: ChangeMark[];
  sweeps?: SweepCurve[];
  /** The newest latency–load curve of each capacity benchmark, beside its series. */
  capacities?: CapacityChart[];
  /** `https://github.com/owner/repo`: runs are linked below it; no links without it. */
  repositoryUrl?: string;
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
  gates: string[];
  benchmarks: string[];
  environments: string[];
  /** Software version labels ("SDK 2.27.0 · compiler 2.20 · vLLM 0.10.1"). */
  versions: string[];
  /**
   * One row per record: [unix seconds, commit (12 hex), run number or 0, verdict code,
   * version index, accepted (0/1), profiled (0/1)].
   */
  records: [number, string, number, string, number, number, number][];
  series: PageSeries[];
  sweeps: SweepCurve[];
  capacities: CapacityChart[];
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
  v: number[];
  lo: number[];
  hi: number[];
  /** Change points: point index and label. */
  changes: [number, string][];
  /** 1 on an A/B comparison's series: paired changes and their intervals, not runs. */
  ab?: 1;
}

/** The page's data from the series; pure. */
export function pageData(input: DashboardInput): PageData {
  const gates = new Index();
  const benchmarks = new Index();
  const environments = new Index();
  const versions = new Index();
  const recordRows = new Map<string, number>();
  const records: PageData['records'] = [];
  const accepted = acceptedPaths(input.acceptances);
  const recordOf = (point: Series['points'][number], profiled: boolean): number => {
    let row = recordRows.get(point.path);
    if (row === undefined) {
      row = records.length;
      recordRows.set(point.path, row);
      records.push([
        Math.round(Date.parse(point.createdAt) / 1000),
        /^[0-9a-f]{7,64}$/i.test(point.commit) ? point.commit.slice(0, 12).toLowerCase() : '',
        numericRunId(point.runId),
        VERDICT_CODES[point.verdict] ?? 'e',
        versions.of(versionLabel(point.environment)),
        accepted.has(point.path) || point.acceptance ? 1 : 0,
        profiled ? 1 : 0,
      ]);
    } else if (profiled) {
      records[row]![6] = 1;
    }
    return row;
  };
  const changes = new Map<string, Map<string, string>>();
  for (const change of input.changes ?? []) {
    const byPath = changes.get(change.seriesId) ?? new Map<string, string>();
    byPath.set(change.path, change.label);
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
      r: s.points.map((p) => recordOf(p, profiled)),
      v: s.points.map((p) => scaled(p.mean)),
      lo: s.points.map((p) => scaled(Math.min(...p.values))),
      hi: s.points.map((p) => scaled(Math.max(...p.values))),
      changes: s.points.flatMap((p, index): [number, string][] => {
        const label = marks?.get(p.path);
        return label === undefined ? [] : [[index, label]];
      }),
    };
  });
  return {
    title: input.title,
    source: input.source,
    generatedAt: input.generatedAt,
    runBase: runBase(input.repositoryUrl),
    gates: gates.values,
    benchmarks: benchmarks.values,
    environments: environments.values,
    versions: versions.values,
    records,
    series,
    sweeps: input.sweeps ?? [],
    capacities: input.capacities ?? [],
  };
}

/**
 * `https://host/owner/repo/actions/runs/` for an https repository URL of plain path
 * segments; undefined for anything else (http, credentials, a query, odd characters).
 */
export function runBase(repositoryUrl: string | undefined): string | null {
  if (!repositoryUrl) return null;
  let url: URL;
  try {
    url = new URL(repositoryUrl.replace(/\.git$/, '').replace(/\/+$/, ''));
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
    return null;
  }
  if (!/^\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(url.pathname)) return null;
  return `${url.origin}${url.pathname}/actions/runs/`;
}

/** The numeric run id of a record's run id (`<run id>-<attempt>`), for its link; 0 when none. */
export function numericRunId(runId: string): number {
  const match = /^(\d{1,16})(?:-\d{1,6})?$/.exec(runId);
  return match ? Number(match[1]) : 0;
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

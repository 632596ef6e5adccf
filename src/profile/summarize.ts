import { mkdir, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../fs/atomic.js';
import { firstLinkBelow } from '../fs/no-links.js';
import { join } from 'node:path';
import type { ProfileSummary } from '../model.js';
import type { ProcessRunner } from '../runner/types.js';
import { findProfileFiles, type ProfileFiles } from './discover.js';
import { combineGraphs, overallFigures } from './figures.js';
import { perLogicalCore, physicalCoresOf } from './logical-core.js';
import {
  describeUnit,
  findProfiler,
  summarizeUnits,
  viewCommand,
  type UnitSummary,
} from './profiler-cli.js';
import { parseSummaryJson, type GraphSummary } from './summary-json.js';
import { profileDetail, type ProfileDetail, type UnitTables } from './tables/profile-detail.js';
import { tablesOfUnits } from './tables/unit-tables.js';
import { profileUnits } from './units.js';

export interface SummarizeProfileOptions {
  env: Record<string, string | undefined>;
  /** Runs the profiler CLI contained, like the benchmark. */
  runner: ProcessRunner;
  /**
   * The folder the profile folder lies in (the out-dir): the way down must hold no symbolic
   * link, since the gate reads and writes there outside the sandbox.
   */
  root?: string;
  /** `profiler-path`: the profiler CLI to use instead of looking for one. */
  profilerPath?: string;
  /** For all profiler calls of the profile together; at most PROFILER_CAP_MS. */
  timeoutMs?: number;
  concurrency?: number;
  /**
   * The run's LNC (Environment.logicalNcConfig): physical cores per logical core for the
   * graphs whose tables do not say it (summary-json), so MFU is per logical core.
   */
  logicalNcConfig?: number;
}

/** A summary saying why nothing is measured when a link lies on the way to `dir`. */
async function linkedProfile(
  dir: string,
  root: string | undefined,
  who: string,
): Promise<ProfileSummary | undefined> {
  const link = root === undefined ? undefined : await firstLinkBelow(root, dir);
  if (link === undefined) return undefined;
  return {
    dir,
    ntffFiles: [],
    neffFiles: [],
    totalBytes: 0,
    metrics: {},
    warnings: [],
    status: 'not-measured',
    note: `not measured: ${link} is a symbolic link ${who} left; the gate does not read or write through it`,
  };
}

/** A profiler call is not started with less time than this left of the profile's budget. */
const MIN_CALL_MS = 1_000;

/** The most a profile's summaries may take, whatever the benchmark's timeout-minutes. */
export const PROFILER_CAP_MS = 10 * 60_000;

/**
 * What the profiled run left in `dir`, summarised by the Neuron profiler: MFU, MBU,
 * engine and DMA activity, per graph and overall. Anything that stops a figure from being
 * measured is said in `note` and `warnings`; it never fails the gate.
 */
export async function summarizeProfile(
  dir: string,
  options: SummarizeProfileOptions,
): Promise<ProfileSummary> {
  const linked = await linkedProfile(dir, options.root, 'the profiled run');
  if (linked) return linked;
  const files = await findProfileFiles(dir);
  const base = {
    dir,
    ntffFiles: files.ntffFiles,
    neffFiles: files.neffFiles,
    totalBytes: files.totalBytes,
    metrics: {},
    warnings: emptyNtffWarnings(files),
  };
  const missing = missingCapture(files);
  if (missing) return { ...base, status: 'not-measured', note: missing };

  const profiler = await findProfiler(options.env, options.profilerPath);
  if (!profiler) {
    const note = options.profilerPath
      ? `not measured: profiler-path ${options.profilerPath} is not an executable file`
      : 'not measured: no profiler CLI found (neuron-explorer or neuron-profile on PATH or in /opt/aws/neuron/bin); set profiler-path';
    return { ...base, status: 'not-measured', note };
  }

  const units = profileUnits(files);
  const callOptions = {
    profiler,
    runner: options.runner,
    env: options.env,
    timeoutMs: Math.min(options.timeoutMs ?? PROFILER_CAP_MS, PROFILER_CAP_MS),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  };
  const deadline = Date.now() + callOptions.timeoutMs;
  // The tables first (the profiler's own folder for them, made before it runs); the units
  // it made none for, or none this gate reads, by summary-json.
  const tablesDir = join(dir, 'perf-gate-tables');
  await rm(tablesDir, { recursive: true, force: true });
  await mkdir(tablesDir, { recursive: true });
  const tabled = await tablesOfUnits(units, {
    ...callOptions,
    tablesDirOf: (index) => join(tablesDir, `unit-${index + 1}`),
    ...(options.root !== undefined ? { root: options.root } : {}),
  });
  const jsonUnits = tabled.left.map((index) => units[index]!);
  const left = deadline - Date.now();
  const budget = `${Math.round(callOptions.timeoutMs / 1000)} s`;
  const results: UnitSummary[] =
    left < MIN_CALL_MS
      ? jsonUnits.map((unit) => ({
          unit,
          ok: false,
          error: `not run: the profiler's ${budget} ran out`,
        }))
      : await summarizeUnits(jsonUnits, { ...callOptions, timeoutMs: left });
  // The profiler (a profiler-path wrapper is pull-request code) ran after the check above:
  // it may have swapped the folder for a link since. Nothing of it runs any more now.
  const swapped = await linkedProfile(dir, options.root, 'the profiler');
  if (swapped) return { ...swapped, ...files, warnings: base.warnings };
  const read = await readSummaryJson(dir, profiler, results);
  const summaries = perLogicalCore([...tabled.graphs, ...read.summaries], options.logicalNcConfig);
  const untimed = [...tabled.untimed, ...read.untimed];
  // Why a unit has no tables, where its summary-json was read; a failed one says enough.
  const noTables = tabled.left.flatMap((index, k) =>
    read.read.has(k) ? [tabled.reasons.get(index)].filter((r): r is string => r !== undefined) : [],
  );
  const warnings = [...base.warnings, ...tabled.failed, ...noTables, ...read.warnings];
  if (untimed.length > 0) warnings.push(untimedWarning(untimed));
  const physicalCores = physicalCoresOf(summaries);
  const source = {
    tables: tabled.read.length,
    summaryJson: read.summaryFiles.length,
    schemas: [...new Set(tabled.read.map((unit) => unit.tables.schemaVersion))].sort(),
    ...(physicalCores !== undefined ? { physicalCores } : {}),
  };
  const found = { profiler, summaryFiles: read.summaryFiles, source };
  if (summaries.length === 0) {
    return {
      ...base,
      warnings,
      ...found,
      status: 'failed',
      note:
        untimed.length > 0
          ? 'not measured: no profiled graph has a total_time (see the warnings)'
          : 'not measured: no profiler summary could be read (see the warnings)',
    };
  }
  const graphs = combineGraphs(summaries);
  return {
    ...base,
    warnings,
    ...found,
    status: 'measured',
    graphs,
    ...detailOf(tabled.read, tabled.read.length < units.length),
    // Figures weighted by device time over only some graphs would not be the run's MFU:
    // a partial profile gives per-graph figures and says why there is no overall one.
    ...(untimed.length > 0
      ? { untimedGraphs: untimed, metrics: {} }
      : { metrics: overallFigures(graphs) }),
  };
}

/**
 * What the tables add. Where some units were read by summary-json instead, the ops and
 * roofline of the others are only part of the profile: a diff of them against a whole one
 * would name ops that only went missing, so only the reasons not to judge it are kept.
 */
function detailOf(tables: UnitTables[], partly: boolean): ProfileDetail {
  const detail = profileDetail(tables);
  return partly ? (detail.contamination ? { contamination: detail.contamination } : {}) : detail;
}

/** The summary-json outputs, each kept in a file beside the profile and read. */
async function readSummaryJson(dir: string, profiler: string, results: UnitSummary[]) {
  const summaryDir = join(dir, 'perf-gate-summaries');
  // Whatever the profiled run put there (a link to a file of the runner's) goes first.
  await rm(summaryDir, { recursive: true, force: true });
  const out = {
    summaries: [] as GraphSummary[],
    untimed: [] as string[],
    summaryFiles: [] as string[],
    warnings: [] as string[],
    /** The positions in `results` whose summary was read. */
    read: new Set<number>(),
  };
  if (results.length > 0) await mkdir(summaryDir, { recursive: true });
  for (const [index, result] of results.entries()) {
    const where = describeUnit(result.unit);
    if (!result.ok) {
      out.warnings.push(`the profiler failed on ${where}: ${result.error}`);
      continue;
    }
    if (result.warning !== undefined) out.warnings.push(result.warning);
    const file = join(summaryDir, `summary-${index + 1}.json`);
    await writeFileAtomic(file, result.stdout);
    out.summaryFiles.push(file);
    try {
      const read = parseSummaryJson(result.stdout, `\`${viewCommand(profiler, result.unit)}\``);
      out.summaries.push(...read.graphs);
      out.untimed.push(...read.untimed.map((key) => `${key} (${where})`));
      out.read.add(index);
    } catch (error) {
      out.warnings.push(
        `the profiler's output for ${where} could not be read: ${(error as Error).message} ` +
          `Its stdout is kept in ${file}.`,
      );
    }
  }
  return out;
}

/** Why the overall figures are not measured when some graphs have no device time. */
function untimedWarning(untimed: string[]): string {
  return (
    `the profiler gave no total_time (NaN or missing) for graph ${untimed.join(', ')}: ` +
    'overall MFU, MBU and engine activity are not measured, because weighing the other graphs ' +
    'alone would change what they mean. Per-graph figures are shown where the profiler gave them.'
  );
}

/** Why nothing can be measured from these files, or undefined when something can. */
function missingCapture(files: ProfileFiles): string | undefined {
  if (files.ntffFiles.length === 0) {
    return (
      'not measured: the profiled run left no NTFF file. Were the profiler variables set ' +
      'before the Neuron runtime started (not from Python after import vllm)? Did anything ' +
      'execute on the NeuronCores?'
    );
  }
  if (files.emptyNtffFiles.length === files.ntffFiles.length) {
    return (
      'not measured: every NTFF file is empty: device profiling was off ' +
      '(NEURON_RT_INSPECT_DEVICE_PROFILE), the device ran out of memory for the profile ' +
      '(it needs about 2 GB), or nothing executed'
    );
  }
  return undefined;
}

function emptyNtffWarnings(files: ProfileFiles): string[] {
  if (files.emptyNtffFiles.length === 0 || files.emptyNtffFiles.length === files.ntffFiles.length)
    return [];
  return [
    `${files.emptyNtffFiles.length} of ${files.ntffFiles.length} NTFF files are empty (nothing was captured on those cores)`,
  ];
}

// The config stage: raw settings (action inputs or CLI flags) and the YAML file → one
// validated GateConfig. Nothing runs until this has succeeded.

import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

import { usageError } from '../errors.js';
import { readConfigFile } from './config-file.js';
import { accuracySpec } from './accuracy-prompts.js';
import { configHash } from './config-hash.js';
import type { SloSpec } from './slo.js';
import { settingSweeps, SETTINGS_ALLOWED } from './setting-sweeps.js';
import { sweepVariants } from './sweep.js';
import { DEFAULT_CONFIG_FILES, DEFAULTS } from './defaults.js';
import {
  creatableDirectoryProblem,
  directoryProblem,
  OUT_DIR_ALLOWED,
  WORKING_DIRECTORY_ALLOWED,
} from './directories.js';
import { inputLabels, readInputs } from './inputs.js';
import type { InputLabels, InputValues, SettingsOrigin } from './inputs.js';
import { layerFromFile, mergeSettings } from './merge.js';
import type { MergedSettings } from './merge.js';
import { thresholdKeyProblem } from './metric-names.js';
import { foundMessage, formatProblem, problemsError } from './problems.js';
import { STARTUP_ALLOWED, startupFitsServer } from './startup-schema.js';
import { storeSettings } from './store-settings.js';
import type {
  BaselineMatchSetting,
  BaselineStoreKind,
  BenchmarkSpec,
  GateConfig,
  PricePerHour,
  RawSettings,
  UpdateBaselineSetting,
} from './types.js';

export interface ResolveOptions {
  /** The checked-out repository; relative paths in settings are resolved against it. */
  workspace: string;
  /** Who gave the raw settings, for naming them in messages. Default 'action'. */
  origin?: SettingsOrigin;
}

const EXAMPLE_COMMAND = 'python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"';

/**
 * Benchmarks come either from the inputs (`command`: one benchmark) or from a YAML file
 * (`config`, else `.github/perf-gate.yml` when it exists). Throws GateError: 'usage' for
 * problems with the inputs, 'config' for problems in the file.
 */
export async function resolveGateConfig(
  settings: RawSettings,
  options: ResolveOptions,
): Promise<GateConfig> {
  const workspace = resolve(options.workspace);
  const labels = inputLabels(options.origin ?? 'action');
  const inputs = await readValidInputs(settings, labels, workspace);

  if (inputs.command !== undefined) {
    if (inputs.config !== undefined) throw usageError(bothGivenMessage(labels));
    const merged = mergeSettings([inputs.layer]);
    const name = inputs.name ?? DEFAULTS.name;
    const spec = benchmarkSpec(name, inputs.command, merged, workspace);
    checkThresholdKeys(
      [spec],
      (key) => ({ where: labels.field('thresholds'), path: key }),
      'usage',
    );
    return {
      ...gateConfig(labels.source, [spec], { workspace, inputs }),
      commandFromInputs: true,
    };
  }

  const file = await findConfigFile(inputs.config, workspace, labels);
  if (file === undefined) throw usageError(nothingConfiguredMessage(labels));
  if (inputs.name !== undefined) {
    throw usageError(
      formatProblem({
        where: labels.field('name'),
        path: '',
        message: foundMessage(
          inputs.name,
          `it names the benchmark given by ${labels.field('command')} only; name each entry of benchmarks in ${file.label} instead`,
        ),
      }),
    );
  }

  const content = await readConfigFile(file.path, file.label, workspace);
  const top = layerFromFile(content);
  const benchmarks: BenchmarkSpec[] = [];
  for (const [index, entry] of content.benchmarks.entries()) {
    const merged = mergeSettings([inputs.layer, top, layerFromFile(entry)]);
    const slo = entry.slo;
    // The entry's own blocks: its server, and whether its runs are watched (monitor:).
    const blocks = {
      ...(entry.server ? { server: entry.server } : {}),
      ...(entry.monitor ? { monitor: entry.monitor } : {}),
      ...(entry.startup ? { startup: entry.startup } : {}),
      ...(entry.warmup ? { warmup: entry.warmup } : {}),
      ...(entry.accuracy
        ? {
            accuracy: await accuracySpec(entry.accuracy, entry, {
              at: `benchmarks[${index}]`,
              file: file.label,
              workspace,
            }),
          }
        : {}),
    };
    if (entry.server && entry.startup && !startupFitsServer(entry.startup)) {
      checkStartupWithServer(`benchmarks[${index}]`, file.label);
    }
    if (!entry.sweep) {
      const spec = {
        ...benchmarkSpec(entry.name, entry.command, merged, workspace, slo),
        ...blocks,
      };
      benchmarks.push({ ...spec, configHash: configHash(spec, workspace) });
      continue;
    }
    // Each variant of a sweep is a benchmark of its own, with its own baseline; they all
    // run against one server (pipeline.ts), so a sweep varies the load, not the server.
    const variants = await sweepVariants(entry.sweep, workspace);
    if (slo) checkCapacityName(variants, `benchmarks[${index}]`, file.label);
    if (entry.sweep.settings && !entry.server)
      checkSettingsServer(`benchmarks[${index}]`, file.label);
    // With settings:, each setting is a sweep of its own, `<entry>/<setting>`: its own
    // server (started with the setting's parameters), capacity and baselines.
    for (const { name: sweepName, setting } of settingSweeps(entry.name, entry.sweep)) {
      for (const variant of variants) {
        const name = `${sweepName}/${variant.name}`;
        const spec = benchmarkSpec(name, entry.command, merged, workspace, slo);
        const params = { ...setting?.params, ...variant.params };
        const sweep = {
          name: sweepName,
          variant: variant.name,
          params,
          ...(setting ? { setting, entry: entry.name } : {}),
        };
        const full = { ...spec, sweep, ...blocks };
        benchmarks.push({ ...full, configHash: configHash(full, workspace) });
      }
    }
  }
  checkThresholdKeys(
    benchmarks,
    (key) => ({ where: file.label, path: `thresholds.${key}` }),
    'config',
    file.label,
  );
  return gateConfig(file.label, benchmarks, {
    workspace,
    inputs,
    failOnRegression: content['fail-on-regression'],
    failOnInconclusive: content['fail-on-inconclusive'],
    confidence: content.confidence,
    baselinePaths: content['baseline-path'],
    baselineWindow: content['baseline-window'],
    profilerPath: content['profiler-path'],
    uploadProfiles: content['upload-profiles'],
    artifactRetentionDays: content['artifact-retention-days'],
    artifactCompressionLevel: content['artifact-compression-level'],
    baselineStore: content['baseline-store'],
    baselineBranch: content['baseline-branch'],
    baselineS3Bucket: content['baseline-s3-bucket'],
    baselineS3Prefix: content['baseline-s3-prefix'],
    baselineS3Region: content['baseline-s3-region'],
    baselineS3Endpoint: content['baseline-s3-endpoint'],
    baselineMatch: content['baseline-match'],
    acceptAfter: content['accept-after'],
    updateBaseline: content['update-baseline'],
    baselineKeep: content['baseline-keep'],
    missingAfter: content['missing-after'],
    environmentProbe: content['environment-probe'],
    setup: content.setup,
    pricePerHour: content['price-per-hour'],
  });
}

/** The inputs, checked; a working directory given as input must exist. */
async function readValidInputs(
  settings: RawSettings,
  labels: InputLabels,
  workspace: string,
): Promise<InputValues> {
  const { values, problems } = readInputs(settings, labels);
  const directory = values.layer.workingDirectory;
  if (directory !== undefined) {
    const reason = await directoryProblem(workspace, directory);
    if (reason !== undefined) {
      problems.push({
        where: labels.field('working-directory'),
        path: '',
        message: foundMessage(directory, `${reason}; ${WORKING_DIRECTORY_ALLOWED}`),
      });
    }
  }
  // The default folder too: a file of that name in the workspace is just as much in the way.
  const outDir = values.outDir ?? DEFAULTS.outDir;
  const outDirReason = await creatableDirectoryProblem(workspace, outDir);
  if (outDirReason !== undefined) {
    problems.push({
      where: labels.field('out-dir'),
      path: '',
      message: foundMessage(outDir, `${outDirReason}; ${OUT_DIR_ALLOWED}`),
    });
  }
  if (problems.length > 0) throw problemsError('usage', problems);
  return values;
}

function benchmarkSpec(
  name: string,
  command: string,
  merged: MergedSettings,
  workspace: string,
  slo?: SloSpec,
): BenchmarkSpec {
  const spec: BenchmarkSpec = {
    name,
    command,
    format: merged.format,
    runs: merged.runs,
    confirmRuns: merged.confirmRuns,
    profile: merged.profile,
    profileMode: merged.profileMode,
    thresholds: merged.thresholds,
    workingDirectory: resolve(workspace, merged.workingDirectory),
    env: merged.env,
    timeoutMinutes: merged.timeoutMinutes,
    ...(slo ? { slo } : {}),
  };
  return { ...spec, configHash: configHash(spec, workspace) };
}

/** Gate-wide settings: the file's value > the input's > the built-in default. */
function gateConfig(
  source: string,
  benchmarks: BenchmarkSpec[],
  from: {
    workspace: string;
    inputs: InputValues;
    failOnRegression?: boolean;
    failOnInconclusive?: boolean;
    confidence?: number;
    baselinePaths?: string[];
    baselineWindow?: number;
    profilerPath?: string;
    uploadProfiles?: boolean;
    artifactRetentionDays?: number;
    artifactCompressionLevel?: number;
    baselineStore?: BaselineStoreKind;
    baselineBranch?: string;
    baselineS3Bucket?: string;
    baselineS3Prefix?: string;
    baselineS3Region?: string;
    baselineS3Endpoint?: string;
    baselineMatch?: BaselineMatchSetting;
    acceptAfter?: number;
    updateBaseline?: UpdateBaselineSetting;
    baselineKeep?: number;
    missingAfter?: number;
    environmentProbe?: string;
    setup?: string;
    pricePerHour?: PricePerHour;
  },
): GateConfig {
  const { workspace, inputs } = from;
  const baselinePaths = from.baselinePaths ?? inputs.baselinePaths ?? [];
  // Only resolved here: the path is checked when the profiler is run, so a gate that never
  // profiles does not fail on it.
  const profilerPath = from.profilerPath ?? inputs.profilerPath;
  const environmentProbe = from.environmentProbe ?? inputs.environmentProbe;
  // Baseline files given by path mean the file store unless a store is named.
  const baselineStore =
    from.baselineStore ??
    inputs.baselineStore ??
    (baselinePaths.length > 0 ? 'file' : 'git-branch');
  return {
    source,
    benchmarks,
    baselinePaths: baselinePaths.map((path) => resolve(workspace, path)),
    failOnRegression: from.failOnRegression ?? inputs.failOnRegression ?? DEFAULTS.failOnRegression,
    failOnInconclusive:
      from.failOnInconclusive ?? inputs.failOnInconclusive ?? DEFAULTS.failOnInconclusive,
    confidence: from.confidence ?? inputs.confidence ?? DEFAULTS.confidence,
    baselineWindow: from.baselineWindow ?? inputs.baselineWindow ?? DEFAULTS.baselineWindow,
    outDir: resolve(workspace, inputs.outDir ?? DEFAULTS.outDir),
    ...(inputs.saveBaseline === undefined
      ? {}
      : { saveBaseline: resolve(workspace, inputs.saveBaseline) }),
    ...(profilerPath === undefined ? {} : { profilerPath: resolve(workspace, profilerPath) }),
    uploadProfiles: from.uploadProfiles ?? inputs.uploadProfiles ?? DEFAULTS.uploadProfiles,
    artifactRetentionDays:
      from.artifactRetentionDays ?? inputs.artifactRetentionDays ?? DEFAULTS.artifactRetentionDays,
    artifactCompressionLevel:
      from.artifactCompressionLevel ??
      inputs.artifactCompressionLevel ??
      DEFAULTS.artifactCompressionLevel,
    baselineStore,
    baselineBranch: from.baselineBranch ?? inputs.baselineBranch ?? DEFAULTS.baselineBranch,
    ...storeSettings(baselineStore, from, inputs),
    baselineMatch: from.baselineMatch ?? inputs.baselineMatch ?? DEFAULTS.baselineMatch,
    acceptAfter: from.acceptAfter ?? inputs.acceptAfter ?? DEFAULTS.acceptAfter,
    updateBaseline: from.updateBaseline ?? inputs.updateBaseline ?? DEFAULTS.updateBaseline,
    baselineKeep: from.baselineKeep ?? inputs.baselineKeep ?? DEFAULTS.baselineKeep,
    missingAfter: from.missingAfter ?? inputs.missingAfter ?? DEFAULTS.missingAfter,
    ...(environmentProbe === undefined ? {} : { environmentProbe }),
    ...(from.setup === undefined ? {} : { setup: from.setup }),
    ...(from.pricePerHour === undefined ? {} : { pricePerHour: from.pricePerHour }),
  };
}

/** The file named by `config`, which must exist; else the first default file that exists. */
async function findConfigFile(
  config: string | undefined,
  workspace: string,
  labels: InputLabels,
): Promise<{ path: string; label: string } | undefined> {
  if (config !== undefined) {
    const path = resolve(workspace, config);
    const label = fileLabel(workspace, path);
    const kind = await pathKind(path);
    if (kind !== 'file') {
      throw problemsError(
        'config',
        [
          {
            where: label,
            path: '',
            message: foundMessage(
              config,
              `given by ${labels.field('config')}, but ${path} ${kind === 'missing' ? 'does not exist' : 'is not a file'}; allowed: the path of a YAML config file, relative to the workspace`,
            ),
          },
        ],
        label,
      );
    }
    return { path, label };
  }
  for (const candidate of DEFAULT_CONFIG_FILES) {
    const path = resolve(workspace, candidate);
    if ((await pathKind(path)) === 'file') return { path, label: candidate };
  }
  return undefined;
}

async function pathKind(path: string): Promise<'file' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

/** Relative to the workspace with '/', as the user would write it; absolute if outside. */
function fileLabel(workspace: string, path: string): string {
  const inside = relative(workspace, path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside)
    ? path
    : inside.split(sep).join('/');
}

function bothGivenMessage(labels: InputLabels): string {
  return (
    `${labels.field('config')} and ${labels.field('command')} are both given; choose one: ` +
    `${labels.field('command')} runs one benchmark described by the inputs, ` +
    `${labels.field('config')} reads the benchmarks from a YAML file`
  );
}

function nothingConfiguredMessage(labels: InputLabels): string {
  return [
    `nothing to run: no benchmark command and no config file (looked for ${DEFAULT_CONFIG_FILES.join(' and ')}).`,
    `Either give one benchmark with ${labels.field('command')}, e.g.`,
    labels.commandExample(EXAMPLE_COMMAND),
    `or describe the benchmarks in ${DEFAULT_CONFIG_FILES[0]} (or a file named by ${labels.field('config')}), e.g.`,
    '  benchmarks:',
    '    - name: my-benchmark',
    `      command: ${EXAMPLE_COMMAND}`,
  ].join('\n');
}

/** A sweep with an SLO also reports `<name>/capacity`: no variant may be called so. */
/** With a server, `startup:` is a cold start only; its clean starts are `server_startup` already. */
function checkStartupWithServer(at: string, file: string): never {
  throw problemsError(
    'config',
    [{ where: file, path: `${at}.startup`, message: STARTUP_ALLOWED.withServer }],
    file,
  );
}

/** `sweep: settings:` restarts the entry's server per setting: it needs a `server:` block. */
function checkSettingsServer(at: string, file: string): never {
  throw problemsError(
    'config',
    [{ where: file, path: `${at}.sweep.settings`, message: SETTINGS_ALLOWED.withoutServer }],
    file,
  );
}

function checkCapacityName(variants: readonly { name: string }[], at: string, file: string): void {
  if (!variants.some((variant) => variant.name === CAPACITY_VARIANT)) return;
  throw problemsError(
    'config',
    [
      {
        where: file,
        path: `${at}.sweep`,
        message: foundMessage(
          CAPACITY_VARIANT,
          `a variant named ${CAPACITY_VARIANT} would share its name with the sweep's capacity under its slo (<name>/${CAPACITY_VARIANT}); rename the variant`,
        ),
      },
    ],
    file,
  );
}

/** The variant name the capacity benchmark of a sweep with an SLO takes. */
const CAPACITY_VARIANT = 'capacity';

/** Refuses threshold keys that name no metric (metric-names.ts), all of them in one error. */
function checkThresholdKeys(
  benchmarks: readonly BenchmarkSpec[],
  whereOf: (key: string) => { where: string; path: string },
  kind: 'config' | 'usage',
  file?: string,
): void {
  const formats = benchmarks.map((spec) => spec.format);
  const keys = new Set(benchmarks.flatMap((spec) => Object.keys(spec.thresholds)));
  const problems = [...keys].flatMap((key) => {
    const message = thresholdKeyProblem(key, formats);
    return message === undefined ? [] : [{ ...whereOf(key), message }];
  });
  if (problems.length > 0) throw problemsError(kind, problems, file);
}

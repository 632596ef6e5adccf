// What the report shows of the resolved configuration: enough to reproduce a run, in a
// plain serializable shape. Environment variable values are left out on purpose: they are
// where tokens live, and the report is posted where everyone on the PR can read it. For
// the same reason a command given as an input (which may have a secret expanded into it)
// is left out; a config file's commands are in the repository already.

import { sloText } from '../config/slo.js';
import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import type { ResolvedConfigView } from '../model.js';

/** The settings configView reads; a GateConfig is one. */
export type ConfigViewSource = Pick<
  GateConfig,
  | 'source'
  | 'confidence'
  | 'baselineWindow'
  | 'failOnRegression'
  | 'failOnInconclusive'
  | 'uploadProfiles'
  | 'artifactRetentionDays'
  | 'baselinePaths'
  | 'commandFromInputs'
> & {
  benchmarks: Pick<
    BenchmarkSpec,
    | 'name'
    | 'sweep'
    | 'command'
    | 'format'
    | 'runs'
    | 'confirmRuns'
    | 'profile'
    | 'profileMode'
    | 'thresholds'
    | 'timeoutMinutes'
    | 'workingDirectory'
    | 'env'
    | 'configHash'
    | 'slo'
  >[];
};

export function configView(config: ConfigViewSource): ResolvedConfigView {
  return {
    source: config.source,
    confidence: config.confidence,
    baselineWindow: config.baselineWindow,
    failOnRegression: config.failOnRegression,
    failOnInconclusive: config.failOnInconclusive,
    uploadProfiles: config.uploadProfiles,
    artifactRetentionDays: config.artifactRetentionDays,
    baselinePaths: [...config.baselinePaths],
    benchmarks: config.benchmarks.map((spec) => ({
      name: spec.name,
      ...(spec.sweep
        ? {
            sweep: {
              name: spec.sweep.name,
              variant: spec.sweep.variant,
              params: { ...spec.sweep.params },
            },
          }
        : {}),
      ...(config.commandFromInputs ? {} : { command: spec.command }),
      format: spec.format,
      runs: spec.runs,
      confirmRuns: spec.confirmRuns,
      profile: spec.profile,
      profileMode: spec.profileMode,
      thresholds: { ...spec.thresholds },
      timeoutMinutes: spec.timeoutMinutes,
      workingDirectory: spec.workingDirectory,
      envNames: Object.keys(spec.env).sort(),
      ...(spec.slo ? { slo: sloText(spec.slo) } : {}),
      ...(spec.configHash ? { configHash: spec.configHash } : {}),
    })),
  };
}

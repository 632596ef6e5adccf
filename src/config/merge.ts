// Precedence of per-benchmark settings: benchmark entry > top level of the file > action
// input / CLI flag > built-in default. Scalars: the highest layer that gives one wins.
// thresholds and env: merged per metric id / variable name in the same order.

import { DEFAULTS } from './defaults.js';
import type { ProfileModeSetting, ProfileSetting } from './types.js';

/** One layer of per-benchmark settings; a field left out defers to the layer below. */
export interface SettingsLayer {
  format?: string;
  runs?: number;
  confirmRuns?: number;
  profile?: ProfileSetting;
  profileMode?: ProfileModeSetting;
  /** Metric id → fraction. */
  thresholds?: Record<string, number>;
  /** As written, relative to the workspace. */
  workingDirectory?: string;
  env?: Record<string, string>;
  timeoutMinutes?: number;
}

export type MergedSettings = Required<SettingsLayer>;

export const DEFAULT_LAYER: MergedSettings = Object.freeze({
  format: DEFAULTS.format,
  runs: DEFAULTS.runs,
  confirmRuns: DEFAULTS.confirmRuns,
  profile: DEFAULTS.profile,
  profileMode: DEFAULTS.profileMode,
  // Only what the config says; thresholdOf() falls back to the built-in rules.
  thresholds: {},
  workingDirectory: DEFAULTS.workingDirectory,
  env: {},
  timeoutMinutes: DEFAULTS.timeoutMinutes,
});

/** Layers from lowest to highest precedence, starting from the built-in defaults. */
export function mergeSettings(layers: readonly SettingsLayer[]): MergedSettings {
  const merged: MergedSettings = {
    ...DEFAULT_LAYER,
    thresholds: { ...DEFAULT_LAYER.thresholds },
    env: { ...DEFAULT_LAYER.env },
  };
  for (const layer of layers) {
    if (layer.format !== undefined) merged.format = layer.format;
    if (layer.runs !== undefined) merged.runs = layer.runs;
    if (layer.confirmRuns !== undefined) merged.confirmRuns = layer.confirmRuns;
    if (layer.profile !== undefined) merged.profile = layer.profile;
    if (layer.profileMode !== undefined) merged.profileMode = layer.profileMode;
    if (layer.workingDirectory !== undefined) merged.workingDirectory = layer.workingDirectory;
    if (layer.timeoutMinutes !== undefined) merged.timeoutMinutes = layer.timeoutMinutes;
    Object.assign(merged.thresholds, layer.thresholds);
    Object.assign(merged.env, layer.env);
  }
  return merged;
}

/** The file's kebab-case keys (top level or a benchmark entry) as a layer. */
export function layerFromFile(entry: {
  format?: string;
  runs?: number;
  'confirm-runs'?: number;
  profile?: ProfileSetting;
  'profile-mode'?: ProfileModeSetting;
  thresholds?: Record<string, number>;
  'working-directory'?: string;
  env?: Record<string, string>;
  'timeout-minutes'?: number;
}): SettingsLayer {
  return {
    format: entry.format,
    runs: entry.runs,
    confirmRuns: entry['confirm-runs'],
    profile: entry.profile,
    profileMode: entry['profile-mode'],
    thresholds: entry.thresholds,
    workingDirectory: entry['working-directory'],
    env: entry.env,
    timeoutMinutes: entry['timeout-minutes'],
  };
}

import * as core from '@actions/core';
import type { RawSettings } from './config/types.js';

/** Every action input that becomes a gate setting; the names match action.yml. */
export const SETTING_INPUTS = [
  'config',
  'command',
  'name',
  'format',
  'runs',
  'profile',
  'thresholds',
  'baseline-path',
  'fail-on-regression',
  'working-directory',
  'timeout-minutes',
  'out-dir',
  'save-baseline',
  'confidence',
  'fail-on-inconclusive',
  'confirm-runs',
  'baseline-window',
  'profile-mode',
  'profiler-path',
  'upload-profiles',
  'artifact-retention-days',
  'artifact-compression-level',
  'baseline-store',
  'baseline-branch',
  'baseline-match',
  'accept-after',
  'update-baseline',
  'baseline-keep',
  'missing-after',
  'environment-probe',
] as const satisfies readonly (keyof RawSettings)[];

/** The action's inputs as raw strings, '' for the ones not given. */
export function readActionInputs(): RawSettings {
  const settings: RawSettings = {};
  for (const name of SETTING_INPUTS) settings[name] = core.getInput(name);
  return settings;
}

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
  'baseline-s3-bucket',
  'baseline-s3-prefix',
  'baseline-s3-region',
  'baseline-s3-endpoint',
  'baseline-postgres-url',
  'baseline-match',
  'accept-after',
  'update-baseline',
  'baseline-keep',
  'missing-after',
  'environment-probe',
] as const satisfies readonly (keyof RawSettings)[];

/** The postgres store's connection string when the input is empty (a job-wide secret). */
export const POSTGRES_URL_VARIABLE = 'PERF_GATE_POSTGRES_URL';

/** The action's inputs as raw strings, '' for the ones not given. */
export function readActionInputs(env: NodeJS.ProcessEnv = process.env): RawSettings {
  const settings: RawSettings = {};
  for (const name of SETTING_INPUTS) settings[name] = core.getInput(name);
  const postgresUrl =
    settings['baseline-postgres-url']?.trim() || env[POSTGRES_URL_VARIABLE]?.trim();
  if (postgresUrl) {
    maskConnectionString(postgresUrl);
    settings['baseline-postgres-url'] = postgresUrl;
  }
  return settings;
}

/**
 * Masks the connection string, and its password on its own, in the job's log: an error of
 * the driver may quote either. (Published text is redacted apart, report/redact.ts.)
 */
function maskConnectionString(url: string): void {
  core.setSecret(url);
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password) core.setSecret(password);
  } catch {
    // Not a URL the WHATWG parser takes (key=value form): the whole string is masked.
  }
}

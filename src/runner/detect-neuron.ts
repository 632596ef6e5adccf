// Whether this machine has the Neuron tools, for `profile: auto` and `on-change`.

import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ProfileSetting } from '../config/types.js';

/** Where the Neuron SDK installs its CLIs; often not on PATH of a non-login shell. */
export const NEURON_BIN_DIR = '/opt/aws/neuron/bin';

/** Any of these means a Neuron device (neuron-ls) or a profiler CLI is installed. */
export const NEURON_DETECTION_TOOLS = ['neuron-ls', 'neuron-explorer', 'neuron-profile'] as const;

/**
 * The absolute path of executable `name`, looked up on `env.PATH` and then in
 * `extraDirs` (by default /opt/aws/neuron/bin); undefined when not found.
 */
export async function findNeuronTool(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  extraDirs: readonly string[] = [NEURON_BIN_DIR],
): Promise<string | undefined> {
  const pathDirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const dir of [...pathDirs, ...extraDirs]) {
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface ProfileDecision {
  profile: boolean;
  /**
   * `profile: on-change` on a run that cannot store the baseline (a pull request): the
   * profiled run follows the looks, and only when a gated metric ends beyond its threshold.
   */
  onlyWhenMoved?: boolean;
  /** Why, in words for the log. */
  reason: string;
}

/**
 * Resolves the `profile` setting: 'true' and 'false' as given, 'auto' by looking for
 * tools, 'on-change' as auto on a run that may store the baseline (`storesBaseline`: the
 * stored baseline always has MFU) and as auto after the looks on any other run.
 */
export async function shouldProfile(
  setting: ProfileSetting,
  env: Readonly<Record<string, string | undefined>>,
  extraDirs: readonly string[] = [NEURON_BIN_DIR],
  storesBaseline = true,
): Promise<ProfileDecision> {
  if (setting === 'true') return { profile: true, reason: 'profile is set to true' };
  if (setting === 'false') return { profile: false, reason: 'profile is set to false' };
  for (const tool of NEURON_DETECTION_TOOLS) {
    const path = await findNeuronTool(tool, env, extraDirs);
    if (path === undefined) continue;
    const found = `profile is ${setting} and ${tool} was found at ${path}`;
    if (setting === 'auto') return { profile: true, reason: found };
    if (storesBaseline) {
      return {
        profile: true,
        reason: `${found}; this run may store the baseline, so it is profiled`,
      };
    }
    return {
      profile: true,
      onlyWhenMoved: true,
      reason:
        `${found}; this run does not store the baseline, so it is profiled only if a ` +
        'gated metric ends beyond its threshold',
    };
  }
  const places = ['PATH', ...extraDirs].join(' or ');
  return {
    profile: false,
    reason: `profile is ${setting} and none of ${NEURON_DETECTION_TOOLS.join(', ')} was found on ${places}`,
  };
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

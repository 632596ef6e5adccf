// The software half of the environment fingerprint, found without any configuration:
// Python packages from `pip list`, Neuron tools and runtime from `neuron-ls --version`.

import type { Environment } from '../model.js';
import { findNeuronTool } from '../runner/detect-neuron.js';
import { toolOutput, type ToolContext } from './tool-output.js';

export type SoftwareVersions = Pick<
  Environment,
  'neuronSdkVersion' | 'compilerVersion' | 'runtimeVersion' | 'vllmVersion' | 'vllmNeuronVersion'
>;

/**
 * Versions of the Neuron compiler, runtime and SDK and of vLLM and its Neuron plugin.
 * Whatever cannot be found (no pip, no neuron-ls, a tool that fails or hangs) is left
 * out; this never throws.
 */
export async function probeSoftwareVersions(tools: ToolContext): Promise<SoftwareVersions> {
  const [packages, neuronLs] = await Promise.all([
    listPipPackages(tools),
    readNeuronLsVersion(tools),
  ]);
  const versions: SoftwareVersions = {};
  const set = (field: keyof SoftwareVersions, value: string | undefined): void => {
    if (value) versions[field] = value;
  };
  set('neuronSdkVersion', neuronLs.sdkVersion ?? sdkVersionOfTools(neuronLs.toolsVersion));
  // pip distribution names in PEP 503 normal form.
  set('compilerVersion', packages?.get('neuronx-cc'));
  set('runtimeVersion', neuronLs.runtimeVersion);
  set('vllmVersion', packages?.get('vllm'));
  set('vllmNeuronVersion', packages?.get('vllm-neuron'));
  return versions;
}

/** PEP 503 normal form: `vllm_neuron`, `VLLM.Neuron` and `vllm-neuron` are one package. */
export function normalizePackageName(name: string): string {
  return name
    .trim()
    .replace(/[-_.]+/g, '-')
    .toLowerCase();
}

/**
 * Installed distributions by normalized name, from `pip list --format=json`: `pip` on
 * PATH first, then `python3 -m pip`. Undefined when neither answers with a package list.
 */
export async function listPipPackages(
  tools: ToolContext,
): Promise<Map<string, string> | undefined> {
  // --disable-pip-version-check: otherwise pip may ask PyPI for a newer pip, over the network.
  const listArgs = ['list', '--format=json', '--disable-pip-version-check'];
  const candidates: [string, string[]][] = [
    ['pip', listArgs],
    ['python3', ['-m', 'pip', ...listArgs]],
  ];
  for (const [name, args] of candidates) {
    const file = await findNeuronTool(name, tools.env, []);
    if (!file) continue;
    const stdout = await toolOutput(tools, file, args);
    const packages = stdout === undefined ? undefined : parsePipList(stdout);
    if (packages) return packages;
  }
  return undefined;
}

/** `[{"name": "...", "version": "..."}, ...]`; undefined when the output is not that. */
export function parsePipList(stdout: string): Map<string, string> | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (!Array.isArray(data)) return undefined;
  const packages = new Map<string, string>();
  for (const entry of data) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { name, version } = entry as Record<string, unknown>;
    if (typeof name === 'string' && typeof version === 'string' && version.trim() !== '') {
      packages.set(normalizePackageName(name), version.trim());
    }
  }
  return packages;
}

export interface NeuronLsVersion {
  /** The aws-neuronx-tools version, which neuron-ls belongs to. */
  toolsVersion?: string;
  runtimeVersion?: string;
  /** Only when the tool states the SDK release itself. */
  sdkVersion?: string;
}

const VERSION = /\d+\.\d+(?:\.\d+)+/;

/**
 * Reads `neuron-ls --version`. Its first version is the tools package's own; a line that
 * names the runtime or the SDK gives that version instead. Driver lines are skipped: the
 * driver is versioned on its own.
 */
export function parseNeuronLsVersion(stdout: string): NeuronLsVersion {
  const result: NeuronLsVersion = {};
  for (const line of stdout.split(/\r?\n/)) {
    const version = VERSION.exec(line)?.[0];
    if (version === undefined || /driver/i.test(line)) continue;
    if (/runtime/i.test(line)) result.runtimeVersion ??= version;
    else if (/\bsdk\b/i.test(line)) result.sdkVersion ??= version;
    else result.toolsVersion ??= version;
  }
  return result;
}

/**
 * The Neuron SDK release line of an aws-neuronx-tools version: `2.26.14.0` → `2.26`.
 *
 * No installed package carries the SDK version itself. Since Neuron 2.6 the tools
 * package has shipped with every SDK release under the release's major.minor (tools
 * 2.24.54.0 in SDK 2.24.0, 2.26.14.0 in 2.26.x, 2.28.23.0 in 2.28.0), so it names the
 * release line. Patch releases (2.26.0, 2.26.1) share it, but what they change (the
 * compiler, the runtime) is fingerprinted on its own. A configured probe command can
 * give the exact SDK version instead.
 */
export function sdkVersionOfTools(toolsVersion: string | undefined): string | undefined {
  const match = /^(\d+)\.(\d+)\./.exec(toolsVersion ?? '');
  if (!match || Number(match[1]) < 2) return undefined;
  return `${match[1]}.${match[2]}`;
}

async function readNeuronLsVersion(tools: ToolContext): Promise<NeuronLsVersion> {
  const neuronLs = await findNeuronTool('neuron-ls', tools.env);
  if (!neuronLs) return {};
  const stdout = await toolOutput(tools, neuronLs, ['--version']);
  return stdout === undefined ? {} : parseNeuronLsVersion(stdout);
}

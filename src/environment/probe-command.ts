// The configured environment probe: a shell command that prints the fingerprint fields
// the default probes cannot see (an exact SDK release, a runtime in a container). Unlike
// the defaults it is never silent: a probe someone configured and that fails is news.

import type { Environment } from '../model.js';
import { childEnvironment, defaultShell } from '../runner/child-env.js';
import { describeLeftovers } from '../runner/leftovers.js';
import type { ProcessRunner } from '../runner/types.js';
import { PROBE_TIMEOUT_MS } from './tool-output.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The fields the probes find, in the order an environment lists them. */
export const PROBED_FIELDS = [
  'instanceType',
  'neuronDevices',
  'neuronCores',
  'logicalNcConfig',
  'neuronSdkVersion',
  'compilerVersion',
  'runtimeVersion',
  'vllmVersion',
  'vllmNeuronVersion',
] as const satisfies readonly (keyof Environment)[];

type ProbedField = (typeof PROBED_FIELDS)[number];

export type ProbedFields = Pick<Environment, ProbedField>;

/** Key spellings a probe may print, compared without case, `-`, `_` or `.`. */
const KEY_ALIASES: Record<ProbedField, readonly string[]> = {
  instanceType: ['instancetype', 'instance'],
  neuronDevices: ['neurondevices', 'neurondevicecount'],
  neuronCores: ['neuroncores', 'neuroncorecount'],
  logicalNcConfig: ['logicalncconfig', 'lnc', 'logicalneuroncoreconfig', 'neuronlogicalncconfig'],
  neuronSdkVersion: ['neuronsdkversion', 'neuronsdk', 'sdkversion', 'sdk'],
  compilerVersion: ['compilerversion', 'compiler', 'neuronxcc', 'neuronxccversion'],
  runtimeVersion: ['runtimeversion', 'runtime', 'neuronruntime', 'neuronruntimeversion'],
  vllmVersion: ['vllmversion', 'vllm'],
  vllmNeuronVersion: ['vllmneuronversion', 'vllmneuron'],
};

const COUNT_FIELDS: ReadonlySet<ProbedField> = new Set([
  'neuronDevices',
  'neuronCores',
  'logicalNcConfig',
]);

const FIELD_OF_KEY = new Map<string, ProbedField>(
  (Object.entries(KEY_ALIASES) as [ProbedField, readonly string[]][]).flatMap(([field, keys]) =>
    keys.map((key) => [key, field] as const),
  ),
);

/** Lines of stderr quoted in a warning. */
const STDERR_LINES = 5;
/** A probe prints a few lines; output this long is a mistake. */
const PROBE_OUTPUT_BYTES = 1024 * 1024;
const MAX_QUOTED_LINE = 200;

export interface ProbeCommandOptions {
  /** Runs the probe contained, like the benchmark. */
  runner: ProcessRunner;
  /** 30 s by default. */
  timeoutMs?: number;
  /** The shell to run `-c command` with; /bin/bash by default. */
  shell?: string;
  /** Where the command runs; ours by default. */
  cwd?: string;
}

export interface ProbeCommandResult {
  /** Empty when the command failed: the default probes stand. */
  values: ProbedFields;
  /** Why values are missing or were ignored, naming the command. */
  warnings: string[];
}

/**
 * Runs `bash -c command` with `env` and reads the fields it prints, as a JSON object or
 * as `key=value` lines. A non-zero exit, a timeout or output that is neither gives no
 * values and a warning that says what went wrong and quotes the start of stderr (never the
 * command itself: it may hold a secret).
 */
export async function runProbeCommand(
  command: string,
  env: Env,
  options: ProbeCommandOptions,
): Promise<ProbeCommandResult> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const shell = options.shell ?? defaultShell();
  const failed = (problem: string): ProbeCommandResult => ({
    values: {},
    warnings: [
      `the environment probe (environment-probe) ${problem}; the default probes (neuron-ls, pip) were used instead`,
    ],
  });

  const result = await options.runner.capture({
    file: shell,
    args: ['-c', command],
    env: childEnvironment(env),
    timeoutMs,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  const stderr = result.stderr;
  const left = result.leftovers
    ? [
        `the environment probe (environment-probe) left ${describeLeftovers(result.leftovers)} running after it exited; they were stopped`,
      ]
    : [];
  const failedWith = (problem: string): ProbeCommandResult => {
    const failure = failed(problem);
    return { ...failure, warnings: [...failure.warnings, ...left] };
  };

  if (result.timedOut) {
    return failedWith(`timed out after ${formatSeconds(timeoutMs)}${stderrNote(stderr)}`);
  }
  if (result.spawnError !== undefined) {
    return failedWith(`could not be started: ${result.spawnError}`);
  }
  if (result.exitCode !== 0) {
    const how =
      result.exitCode === null
        ? `was killed by ${result.signal ?? 'a signal'}`
        : `exited with code ${result.exitCode}`;
    return failedWith(`${how}${stderrNote(stderr)}`);
  }
  if (result.stdout.length >= PROBE_OUTPUT_BYTES) return failedWith('printed more than 1 MB');

  const parsed = parseProbeOutput(result.stdout);
  if ('error' in parsed) return failedWith(`${parsed.error}${stderrNote(stderr)}`);
  const warnings = parsed.problems.map(
    (problem) => `the environment probe (environment-probe) ${problem}`,
  );
  if (Object.keys(parsed.values).length === 0) {
    return {
      values: {},
      warnings: [...warnings, ...failedWith('printed no usable field').warnings],
    };
  }
  return { values: parsed.values, warnings: [...warnings, ...left] };
}

export type ParsedProbeOutput = { values: ProbedFields; problems: string[] } | { error: string };

/**
 * A JSON object, or `key=value` lines (blank lines and `#` comments allowed, values may
 * be quoted). Keys are Environment field names in any case, with `-`, `_` or `.`
 * (`neuronSdkVersion`, `neuron-sdk`, `neuron_sdk_version`). Unknown keys and bad values
 * are `problems`; output in neither shape is an `error`.
 */
export function parseProbeOutput(stdout: string): ParsedProbeOutput {
  const text = stdout.trim();
  if (text === '') return { error: 'printed nothing' };
  const pairs =
    text.startsWith('{') || text.startsWith('[') ? jsonPairs(text) : keyValuePairs(text);
  if ('error' in pairs) return pairs;

  const values: ProbedFields = {};
  const unknown: string[] = [];
  const problems: string[] = [];
  for (const [key, raw] of pairs.entries) {
    const field = FIELD_OF_KEY.get(key.toLowerCase().replace(/[-_.\s]/g, ''));
    if (field === undefined) {
      unknown.push(key);
      continue;
    }
    const value = fieldValue(field, raw);
    if (typeof value === 'object') problems.push(`gave ${key} ${value.problem}; it was ignored`);
    else if (value !== undefined) (values as Record<ProbedField, string | number>)[field] = value;
  }
  if (unknown.length > 0) {
    problems.unshift(
      `printed keys that are not environment fields, ignored: ${unknown.join(', ')} (known: ${allKeys()})`,
    );
  }
  return { values, problems };
}

type Pairs = { entries: [string, unknown][] } | { error: string };

function jsonPairs(text: string): Pairs {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { error: `printed invalid JSON (${(error as Error).message})` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { error: 'printed JSON that is not an object' };
  }
  return { entries: Object.entries(data) };
}

function keyValuePairs(text: string): Pairs {
  const entries: [string, unknown][] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const match = /^\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*=(.*)$/.exec(line);
    if (!match) {
      return {
        error: `printed neither a JSON object nor key=value lines (line ${index + 1}: "${clip(line.trim())}")`,
      };
    }
    entries.push([match[1]!, unquote(match[2]!.trim())]);
  }
  return { entries };
}

/** The field's value; undefined for an empty one (unknown); `{ problem }` for a bad one. */
function fieldValue(
  field: ProbedField,
  raw: unknown,
): string | number | undefined | { problem: string } {
  if (raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  if (COUNT_FIELDS.has(field)) {
    const count =
      typeof raw === 'number' && Number.isInteger(raw) && raw >= 0
        ? raw
        : typeof raw === 'string' && /^\d+$/.test(raw.trim())
          ? Number(raw.trim())
          : undefined;
    if (count === undefined) return { problem: `${describeValue(raw)}, not a whole number` };
    if (field === 'logicalNcConfig' && count !== 1 && count !== 2) {
      return { problem: `${describeValue(raw)}, not 1 or 2 (the only LNC settings)` };
    }
    return count;
  }
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw === 'string') return raw.trim();
  return { problem: `${describeValue(raw)}, not a string` };
}

function describeValue(raw: unknown): string {
  return typeof raw === 'string' ? `"${clip(raw)}"` : clip(String(JSON.stringify(raw)));
}

function unquote(value: string): string {
  const quoted = /^(["'])(.*)\1$/.exec(value);
  return quoted ? quoted[2]! : value;
}

function stderrNote(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, STDERR_LINES)
    .map((line) => clip(line));
  return lines.length === 0 ? ' (nothing on stderr)' : ` (stderr: ${lines.join(' | ')})`;
}

function allKeys(): string {
  return Object.keys(KEY_ALIASES).join(', ');
}

function clip(text: string, max = MAX_QUOTED_LINE): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function formatSeconds(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

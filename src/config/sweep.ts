// Sweeps: one configured benchmark run once per variant of its parameters, in the shape
// of the reference sweep file (a shared base and named variants). Each variant becomes a
// benchmark of its own, with its own baseline and its own table.

import { readFile } from 'node:fs/promises';
import { unreadableConfigFile } from '../fs/no-links.js';
import { relative, resolve } from 'node:path';
import { z } from 'zod';
import { configError, errorMessage } from '../errors.js';
import { parseJsonText } from '../formats/json.js';
import { nulByteProblems } from './nul-bytes.js';
import { problemsError } from './problems.js';

/** Parameter names become PERF_GATE_PARAM_<NAME> variables, so they must suit one. */
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PARAM_NAME_ALLOWED = 'allowed: letters, digits, _ and -, not starting with a digit';
const VARIANT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const VARIANT_NAME_ALLOWED =
  'allowed: a variant name of letters, digits, _, . and - (it names the benchmark and its baseline)';

export type Params = Record<string, unknown>;

export interface SweepVariant {
  name: string;
  params: Params;
}

const paramsSchema = z.record(
  z.string().regex(PARAM_NAME, { error: PARAM_NAME_ALLOWED }),
  z.unknown(),
  {
    error: 'allowed: a mapping of parameter name to value',
  },
);

const variantSchema = z
  .looseObject(
    { name: z.string().regex(VARIANT_NAME, { error: VARIANT_NAME_ALLOWED }) },
    {
      error: 'allowed: a mapping with a name and the parameters of this variant',
    },
  )
  .superRefine((variant, context) => {
    for (const key of Object.keys(variant)) {
      if (!PARAM_NAME.test(key))
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `parameter ${JSON.stringify(key)}: ${PARAM_NAME_ALLOWED}`,
        });
    }
  });

/** The setting names that the gate's own benchmarks of a sweep with settings take. */
export const RESERVED_SETTING_NAMES: readonly string[] = ['best-setting', 'capacity'];

/**
 * One server setting of `sweep: settings:`: its parameters, and a name, or one made from
 * them (settingName).
 */
const settingSchema = z
  .looseObject(
    { name: z.string().regex(VARIANT_NAME, { error: VARIANT_NAME_ALLOWED }).optional() },
    { error: 'allowed: a mapping of server parameters (max-num-seqs: 8), with an optional name' },
  )
  .superRefine((setting, context) => {
    const params = Object.keys(setting).filter((key) => key !== 'name');
    if (params.length === 0)
      context.addIssue({
        code: 'custom',
        message: 'a setting without parameters; allowed: at least one server parameter',
      });
    for (const key of params) {
      if (!PARAM_NAME.test(key))
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `parameter ${JSON.stringify(key)}: ${PARAM_NAME_ALLOWED}`,
        });
    }
  });

type SettingEntry = z.output<typeof settingSchema>;

/** A setting's parameters, without its name. */
function settingParams({ name: _name, ...params }: SettingEntry): Params {
  return params;
}

/**
 * A setting's name: its own, else made from its parameters so that it stays the same as
 * long as the setting does: `<key>-<value>` for each parameter, sorted by key and joined
 * with `_`, a value's characters other than letters, digits, `.` and `-` made `-`
 * (`{ max-num-seqs: 8, block-size: 32 }` → `block-size-32_max-num-seqs-8`).
 */
export function settingName(setting: { name?: string } & Params): string {
  if (typeof setting.name === 'string') return setting.name;
  return Object.keys(setting)
    .filter((key) => key !== 'name')
    .sort()
    .map((key) => `${key}-${nameText(setting[key])}`)
    .join('_')
    .replace(/^[^A-Za-z0-9]+/, '');
}

function nameText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'empty';
}

/** Settings of a sweep: unique names, none of the gate's own, no two with the same parameters. */
const settingsSchema = z
  .array(settingSchema, { error: 'allowed: a list of server settings (mappings of parameters)' })
  .min(2, {
    error:
      'allowed: a list of at least two server settings to compare (one setting is the server: block alone)',
  })
  .superRefine((settings, context) => {
    const names = new Map<string, number>();
    const params = new Map<string, number>();
    for (const [index, setting] of settings.entries()) {
      const name = settingName(setting);
      // The name's own field when the file gives one; else the setting it was made from.
      const at = setting.name === undefined ? { path: [index] } : { path: [index, 'name'] };
      const called = `setting name ${JSON.stringify(name)}${setting.name === undefined ? ' (made from its parameters)' : ''}`;
      const clash = names.get(name);
      if (clash !== undefined)
        context.addIssue({
          code: 'custom',
          ...at,
          input: setting.name ?? setting,
          message: `${called} is also the name of settings[${clash}]; allowed: unique names (give each a name:)`,
        });
      else if (RESERVED_SETTING_NAMES.includes(name))
        context.addIssue({
          code: 'custom',
          ...at,
          input: setting.name ?? setting,
          message: `${called} is the gate's own (<entry>/${name}); allowed: another name`,
        });
      names.set(name, index);
      const key = JSON.stringify(Object.entries(settingParams(setting)).sort());
      const same = params.get(key);
      if (same !== undefined)
        context.addIssue({
          code: 'custom',
          path: [index],
          input: setting,
          message: `setting ${JSON.stringify(name)} has the same parameters as settings[${same}]; allowed: settings that differ`,
        });
      params.set(key, index);
    }
  });

/** `sweep:` in a benchmark entry: inline base and variants, or the reference sweep file. */
export const sweepSchema = z
  .strictObject(
    {
      settings: settingsSchema.optional(),
      base: paramsSchema.optional(),
      variants: z
        .array(variantSchema)
        .min(1, { error: 'allowed: a list of at least one variant' })
        .optional(),
      file: z.string().min(1).optional(),
    },
    {
      error:
        'allowed: a mapping with base and variants, or file (a sweep JSON file), and optional settings (server settings)',
    },
  )
  .superRefine((sweep, context) => {
    if ((sweep.variants === undefined) === (sweep.file === undefined)) {
      context.addIssue({
        code: 'custom',
        message: 'allowed: either variants (with an optional base) or file, exactly one of them',
      });
    }
    const seen = new Set<string>();
    for (const [index, variant] of (sweep.variants ?? []).entries()) {
      if (seen.has(variant.name)) {
        context.addIssue({
          code: 'custom',
          path: ['variants', index, 'name'],
          message: `variant name ${JSON.stringify(variant.name)} is used twice; allowed: unique variant names`,
        });
      }
      seen.add(variant.name);
    }
  });

export type SweepSetting = z.output<typeof sweepSchema>;

/** The variants of a sweep, each with its base merged under its own parameters. */
export async function sweepVariants(
  sweep: SweepSetting,
  workspace: string,
): Promise<SweepVariant[]> {
  if (sweep.file !== undefined) return readSweepFile(resolve(workspace, sweep.file), workspace);
  const base = sweep.base ?? {};
  return (sweep.variants ?? []).map(({ name, ...own }) => ({ name, params: { ...base, ...own } }));
}

/**
 * The reference sweep file (`offline_benchmark_sweep_config.json`): `base_config` and the
 * file's other top-level scalars are shared; each `test_configs` entry is a variant.
 */
async function readSweepFile(path: string, workspace: string): Promise<SweepVariant[]> {
  const label = relative(workspace, path) || path;
  let text: string;
  const refused = await unreadableConfigFile(path, workspace);
  if (refused !== undefined) throw configError(label, `cannot read the sweep file: ${refused}`);
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw configError(label, `cannot read the sweep file: ${errorMessage(error)}`);
  }
  const data = parseJsonText(text, label);
  const nul = nulByteProblems(data, label);
  if (nul.length > 0) throw problemsError('config', nul, label);
  const file = z
    .looseObject({
      base_config: paramsSchema.optional(),
      test_configs: z
        .array(variantSchema)
        .min(1, { error: 'allowed: a list of at least one test config' }),
    })
    .safeParse(data);
  if (!file.success) {
    const issue = file.error.issues[0];
    const field = issue?.path.join('.') || '(top level)';
    throw configError(
      label,
      `${field}: ${issue?.message ?? 'not a sweep file'}; expected the shape of offline_benchmark_sweep_config.json (base_config and test_configs with a name each)`,
    );
  }
  const shared: Params = {};
  for (const [key, value] of Object.entries(data as Params)) {
    if (
      key !== 'base_config' &&
      key !== 'test_configs' &&
      PARAM_NAME.test(key) &&
      (value === null || typeof value !== 'object')
    ) {
      shared[key] = value;
    }
  }
  const base = { ...shared, ...(file.data.base_config ?? {}) };
  const names = new Set<string>();
  return file.data.test_configs.map(({ name, ...own }, index) => {
    if (names.has(name))
      throw configError(
        label,
        `test_configs[${index}].name: ${JSON.stringify(name)} is used twice; allowed: unique names`,
      );
    names.add(name);
    return { name, params: { ...base, ...own } };
  });
}

/** A server setting of `sweep: settings:`, named. */
export interface ServerSetting {
  name: string;
  params: Params;
}

/** The sweep's server settings in their order, each named; empty without `settings:`. */
export function sweepSettings(sweep: SweepSetting): ServerSetting[] {
  return (sweep.settings ?? []).map((setting) => ({
    name: settingName(setting),
    params: settingParams(setting),
  }));
}

/** PERF_GATE_PARAM_<NAME> for every parameter: strings as they are, anything else as JSON. */
export function paramEnvironment(params: Params): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    env[`PERF_GATE_PARAM_${key.toUpperCase().replace(/-/g, '_')}`] =
      typeof value === 'string' ? value : JSON.stringify(value);
  }
  return env;
}

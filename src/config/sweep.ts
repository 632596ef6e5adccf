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

/** `sweep:` in a benchmark entry: inline base and variants, or the reference sweep file. */
export const sweepSchema = z
  .strictObject(
    {
      base: paramsSchema.optional(),
      variants: z
        .array(variantSchema)
        .min(1, { error: 'allowed: a list of at least one variant' })
        .optional(),
      file: z.string().min(1).optional(),
    },
    { error: 'allowed: a mapping with base and variants, or file (a sweep JSON file)' },
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

/** PERF_GATE_PARAM_<NAME> for every parameter: strings as they are, anything else as JSON. */
export function paramEnvironment(params: Params): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    env[`PERF_GATE_PARAM_${key.toUpperCase().replace(/-/g, '_')}`] =
      typeof value === 'string' ? value : JSON.stringify(value);
  }
  return env;
}

// Each A/B side proves it ran its own environment. The probe beside the benchmark sees the
// side's variables (--base-env/--head-env); the benchmark sees them after its command's
// own set-up, and a `source /opt/venv/bin/activate &&` there gives both sides one SDK
// while the probe says they differ. So after a benchmark's first block the probe runs
// again, for each side, with the shell as the command left it (shell-record.ts); those
// versions are the ones the report and the judge use, and when the sides' environments
// differ in a component both benchmark shells ran alike, the gate stops and names the line.

import type { BenchmarkSpec } from '../config/types.js';
import { probeEnvironmentWithWarnings } from '../environment/probe.js';
import { usageError } from '../errors.js';
import type { Environment } from '../model.js';
import type { ProcessRunner } from '../runner/types.js';
import type { AbSide } from './schedule.js';
import { commandOf, readShellRecord, shellRecordPath, type ShellRecord } from './shell-record.js';
import type { PreparedSide } from './sides.js';

/** The versions that decide an SDK comparison, and what a message calls them. */
export const VERSION_COMPONENTS = [
  ['neuronSdkVersion', 'Neuron SDK'],
  ['compilerVersion', 'neuronx-cc'],
  ['runtimeVersion', 'Neuron runtime'],
  ['vllmVersion', 'vLLM'],
  ['vllmNeuronVersion', 'vllm-neuron'],
] as const satisfies readonly (readonly [keyof Environment, string])[];

type VersionField = (typeof VERSION_COMPONENTS)[number][0];

/** What the side's benchmark shell ran with: the probe's versions there, and the record. */
export interface InsideSide {
  environment: Environment;
  record: ShellRecord;
}

/** A component both benchmark shells ran alike although the sides' environments differ. */
export interface Overridden {
  label: string;
  /** What the probe beside each side found. */
  beside: Record<AbSide, string>;
  /** What both benchmark shells ran. */
  inside: string;
}

/** The components whose versions differ beside the benchmarks but not inside them. */
export function overriddenComponents(
  beside: Record<AbSide, Environment>,
  inside: Record<AbSide, Environment>,
): Overridden[] {
  const found: Overridden[] = [];
  for (const [field, label] of VERSION_COMPONENTS) {
    const ran = inside.base[field];
    if (ran === undefined || ran !== inside.head[field]) continue;
    if (beside.base[field] === beside.head[field]) continue;
    const shown = (side: AbSide) => String(beside[side][field] ?? 'none');
    found.push({
      label,
      beside: { base: shown('base'), head: shown('head') },
      inside: String(ran),
    });
  }
  return found;
}

/** A part of a command that sets up an environment of its own. */
const SETS_UP_AN_ENVIRONMENT = [
  /^(?:source|\.)\s+\S*activate\b/,
  /^(?:conda|mamba|micromamba)\s+activate\b/,
  /^(?:pyenv\s+(?:shell|activate)|module\s+load|poetry\s+shell)\b/,
  /^(?:export\s+|env\s+)?(?:PATH|VIRTUAL_ENV|CONDA_PREFIX|PYTHONPATH|PYTHONHOME|LD_LIBRARY_PATH)=/,
];

/** The first part of `command` that sets up its own environment, with its line number. */
export function overridingLine(command: string): { line: number; text: string } | undefined {
  const lines = command.split('\n');
  for (const [index, line] of lines.entries()) {
    for (const part of line.split(/&&|\|\||;|\|/)) {
      const text = part.trim();
      if (SETS_UP_AN_ENVIRONMENT.some((pattern) => pattern.test(text))) {
        return { line: index + 1, text };
      }
    }
  }
  return undefined;
}

/** The stop message: what ran alike, the line that did it, what to do. */
export function overriddenMessage(
  benchmark: string,
  command: string,
  overridden: readonly Overridden[],
  records: Record<AbSide, ShellRecord>,
): string {
  const components = overridden
    .map(
      (o) =>
        `${o.label} ${o.inside} (the sides' environments give ${o.beside.base} on the base, ${o.beside.head} on the head)`,
    )
    .join(', ');
  const found = overridingLine(command);
  const where = found
    ? `its command sets up an environment of its own on line ${found.line}, \`${found.text}\`, which overrides the PATH base-env/head-env (--base-env/--head-env) give each side`
    : 'its command, or a script it runs, sets up an environment of its own (PATH, a virtualenv) that overrides the PATH base-env/head-env (--base-env/--head-env) give each side';
  const shells = shellFacts(records);
  const fix = found
    ? `drop \`${found.text}\` from the command`
    : 'remove that set-up from the command';
  return (
    `benchmark ${benchmark}: both sides' benchmarks ran ${components}: ${where}${shells}. ` +
    `Nothing was judged: the comparison would compare one SDK with itself. ` +
    `${fix[0]!.toUpperCase()}${fix.slice(1)} and let base-env/head-env's PATH choose each side's virtualenv (docs/ab.md).`
  );
}

/** `; both shells ran python3 /opt/venv/bin/python3 (VIRTUAL_ENV /opt/venv)`, when alike. */
function shellFacts(records: Record<AbSide, ShellRecord>): string {
  const same = (read: (r: ShellRecord) => string | undefined) => {
    const value = read(records.base);
    return value !== undefined && value === read(records.head) ? value : undefined;
  };
  const python = same((r) => r.resolved.python3);
  const venv = same((r) => r.env.VIRTUAL_ENV ?? r.env.CONDA_PREFIX);
  const facts = [
    ...(python ? [`python3 ${python}`] : []),
    ...(venv ? [`the virtualenv ${venv}`] : []),
  ];
  return facts.length > 0 ? `; both benchmark shells ran ${facts.join(' in ')}` : '';
}

export interface SideVersionsOptions {
  sides: Record<AbSide, PreparedSide>;
  /** What the probe beside each side found (its variables, before any command ran). */
  beside: Record<AbSide, Environment>;
  runners: Record<AbSide, ProcessRunner>;
  env: Record<string, string | undefined>;
  /** The side's `environment-probe` command, when its config has one. */
  probeCommand: (side: AbSide) => string | undefined;
}

/** The versions each side's benchmarks ran with, read after each benchmark's first block. */
export class SideVersions {
  private readonly seen = new Map<string, Partial<Record<AbSide, InsideSide | null>>>();
  private readonly notes: string[] = [];

  constructor(private readonly options: SideVersionsOptions) {}

  /**
   * After a block: probes the benchmark shell of each side that ran and was not probed
   * yet; once both are, stops the comparison (a usage error) when one SDK ran on both.
   */
  async afterBlock(benchmark: string, specs: Record<AbSide, BenchmarkSpec>): Promise<void> {
    const sides = this.seen.get(benchmark) ?? {};
    this.seen.set(benchmark, sides);
    if (sides.base !== undefined && sides.head !== undefined) return;
    for (const side of ['base', 'head'] as const) {
      sides[side] ??= await this.probeInside(benchmark, side, specs[side]);
    }
    const { base, head } = sides;
    if (base && head) this.check(benchmark, commandOf(specs.head.command), { base, head });
  }

  /** The environment `side`'s runs of `benchmark` had; undefined before its first block. */
  environmentOf(benchmark: string, side: AbSide): Environment | undefined {
    return this.seen.get(benchmark)?.[side]?.environment ?? undefined;
  }

  /** Each side's environment as its first benchmark with both records ran it. */
  first(): Record<AbSide, Environment> | undefined {
    for (const sides of this.seen.values()) {
      if (sides.base && sides.head) {
        return { base: sides.base.environment, head: sides.head.environment };
      }
    }
    return undefined;
  }

  /** Benchmarks whose shell left no record, whose versions are the probe's beside them. */
  warnings(): string[] {
    return [...this.notes];
  }

  private check(benchmark: string, command: string, inside: Record<AbSide, InsideSide>): void {
    const { sides, beside } = this.options;
    if (JSON.stringify(sides.base.env) === JSON.stringify(sides.head.env)) return;
    const overridden = overriddenComponents(beside, {
      base: inside.base.environment,
      head: inside.head.environment,
    });
    if (overridden.length === 0) return;
    throw usageError(
      overriddenMessage(benchmark, command, overridden, {
        base: inside.base.record,
        head: inside.head.record,
      }),
    );
  }

  private async probeInside(
    benchmark: string,
    side: AbSide,
    spec: BenchmarkSpec,
  ): Promise<InsideSide | null> {
    const { sides, beside, runners, env, probeCommand } = this.options;
    const record = await readShellRecord(shellRecordPath(sides[side].outDir, benchmark));
    if (!record) {
      this.notes.push(
        `${side}: ${benchmark}: its benchmark shell left no record of its versions (a command that ends in exec, or sets an EXIT trap of its own); the versions shown are the probe's beside it, with the side's variables`,
      );
      return null;
    }
    const command = probeCommand(side);
    const probed = await probeEnvironmentWithWarnings(
      { ...env, ...spec.env, ...record.env },
      {
        runner: runners[side],
        cwd: record.cwd ?? spec.workingDirectory,
        ...(command ? { probeCommand: command } : {}),
      },
    );
    return { environment: withVersionsOf(beside[side], probed.environment), record };
  }
}

/** `beside` with the versions `inside` found instead of its own. */
function withVersionsOf(beside: Environment, inside: Environment): Environment {
  const merged: Environment = { ...beside };
  for (const [field] of VERSION_COMPONENTS) {
    const value = inside[field as VersionField];
    if (value === undefined) delete merged[field as VersionField];
    else (merged as Record<string, unknown>)[field] = value;
  }
  return merged;
}

// The benchmarks of one gate run that share a server: a benchmark with a `server:` block,
// or all the variants of such a sweep (one per request rate or concurrency). They run
// against one server the gate starts before the first and stops after the last. Its
// start-up times, one per clean start, are the `server_startup` metric of the first.

import { readdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { BenchmarkSpec, ServerSpec } from '../config/types.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, Metric, RunOutcome, ServerSummary } from '../model.js';
import { median } from '../stats/percentile.js';
import { ServerSession, type ServerStartRecord } from './server-session.js';
import { slugify } from './slug.js';
import type { ProcessRunner } from './types.js';

/** The metric of a server's start: launch → ready of each clean start, in seconds. */
export const SERVER_STARTUP_METRIC = {
  id: 'server_startup',
  unit: 's',
  direction: 'lower-is-better',
} as const satisfies Pick<Metric, 'id' | 'unit' | 'direction'>;

/** The configured benchmark a spec came from: the sweep's name for its variants. */
function groupName(spec: BenchmarkSpec): string {
  return spec.sweep?.name ?? spec.name;
}

/** The specs in order, those that share a server together (a sweep's variants follow each other). */
export function serverGroups(specs: readonly BenchmarkSpec[]): BenchmarkSpec[][] {
  const groups: BenchmarkSpec[][] = [];
  for (const spec of specs) {
    const last = groups.at(-1);
    const joins =
      last !== undefined &&
      spec.server !== undefined &&
      last[0]!.server !== undefined &&
      groupName(last[0]!) === groupName(spec);
    if (joins) last.push(spec);
    else groups.push([spec]);
  }
  return groups;
}

/**
 * The groups of serverGroups with the variants of a sweep that has no server of its own
 * joined too (they follow each other): the capacity's passes run every variant of the
 * sweep, so the sweep's variants are gated together.
 */
export function sweepGroups(groups: readonly BenchmarkSpec[][]): BenchmarkSpec[][] {
  const joined: BenchmarkSpec[][] = [];
  for (const group of groups) {
    const last = joined.at(-1);
    const sweep = group[0]?.sweep?.name;
    if (last && sweep !== undefined && last[0]?.sweep?.name === sweep) last.push(...group);
    else joined.push([...group]);
  }
  return joined;
}

/** Where the logs of the server a benchmark ran against go, below the gate's out dir. */
export function serverLogDir(outDir: string, spec: BenchmarkSpec): string {
  return join(outDir, 'servers', slugify(groupName(spec)));
}

export interface SharedServerOptions {
  runner: ProcessRunner;
  log: Logger;
  baseEnv: Readonly<Record<string, string | undefined>>;
  outDir: string;
}

/**
 * The session of a group's server, its log folder emptied of an earlier gate run's logs;
 * undefined for a benchmark without a server.
 */
export async function openSharedServer(
  group: readonly BenchmarkSpec[],
  options: SharedServerOptions,
): Promise<ServerSession | undefined> {
  const first = group[0];
  if (!first?.server) return undefined;
  const dir = serverLogDir(options.outDir, first);
  await refuseLinksBelow(dirname(options.outDir), dir, 'the server log folder');
  const earlier = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    earlier
      .filter((name) => /^server-\d+\.(clean|profiled)\.log$/.test(name))
      .map((name) => rm(join(dir, name), { force: true })),
  );
  return new ServerSession(first as BenchmarkSpec & { server: ServerSpec }, {
    runner: options.runner,
    log: options.log,
    baseEnv: options.baseEnv,
    label: groupName(first),
    logPathOf: (number, run) => join(dir, `server-${number}.${run.kind}.log`),
  });
}

/**
 * One value per clean start that became ready, in order: the later ones too (a sweep's
 * next variant after a profiled run, a run after the server ended by itself), so a gate
 * run that started the server several times has an interval of its own. A profiled start
 * runs with the profiler's variables and never counts; a start that never became ready
 * has no time (the run it was for fails with the reason). The first counts too: a gate
 * run that started the server once has only it, which the baseline's first start should
 * meet. Undefined without a value.
 */
export function serverStartupMetric(starts: readonly ServerStartRecord[]): Metric | undefined {
  const values = starts
    .filter((start) => start.kind === 'clean' && start.startupMs !== undefined)
    .map((start) => start.startupMs! / 1000);
  return values.length === 0 ? undefined : { ...SERVER_STARTUP_METRIC, values };
}

/**
 * One value per run, for runs that each had a server of their own (A/B mode): undefined
 * unless every run's server became ready.
 */
export function perRunStartupMetric(outcomes: readonly RunOutcome[]): Metric | undefined {
  const values = outcomes.map((outcome) => outcome.serverStartupMs);
  if (values.length === 0 || values.some((ms) => ms === undefined)) return undefined;
  return { ...SERVER_STARTUP_METRIC, values: values.map((ms) => ms! / 1000) };
}

/** What the report says of the server: on the group's first benchmark, with its warnings. */
export function withServerSummary(
  reports: BenchmarkReport[],
  session: ServerSession,
  outDir: string,
): BenchmarkReport[] {
  const [first, ...rest] = reports;
  if (!first) return reports;
  const startup = serverStartupMetric(session.starts)?.values;
  const stopped = session.lastStopNote();
  const summary: ServerSummary = {
    ...(startup ? { startupSeconds: median(startup), cleanStarts: startup.length } : {}),
    starts: session.starts.length,
    logs: session.starts.map((start) => relative(outDir, start.logPath)),
    ...(stopped ? { stopped } : {}),
  };
  return [
    { ...first, server: summary, warnings: [...first.warnings, ...session.warnings] },
    ...rest,
  ];
}

// `ab`: two git refs, or two environments, measured on this host in alternating blocks and
// judged paired (src/ab/), so that what the host does from one day to the next cancels.

import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Git } from '../baseline/git/git.js';
import { Worktrees } from '../bisect/worktrees.js';
import { resolveGateConfig } from '../config/load.js';
import { EXIT, usageError } from '../errors.js';
import { refuseLinkedOutDir, refuseLinksBelow } from '../fs/no-links.js';
import { writeReportFiles } from '../publish/files.js';
import { StderrLogger } from '../publish/stderr-logger.js';
import { createProcessRunner } from '../runner/process.js';
import { single, type ParsedArgs } from './args.js';
import { exitCodeFor } from './exit-code.js';
import { cliSandbox, ISOLATION_FLAGS } from './isolation.js';
import type { CliIo } from './io.js';
import { runAb, AB_DEFAULTS, type SideRequest } from '../ab/gate-ab.js';
import { SetupFailed } from '../ab/sides.js';

export const AB_FLAGS = {
  base: { takes: 'one' },
  head: { takes: 'one' },
  'base-env': { takes: 'many' },
  'head-env': { takes: 'many' },
  config: { takes: 'one' },
  'base-config': { takes: 'one' },
  'head-config': { takes: 'one' },
  blocks: { takes: 'one' },
  'confirm-blocks': { takes: 'one' },
  out: { takes: 'one' },
  quiet: { takes: 'none' },
  ...ISOLATION_FLAGS,
} as const;

export async function abCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const baseEnv = envFlags(args, 'base-env');
  const headEnv = envFlags(args, 'head-env');
  const baseRef = single(args, 'base');
  const twoStacks =
    single(args, 'base-config') !== undefined || single(args, 'head-config') !== undefined;
  if (baseRef === undefined && Object.keys(baseEnv).length === 0 && !twoStacks) {
    throw usageError(
      'ab needs --base REF (a commit to compare the head with), --base-env NAME=VALUE for two environments, or --base-config/--head-config for two stacks; see --help',
    );
  }
  const git = new Git({ cwd: io.cwd });
  const top = await git.tryRun(['rev-parse', '--show-toplevel']);
  if (!top.ok) throw usageError(`${io.cwd} is not inside a git repository; run ab from a clone`);
  const root = top.stdout.trim();
  const settings = {
    // Two stacks without --config: the head's config judges (its thresholds and SLO).
    config: single(args, 'config') ?? single(args, 'head-config') ?? '',
    'out-dir': single(args, 'out') ?? 'perf-gate-ab',
  };
  const config = await resolveGateConfig(settings, { workspace: root, origin: 'cli' });
  // A side at a commit of its own runs by that commit's config (src/ab/side-configs.ts).
  const loadConfig = (worktree: string, file?: string) =>
    resolveGateConfig(file === undefined ? settings : { ...settings, config: file }, {
      workspace: worktree,
      origin: 'cli',
    });
  const log = new StderrLogger({ showOutput: !args.flags.has('quiet') }, io.stderr);
  const outDir = config.outDir;
  await clearEarlierComparison(io.cwd, outDir);
  const sandbox = await cliSandbox(args, io, { repositories: [root], keep: [outDir], log });
  const worktrees = await Worktrees.create(git.in(root));
  try {
    const headRef = single(args, 'head');
    const report = await runAb(
      { ...config, uploadProfiles: false },
      {
        root,
        git: git.in(root),
        worktrees,
        base: sideRequest(baseRef, baseEnv, single(args, 'base-config')),
        head: sideRequest(headRef, headEnv, single(args, 'head-config')),
        blocks: countFlag(args, 'blocks', AB_DEFAULTS.blocks, 2),
        confirmBlocks: countFlag(args, 'confirm-blocks', AB_DEFAULTS.confirmBlocks, 0),
        loadConfig,
      },
      { runner: createProcessRunner({ sandbox }), log, env: io.env },
    );
    await refuseLinkedOutDir(io.cwd, outDir);
    const files = await writeReportFiles(outDir, report, config);
    io.stdout(files.markdown);
    log.info(`neuron-perf-gate ab: ${report.verdict}; report in ${resolve(files.report)}`);
    return exitCodeFor(report.verdict);
  } catch (error) {
    if (!(error instanceof SetupFailed)) throw error;
    io.stderr(`neuron-perf-gate: ab: ${error.message}\n`);
    return EXIT.runFailed;
  } finally {
    await worktrees.removeAll();
    await sandbox.dispose();
  }
}

function sideRequest(
  ref: string | undefined,
  env: Record<string, string>,
  config: string | undefined,
): SideRequest {
  return {
    ...(ref === undefined ? {} : { ref }),
    env,
    ...(config === undefined ? {} : { config }),
  };
}

/** `--base-env NAME=VALUE ...` as variables. */
function envFlags(args: ParsedArgs, flag: 'base-env' | 'head-env'): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of args.flags.get(flag) ?? []) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(item);
    if (!match) {
      throw usageError(
        `--${flag} '${item}': expected NAME=VALUE, e.g. --${flag} PATH=/opt/venv-2.22/bin:/usr/bin`,
      );
    }
    env[match[1]!] = match[2]!;
  }
  return env;
}

function countFlag(
  args: ParsedArgs,
  flag: 'blocks' | 'confirm-blocks',
  fallback: number,
  min: number,
): number {
  const value = single(args, flag);
  if (value === undefined) return fallback;
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || count < min || count > 50) {
    throw usageError(`--${flag} '${value}': allowed: a whole number from ${min} to 50`);
  }
  return count;
}

/**
 * An earlier comparison's report and run logs go first: a comparison that fails before
 * its report must not leave the last one's verdict looking like its own.
 */
async function clearEarlierComparison(cwd: string, outDir: string): Promise<void> {
  await refuseLinkedOutDir(cwd, outDir);
  for (const name of ['report.json', 'comment.md', 'summary.md']) {
    await rm(join(outDir, name), { force: true });
  }
  for (const side of ['base', 'head']) {
    await refuseLinksBelow(dirname(outDir), join(outDir, side), `the ${side} side's folder`);
    await rm(join(outDir, side), { recursive: true, force: true });
  }
}

// `dashboard --out DIR`: the stored history as one self-contained static page.

import { join, resolve } from 'node:path';
import { dashboardInput, repositoryUrlOf } from '../dashboard/build.js';
import { commitSubjects, withRangeCommits } from '../dashboard/commit-subjects.js';
import { DASHBOARD_FILE, renderDashboard } from '../dashboard/render.js';
import { Git } from '../baseline/git/git.js';
import { missingAfterSchema } from '../config/schema.js';
import { EXIT, errorMessage, usageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { TOOL_NAME } from '../version.js';
import { parseArgs, single, type FlagSpec } from './args.js';
import { HISTORY_FLAGS, historyOptions } from './baseline-command.js';
import { openBaselineHistory } from './baseline-history.js';
import type { CliIo } from './io.js';

export const DASHBOARD_FLAGS = {
  ...HISTORY_FLAGS,
  out: { takes: 'one' },
  gate: { takes: 'one' },
  'default-branch': { takes: 'one' },
  'repo-url': { takes: 'one' },
  title: { takes: 'one' },
  'missing-after': { takes: 'one' },
} as const satisfies Record<string, FlagSpec>;

/** Runs `neuron-perf-gate dashboard ...` and returns its exit code. */
export async function dashboardCommand(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const words = argv.filter((word) => word !== 'dashboard');
    const args = parseArgs(words, DASHBOARD_FLAGS);
    if (args.command !== undefined) {
      throw usageError(`dashboard takes no argument ('${args.command}'); see --help`);
    }
    const out = single(args, 'out');
    if (out === undefined) throw usageError('dashboard needs --out DIR: where to write the page');
    const repoUrlFlag = single(args, 'repo-url');
    if (repoUrlFlag !== undefined && repositoryUrlOf(repoUrlFlag) === undefined) {
      throw usageError(
        `--repo-url ${repoUrlFlag}: not an https URL of a repository (https://github.com/OWNER/REPO); the page links workflow runs below it`,
      );
    }
    const missingAfter = missingAfterFlag(single(args, 'missing-after'));
    const options = historyOptions(args, io.cwd);
    const history = await openBaselineHistory(options);
    try {
      const gateKey = single(args, 'gate');
      const listed = await history.listRecords(gateKey !== undefined ? { gateKey } : {});
      for (const warning of listed?.warnings ?? [])
        io.stderr(`${TOOL_NAME}: warning: ${warning}\n`);
      if (!listed)
        io.stderr(`${TOOL_NAME}: no records yet: ${history.description} does not exist\n`);
      const records = listed?.records ?? [];
      const defaultBranch = single(args, 'default-branch');
      const repositoryUrl =
        repositoryUrlOf(repoUrlFlag) ??
        repositoryUrlOf(workflowRepository(io.env)) ??
        (options.kind === 'repo'
          ? repositoryUrlOf(options.remote ?? (await originOf(options.repoDir)))
          : undefined);
      // Subjects from the clone (--repo), or from the folder the command runs in.
      const clone = new Git({ cwd: options.kind === 'repo' ? options.repoDir : io.cwd });
      const subjects = await commitSubjects(
        clone,
        records.map(({ record }) => record.commit),
      );
      // The same clone counts the commits of each open regression's range.
      const input = await withRangeCommits(
        clone,
        dashboardInput({
          records,
          subjects,
          source: history.description,
          ...(single(args, 'title') !== undefined ? { title: single(args, 'title')! } : {}),
          ...(repositoryUrl ? { repositoryUrl } : {}),
          ...(defaultBranch !== undefined ? { defaultBranch } : {}),
          ...(missingAfter !== undefined ? { missingAfter } : {}),
          ...(io.now ? { now: io.now() } : {}),
        }),
      );
      const file = join(resolve(io.cwd, out), DASHBOARD_FILE);
      await writeFileAtomic(file, renderDashboard(input));
      io.stderr(
        `${TOOL_NAME}: wrote ${file}: ${input.series.length} series from ${records.length} records${repositoryUrl ? `, runs linked below ${repositoryUrl}` : ', no run links (give --repo-url)'}\n`,
      );
      return EXIT.ok;
    } finally {
      await history.close();
    }
  } catch (error) {
    io.stderr(`${TOOL_NAME}: error: ${errorMessage(error)}\n`);
    return EXIT.usage;
  }
}

/** `--missing-after N`: nights a series may miss before the page lists it (0: never). */
function missingAfterFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = missingAfterSchema.safeParse(/^\d+$/.test(text) ? Number(text) : text);
  if (!parsed.success) {
    throw usageError(
      `--missing-after ${text}: ${parsed.error.issues[0]?.message ?? 'not a number of nights'}`,
    );
  }
  return parsed.data;
}

/** `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY` inside a workflow. */
function workflowRepository(env: CliIo['env']): string | undefined {
  const server = env.GITHUB_SERVER_URL;
  const repository = env.GITHUB_REPOSITORY;
  return server && repository ? `${server.replace(/\/$/, '')}/${repository}` : undefined;
}

async function originOf(repoDir: string): Promise<string | undefined> {
  const result = await new Git({ cwd: repoDir }).tryRun(['remote', 'get-url', 'origin']);
  return result.ok ? result.stdout.trim() : undefined;
}

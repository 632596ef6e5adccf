// `baseline list | show | accept`: look at or fix the stored baseline history by hand,
// on the data branch of a clone's origin or in a plain folder of record files.

import { isAbsolute, relative, resolve, sep } from 'node:path';
import { acceptanceRecord } from '../baseline/accept.js';
import { RecordNotFoundError } from '../baseline/folder-store.js';
import { DEFAULT_DATA_BRANCH } from '../baseline/git/git-branch-store.js';
import { resolveRemote } from '../baseline/git/remote.js';
import { pathOfRecord } from '../baseline/record-paths.js';
import { EXIT, errorMessage, usageError } from '../errors.js';
import { TOOL_NAME } from '../version.js';
import { parseArgs, single, type FlagSpec, type ParsedArgs } from './args.js';
import { acceptingRecords } from './baseline-accepted.js';
import { recordListJson, renderRecordList } from './baseline-list.js';
import { renderRecord } from './baseline-show.js';
import {
  openBaselineHistory,
  type BaselineHistory,
  type HistoryOptions,
} from './baseline-history.js';
import { BASELINE_HELP } from './help.js';
import { storeFlag } from './store-flag.js';
import { MIGRATE_FLAGS, migrateCommand } from './baseline-migrate.js';
import type { CliIo } from './io.js';

export const HISTORY_FLAGS = {
  repo: { takes: 'one' },
  branch: { takes: 'one' },
  remote: { takes: 'one' },
  dir: { takes: 'one' },
  store: { takes: 'one' },
} as const satisfies Record<string, FlagSpec>;

export const BASELINE_FLAGS = {
  list: {
    ...HISTORY_FLAGS,
    gate: { takes: 'one' },
    benchmark: { takes: 'one' },
    limit: { takes: 'one' },
    json: { takes: 'none' },
  },
  show: { ...HISTORY_FLAGS, json: { takes: 'none' } },
  accept: {
    ...HISTORY_FLAGS,
    by: { takes: 'one' },
    note: { takes: 'one' },
    'dry-run': { takes: 'none' },
  },
} as const satisfies Record<string, Record<string, FlagSpec>>;

type Subcommand = keyof typeof BASELINE_FLAGS;

/** True when argv asks for `baseline ...` (the first word that is not a flag). */
export function isBaselineCommand(argv: readonly string[]): boolean {
  return argv.find((word) => !word.startsWith('--')) === 'baseline';
}

/** Runs `neuron-perf-gate baseline ...` and returns its exit code. */
export async function runBaselineCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const words = [...argv];
    const at = words.indexOf('baseline');
    if (at >= 0) words.splice(at, 1);
    if (words.includes('--help') || words.includes('-h') || words[0] === 'help') {
      io.stdout(BASELINE_HELP);
      return EXIT.ok;
    }
    const subcommand = words.shift();
    // Two stores, not one: migrate opens its own.
    if (subcommand === 'migrate') return await migrateCommand(parseArgs(words, MIGRATE_FLAGS), io);
    if (!isSubcommand(subcommand)) {
      throw usageError(
        `${subcommand === undefined ? 'baseline needs' : `unknown baseline command '${subcommand}'; baseline takes`} a command: list, show, accept or migrate (see baseline --help)`,
      );
    }
    const args = parseArgs(words, BASELINE_FLAGS[subcommand]);
    const history = await openBaselineHistory(historyOptions(args, io.cwd));
    try {
      switch (subcommand) {
        case 'list':
          return await listCommand(args, history, io);
        case 'show':
          return await showCommand(args, history, io);
        case 'accept':
          return await acceptCommand(args, history, io);
      }
    } finally {
      await history.close();
    }
  } catch (error) {
    // Bad flags, unknown paths, unreadable records or git failures: nothing was changed.
    io.stderr(`${TOOL_NAME}: error: ${errorMessage(error)}\n`);
    return EXIT.usage;
  }
}

function isSubcommand(word: string | undefined): word is Subcommand {
  return word !== undefined && Object.hasOwn(BASELINE_FLAGS, word);
}

// ── list ─────────────────────────────────────────────────────────────────────────────

async function listCommand(args: ParsedArgs, history: BaselineHistory, io: CliIo): Promise<number> {
  if (args.command !== undefined) {
    throw usageError(`baseline list takes no record path ('${args.command}'); see --help`);
  }
  const gateKey = single(args, 'gate');
  const benchmark = single(args, 'benchmark');
  const limit = limitOf(single(args, 'limit'));
  const json = args.flags.has('json');
  const listed = await history.listRecords({
    ...(gateKey !== undefined ? { gateKey } : {}),
    ...(benchmark !== undefined ? { benchmark } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  const records = listed?.records ?? [];
  const warnings = listed?.warnings ?? [];
  for (const warning of warnings) io.stderr(`${TOOL_NAME}: warning: ${warning}\n`);
  const accepting = acceptingRecords(records);
  if (json) {
    io.stdout(
      `${JSON.stringify(recordListJson(history.description, records, accepting, warnings), null, 2)}\n`,
    );
    if (!listed) io.stderr(`${TOOL_NAME}: no records yet: ${history.description} does not exist\n`);
    return EXIT.ok;
  }
  if (!listed) {
    io.stdout(
      `No records yet: ${history.description} does not exist. The gate creates it when it first stores a baseline.\n`,
    );
  } else if (records.length === 0) {
    const which = [gateKey && `gate '${gateKey}'`, benchmark && `benchmark '${benchmark}'`].filter(
      Boolean,
    );
    io.stdout(
      `No records${which.length > 0 ? ` of ${which.join(', ')}` : ''} in ${history.description}.\n`,
    );
  } else {
    io.stdout(renderRecordList(records, accepting));
  }
  return EXIT.ok;
}

function limitOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw usageError(`--limit ${value}: give a whole number of records ≥ 1 (per benchmark)`);
  }
  return Number(value);
}

// ── show ─────────────────────────────────────────────────────────────────────────────

async function showCommand(args: ParsedArgs, history: BaselineHistory, io: CliIo): Promise<number> {
  const path = recordPathArgument(args, 'show', io.cwd);
  const record = await readRecord(history, path);
  // Later acceptance records of the same benchmark may accept this one.
  const siblings = await history.listRecords({
    gateKey: record.gateKey,
    benchmark: record.benchmark,
  });
  const acceptedBy = acceptingRecords(siblings?.records ?? []).get(path) ?? [];
  if (args.flags.has('json')) {
    io.stdout(
      `${JSON.stringify({ path, source: history.description, acceptedBy, record }, null, 2)}\n`,
    );
  } else {
    io.stdout(renderRecord(path, record, acceptedBy));
  }
  return EXIT.ok;
}

// ── accept ───────────────────────────────────────────────────────────────────────────

async function acceptCommand(
  args: ParsedArgs,
  history: BaselineHistory,
  io: CliIo,
): Promise<number> {
  const path = recordPathArgument(args, 'accept', io.cwd);
  const record = await readRecord(history, path);
  const by = single(args, 'by') ?? localUser(io.env);
  const note = single(args, 'note');
  const accepted = acceptanceRecord(record, {
    reason: 'manual',
    ...(by ? { by } : {}),
    ...(note ? { note } : {}),
    records: [path],
  });
  if (args.flags.has('dry-run')) {
    io.stderr(
      `${TOOL_NAME}: dry run: would add this record to ${history.description}, accepting ${path}; nothing written\n`,
    );
    io.stdout(`${pathOfRecord(accepted)}\n`);
    return EXIT.ok;
  }
  const written = await history.appendRecord(accepted);
  io.stderr(`${TOOL_NAME}: accepted ${path} as ${written} in ${history.description}\n`);
  io.stdout(`${written}\n`);
  return EXIT.ok;
}

/** Who is accepting, when --by is not given: the GitHub actor or the local user. */
function localUser(env: CliIo['env']): string | undefined {
  return env.GITHUB_ACTOR || env.USER || env.LOGNAME || env.USERNAME || undefined;
}

// ── shared ───────────────────────────────────────────────────────────────────────────

async function readRecord(history: BaselineHistory, path: string) {
  try {
    return await history.readRecord(path);
  } catch (error) {
    if (!(error instanceof RecordNotFoundError)) throw error;
    throw usageError(
      `no record '${path}' in ${history.description}. Record paths look like <gate-key>/<benchmark>/<file>.json; '${TOOL_NAME} baseline list' (with the same --store, --repo, --remote, --branch or --dir) prints them.`,
    );
  }
}

/**
 * The record path of `show`/`accept`, relative to the store: as `baseline list` prints
 * it, with a `<branch>:` prefix as warnings print it, or (with --dir) a path to the file.
 */
function recordPathArgument(args: ParsedArgs, subcommand: Subcommand, cwd: string): string {
  const given = args.command;
  if (given === undefined || given === '') {
    throw usageError(`baseline ${subcommand} needs a record path, as 'baseline list' prints it`);
  }
  const dir = single(args, 'dir');
  if (dir !== undefined) {
    const root = resolve(cwd, dir);
    const inside = relative(root, resolve(cwd, given));
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) {
      return inside.split(sep).join('/');
    }
    if (isAbsolute(given)) throw usageError(`${given} is not inside --dir ${dir}`);
    return given;
  }
  const branch = single(args, 'branch') ?? DEFAULT_DATA_BRANCH;
  return given.startsWith(`${branch}:`) ? given.slice(branch.length + 1) : given;
}

/** Where the records are, from --store, --dir, or --repo, --branch and --remote. */
export function historyOptions(args: ParsedArgs, cwd: string): HistoryOptions {
  const store = storeFlag(args, cwd);
  if (store) return store;
  const dir = single(args, 'dir');
  const repo = single(args, 'repo');
  const branch = single(args, 'branch');
  const remote = single(args, 'remote');
  if (dir !== undefined) {
    const clash = [
      repo !== undefined && '--repo',
      branch !== undefined && '--branch',
      remote !== undefined && '--remote',
    ].filter(Boolean);
    if (clash.length > 0) {
      throw usageError(
        `--dir reads a folder of record files; it does not go with ${clash.join(', ')}`,
      );
    }
    return { kind: 'folder', dir: resolve(cwd, dir) };
  }
  return {
    kind: 'repo',
    repoDir: resolve(cwd, repo ?? '.'),
    ...(branch !== undefined ? { branch } : {}),
    // A relative path made absolute here: git runs in another folder.
    ...(remote !== undefined ? { remote: resolveRemote(remote, cwd) } : {}),
  };
}

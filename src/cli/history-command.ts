// `neuron-perf-gate history`: the stored records as series, their change points and the
// regressions they make up, from the data branch (through the git-branch store) or from a
// plain folder of record files.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FolderRecordStore } from '../baseline/folder-store.js';
import { GitBranchStore } from '../baseline/git/git-branch-store.js';
import { Git } from '../baseline/git/git.js';
import { openRecordBackend } from '../baseline/open-backend.js';
import type { RecordBackend } from '../baseline/record-backend.js';
import { resolveRemote } from '../baseline/git/remote.js';
import { EXIT, usageError } from '../errors.js';
import { exists } from '../fs/exists.js';
import { analyzeHistory } from '../history/analyze.js';
import { readHistory, type History, type StoredRecordSource } from '../history/read.js';
import { historyJson, renderHistoryText } from '../history/render.js';
import { filterSeries } from '../history/series.js';
import { single, type FlagSpec, type ParsedArgs } from './args.js';
import type { HistoryOptions } from './baseline-history.js';
import { storeFlag } from './store-flag.js';
import type { CliIo } from './io.js';

export const HISTORY_FLAGS = {
  repo: { takes: 'one' },
  branch: { takes: 'one' },
  remote: { takes: 'one' },
  dir: { takes: 'one' },
  store: { takes: 'one' },
  gate: { takes: 'one' },
  benchmark: { takes: 'one' },
  metric: { takes: 'one' },
  'default-branch': { takes: 'one' },
  json: { takes: 'none' },
} as const satisfies Record<string, FlagSpec>;

export async function historyCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const dir = single(args, 'dir');
  const repo = single(args, 'repo');
  const remote = single(args, 'remote');
  const branch = single(args, 'branch');
  if (dir !== undefined && (repo !== undefined || remote !== undefined || branch !== undefined)) {
    throw usageError(
      '--dir reads a folder of record files; it does not go with --repo, --remote or --branch',
    );
  }
  const gateKey = single(args, 'gate');
  const defaultBranch = single(args, 'default-branch');
  const scratch = await mkdtemp(join(tmpdir(), 'perf-gate-history-'));
  let backend: RecordBackend | undefined;
  try {
    let source: StoredRecordSource;
    let description: string;
    const store = storeFlag(args, io.cwd);
    if (store) {
      backend = await openStore(store, scratch);
      source = backend;
      description = backend.description;
    } else if (dir !== undefined) {
      if (!(await exists(resolve(io.cwd, dir)))) throw usageError(`--dir ${dir}: no such folder`);
      source = folderSource(new FolderRecordStore(resolve(io.cwd, dir)));
      description = `the folder ${dir}`;
    } else {
      const repoDir = resolve(io.cwd, repo ?? '.');
      const url = remote !== undefined ? resolveRemote(remote, io.cwd) : undefined;
      if (url === undefined) await requireOrigin(repoDir);
      const store = new GitBranchStore({
        repoDir,
        workDir: scratch,
        ...(branch !== undefined ? { branch } : {}),
        ...(url !== undefined ? { remote: url } : {}),
      });
      source = store;
      description = `branch ${store.branch} of ${url ?? `the origin of ${repoDir}`}`;
    }
    const history: History = await readHistory(source, gateKey, {
      ...(defaultBranch !== undefined ? { defaultBranch } : {}),
    });
    for (const warning of history.warnings) io.stderr(`warning: ${warning}\n`);
    const metric = single(args, 'metric');
    const benchmark = single(args, 'benchmark');
    const series = filterSeries(history.series, {
      ...(benchmark !== undefined ? { benchmark } : {}),
      ...(metric !== undefined ? { metric } : {}),
    });
    const analysis = analyzeHistory({ ...history, series });
    if (args.flags.has('json')) {
      const json = historyJson(analysis, {
        source: description,
        ...(history.commit ? { commit: history.commit } : {}),
        warnings: history.warnings,
      });
      io.stdout(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      io.stdout(renderHistoryText(analysis, description));
    }
    return EXIT.ok;
  } finally {
    await backend?.close?.();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The store --store names, opened as a RecordBackend. */
function openStore(store: HistoryOptions, scratch: string): Promise<RecordBackend> {
  switch (store.kind) {
    case 'folder':
      return openRecordBackend({ kind: 'folder', dir: store.dir });
    case 'repo':
      return openRecordBackend({
        kind: 'git-branch',
        repoDir: store.repoDir,
        workDir: scratch,
        ...(store.branch !== undefined ? { branch: store.branch } : {}),
        ...(store.remote !== undefined ? { remote: store.remote } : {}),
      });
    case 'store':
      return openRecordBackend(store.spec);
  }
}

async function requireOrigin(repoDir: string): Promise<void> {
  const result = await new Git({ cwd: repoDir }).tryRun(['remote', 'get-url', 'origin']);
  if (!result.ok) {
    throw usageError(
      `${repoDir} is not a git clone with an 'origin' remote (${result.stderr.trim() || 'no output'}); give --repo DIR of a clone, --remote URL, or --dir FOLDER of record files`,
    );
  }
}

/** A folder of record files read like the data branch. */
function folderSource(store: FolderRecordStore): StoredRecordSource {
  return {
    async readStoredRecords(gateKey) {
      const listed = await store.listRecords(gateKey !== undefined ? { gateKey } : {});
      return { records: listed.records, warnings: listed.warnings };
    },
  };
}

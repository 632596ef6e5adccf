// Where `baseline list | show | accept` find the records: a plain folder (`--dir`), the
// data branch of a clone's origin (`--repo`, `--remote`, `--branch`), or any record store
// by URL (`--store s3://…`, `postgres://…`; git+ and dir: URLs map to the first two).
//
// The data branch is read from a shallow clone of just that branch in a temporary
// folder, through the folder store: listing every gate and naming each record by its
// real path needs the whole tree, which GitBranchStore.readRecords (one gate, no paths)
// does not give. Writes go through GitBranchStore.appendRecords: one new commit, pushed
// without force, retried on contention.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderRecordStore } from '../baseline/folder-store.js';
import { GitBranchStore } from '../baseline/git/git-branch-store.js';
import { Git } from '../baseline/git/git.js';
import { resolveRemote } from '../baseline/git/remote.js';
import { pathOfRecord } from '../baseline/record-paths.js';
import { usageError } from '../errors.js';
import { exists } from '../fs/exists.js';
import { openRecordBackend, type StoreSpec } from '../baseline/open-backend.js';
import { backendHistory, type BaselineHistory } from './backend-history.js';

export type { BaselineHistory };

export type HistoryOptions =
  | { kind: 'folder'; dir: string }
  | { kind: 'repo'; repoDir: string; branch?: string; remote?: string }
  | { kind: 'store'; spec: StoreSpec };

/** Opens the records; close() the history when done: it may hold a temporary folder. */
export async function openBaselineHistory(options: HistoryOptions): Promise<BaselineHistory> {
  if (options.kind === 'folder') {
    if (!(await exists(options.dir))) {
      throw usageError(`--dir ${options.dir}: no such folder`);
    }
    return folderHistory(options.dir);
  }
  if (options.kind === 'store') return backendHistory(await openRecordBackend(options.spec));
  const scratch = await mkdtemp(join(tmpdir(), 'perf-gate-baseline-'));
  try {
    return repoHistory(options, scratch);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

function folderHistory(dir: string): BaselineHistory {
  const store = new FolderRecordStore(dir);
  return {
    description: `the folder ${dir}`,
    listRecords: (filter) => store.listRecords(filter),
    readRecord: (path) => store.readRecord(path),
    appendRecord: (record) => store.writeRecord(record),
    close: async () => {},
  };
}

function repoHistory(
  options: Extract<HistoryOptions, { kind: 'repo' }>,
  scratch: string,
): BaselineHistory {
  const { repoDir, remote } = options;
  // Constructed first: it rejects a branch name git could not use.
  const writer = new GitBranchStore({
    repoDir,
    workDir: join(scratch, 'work'),
    ...(options.branch !== undefined ? { branch: options.branch } : {}),
    ...(remote !== undefined ? { remote } : {}),
  });
  const { branch } = writer;
  let url = remote;
  let snapshot: Promise<FolderRecordStore | undefined> | undefined;
  const description = () => `branch ${branch} of ${url ?? `the origin of ${repoDir}`}`;
  const data = () =>
    (snapshot ??= (async () => {
      url ??= await originUrl(repoDir);
      const dir = join(scratch, 'data');
      return (await cloneBranch(url, branch, dir)) ? new FolderRecordStore(dir) : undefined;
    })());

  return {
    get description() {
      return description();
    },
    async listRecords(filter) {
      return (await data())?.listRecords(filter);
    },
    async readRecord(path) {
      const store = await data();
      if (!store) {
        throw new Error(
          `${description()} does not exist yet, so there are no records; the gate creates it when it first stores a baseline`,
        );
      }
      return store.readRecord(path);
    },
    async appendRecord(record) {
      // A hand-made acceptance never prunes history; the gate's own writes keep it in bounds.
      const written = await writer.appendRecords([record], { keep: Number.MAX_SAFE_INTEGER });
      return written.added[0] ?? pathOfRecord(record);
    },
    close: () => rm(scratch, { recursive: true, force: true }),
  };
}

/** Clones just the tip of `branch` into `dir`; false when the remote has no such branch. */
async function cloneBranch(remote: string, branch: string, dir: string): Promise<boolean> {
  const git = new Git({ cwd: tmpdir() });
  const heads = await git.run(['ls-remote', '--heads', remote, `refs/heads/${branch}`]);
  if (heads.trim() === '') return false;
  await git.run([
    'clone',
    '--quiet',
    '--no-local',
    '--depth=1',
    '--single-branch',
    '--no-tags',
    `--branch=${branch}`,
    remote,
    dir,
  ]);
  return true;
}

/** The fetch URL of the clone's `origin`; a relative path is taken from the clone. */
async function originUrl(repoDir: string): Promise<string> {
  const result = await new Git({ cwd: repoDir }).tryRun(['remote', 'get-url', 'origin']);
  if (!result.ok) {
    throw usageError(
      `${repoDir} is not a git clone with an 'origin' remote (${result.stderr.trim() || 'no output'}); give --repo DIR of a clone, --remote URL, or --dir FOLDER of record files`,
    );
  }
  return resolveRemote(result.stdout.trim(), repoDir);
}

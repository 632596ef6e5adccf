// Baseline records on a git data branch (`perf-gate-data`) of the workspace's own
// `origin`, one small JSON file per record:
//
//   <gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json
//
// All git work happens in a scratch bare repository under `workDir`; the user's checkout
// (its HEAD, index, branches and config) is only ever read, for the remote URL and the
// credentials actions/checkout left there. Reads fetch only the data branch, one commit
// deep and, where the server allows it, without blobs, then fetch just the record files
// asked for; a read of a large share of the branch (the history) fetches the tip whole
// instead, in one pack, and reads the files locally. Writes build one commit with plumbing (new files added, old ones pruned,
// nothing modified), push it without force, and on a rejected push start again from the
// new tip after a random pause.

import { join } from 'node:path';
import { type BaselineRecord } from '../record.js';
import type { RecordBackend } from '../record-backend.js';
import { benchmarkFolder, gateFolder, pathOfRecord } from '../record-paths.js';
import { parseRecord, serializeRecord, migrateRecord } from '../record-text.js';
import { DEFAULT_NETWORK_TIMEOUT_MS, type Deadline } from '../../net/deadline.js';
import { isUsableBranchName } from '../../config/branch-name.js';
import { Git, GitError, lastLines, type GitIdentity } from './git.js';
import {
  isContention,
  isTransientFailure,
  MAX_TRANSIENT_RETRIES,
  pauseBeforeRetry,
} from './push-retry.js';
import {
  commitTree,
  fetchBlobsById,
  hashBlobs,
  listTree,
  missingBlobs,
  readBlobs,
  type TreeEntry,
} from './objects.js';
import { fetchBranchTip, openScratchRepository, type HttpToken } from './scratch.js';

export const DEFAULT_DATA_BRANCH = 'perf-gate-data';
export const DEFAULT_KEEP = 500;
/**
 * How long lost push races are retried: long enough for dozens of jobs finishing at once
 * (each push takes well under a second), short enough to end well inside a job's time.
 */
export const DEFAULT_PUSH_DEADLINE_MS = 120_000;

/**
 * A read that lacks at least 1/WHOLE_SHARE of the branch's objects fetches the tip whole
 * rather than file by file.
 */
const WHOLE_SHARE = 5;

/** Where the scratch repository keeps the fetched tip of the data branch. */
const TIP_REF = 'refs/perf-gate/tip';

export interface GitBranchStoreOptions {
  /** The checked-out workspace; its `origin` remote holds the data branch. */
  repoDir: string;
  /** The data branch. */
  branch?: string;
  /** A scratch folder of this process for the store's own repository (created). */
  workDir: string;
  /** The remote URL or path; `origin` of repoDir unless given. */
  remote?: string;
  /** Author and committer of data commits; the tool's own identity unless given. */
  identity?: GitIdentity;
  /** Authenticates git when the checkout persisted no credentials (see scratch.ts). */
  token?: HttpToken;
  /**
   * Time limit of each git call on the store's repository (default 30 s): fetches and
   * pushes, and the local calls a partial clone may turn into fetches.
   */
  networkTimeoutMs?: number;
  /** After it, no git call starts and a running one is stopped. */
  deadline?: Deadline;
  /** For tests: the source of the retry jitter (Math.random) and the pause itself. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface ReadRecordsOptions {
  /** Read only the newest this many records of each benchmark folder (by file name). */
  limit?: number;
}

export interface ReadRecordsResult {
  /** Newest first. */
  records: BaselineRecord[];
  /** One line per skipped file, naming it and what is wrong. */
  warnings: string[];
  /** The data branch commit read; undefined when the branch does not exist yet. */
  commit?: string;
}

export interface AppendRecordsOptions {
  /** After adding, keep the newest this many records of each touched benchmark folder. */
  keep?: number;
  /** Push attempts before giving up (each after a fetch of the new tip); default: no limit. */
  maxAttempts?: number;
  /**
   * Lost races are retried until this many milliseconds have passed since the first
   * attempt (default DEFAULT_PUSH_DEADLINE_MS); then the append fails and says so.
   */
  deadlineMs?: number;
}

export interface AppendRecordsResult {
  /** The data branch commit that holds the records. */
  commit: string;
  attempts: number;
  /** Paths of the files added (records already stored byte for byte are not added again). */
  added: string[];
  /** Paths of the files pruned in the same commit. */
  pruned: string[];
}

export interface ReadStoredRecordsResult {
  /** With their paths on the data branch; newest first (readStoredRecords: oldest first). */
  records: { path: string; record: BaselineRecord }[];
  /** One line per skipped file, naming it and what is wrong. */
  warnings: string[];
  /** The data branch commit read; undefined when the branch does not exist yet. */
  commit?: string;
}

/** What the store writes: `<gate-key>/<benchmark>/<file>.json`, nothing else. */
const RECORD_PATH = /^[^/]+\/[^/]+\/[^/]+\.json$/;

export class GitBranchStore implements RecordBackend {
  readonly branch: string;
  private readonly options: GitBranchStoreOptions;
  private readonly scratchDir: string;
  private scratch?: Promise<Git>;
  /** The last tip found to hold only records, with every file in it. */
  private checked?: { tip: string; entries: TreeEntry[] };
  /** Calls on one store run one after another: they share the scratch repository. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: GitBranchStoreOptions) {
    this.options = options;
    this.branch = options.branch ?? DEFAULT_DATA_BRANCH;
    if (!isUsableBranchName(this.branch)) {
      throw new Error(
        `baseline branch '${this.branch}' is not a usable branch name; use letters, digits, '.', '_', '-' and '/'`,
      );
    }
    this.scratchDir = join(options.workDir, 'perf-gate-data.git');
  }

  /**
   * The records of one gate (all benchmarks, or one), newest first. A missing branch
   * means no records yet; a file that does not parse is skipped with a warning.
   */
  readRecords(
    gateKey: string,
    benchmark?: string,
    options: ReadRecordsOptions = {},
  ): Promise<ReadRecordsResult> {
    return this.exclusive(() => this.read(gateKey, benchmark, options));
  }

  /**
   * Adds the records as new files in one commit on the data branch (creating it as an
   * orphan on first use), prunes each touched benchmark folder to its newest `keep`
   * records in the same commit, and pushes. A push rejected because another writer got
   * there first is retried on top of the new tip after a random pause; never forced.
   */
  appendRecords(
    records: BaselineRecord[],
    options: AppendRecordsOptions = {},
  ): Promise<AppendRecordsResult> {
    return this.exclusive(() => this.append(records, options));
  }

  /** For messages: the branch and where it lives. */
  get description(): string {
    return `branch ${this.branch} of ${this.options.remote ?? `the origin of ${this.options.repoDir}`}`;
  }

  // ── reading ────────────────────────────────────────────────────────────────────────

  /**
   * Every stored record of one gate, or of every gate, with its path; oldest first. For
   * the history (src/history/), which reads whole series rather than the newest few, and
   * only the per-run values: the records come without their per-request samples.
   */
  readStoredRecords(gateKey?: string, benchmark?: string): Promise<ReadStoredRecordsResult> {
    return this.exclusive(async () => {
      const folder =
        gateKey === undefined
          ? ''
          : benchmark === undefined
            ? gateFolder(gateKey)
            : benchmarkFolder(gateKey, benchmark);
      const read = await this.readFolder(folder, {
        limit: Number.POSITIVE_INFINITY,
        samples: false,
        ...(gateKey !== undefined ? { gateKey } : {}),
        ...(gateKey !== undefined && benchmark !== undefined ? { benchmark } : {}),
      });
      read.records.reverse();
      return read;
    });
  }

  private async read(
    gateKey: string,
    benchmark: string | undefined,
    options: ReadRecordsOptions,
  ): Promise<ReadRecordsResult> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (!(limit >= 0)) throw new RangeError(`readRecords: limit must be ≥ 0, got ${limit}`);
    const folder =
      benchmark === undefined ? gateFolder(gateKey) : benchmarkFolder(gateKey, benchmark);
    const read = await this.readFolder(folder, {
      limit,
      gateKey,
      ...(benchmark !== undefined ? { benchmark } : {}),
    });
    return {
      records: read.records.map((r) => r.record),
      warnings: read.warnings,
      ...(read.commit ? { commit: read.commit } : {}),
    };
  }

  /** The records under `folder` ('' = all), newest first, checked against gate and benchmark. */
  private async readFolder(
    folder: string,
    filter: { limit: number; gateKey?: string; benchmark?: string; samples?: boolean },
  ): Promise<ReadStoredRecordsResult> {
    const { gateKey, benchmark } = filter;
    const git = await this.repository();
    let tip = await this.fetchTip(git);
    if (!tip) return { records: [], warnings: [] };
    // The listing that checks the tip holds only records is the one read from: one
    // ls-tree of the tip, not two.
    const entriesAt = async (commit: string) =>
      newestPerFolder(
        inFolder(await this.checkHoldsOnlyRecords(git, commit), folder),
        filter.limit,
      );
    let entries = await entriesAt(tip);
    let missing = await missingBlobs(git, TIP_REF, entries);
    if (missing.wanted.length > 0 && missing.wanted.length * WHOLE_SHARE >= missing.objects) {
      const whole = await this.fetchWhole(git);
      if (whole === null) {
        // A git without --refetch (before 2.36): file by file, as for a small read.
      } else if (!whole) {
        return { records: [], warnings: [] };
      } else {
        if (whole !== tip) entries = await entriesAt(whole);
        tip = whole;
        // The tip came whole: every file in it is here.
        missing = { wanted: [], objects: missing.objects };
      }
    }
    await fetchBlobsById(git, missing.wanted);
    const warnings: string[] = [];
    const records: { record: BaselineRecord; path: string }[] = [];
    const pathsOf = new Map<string, string[]>();
    for (const entry of entries) {
      pathsOf.set(entry.oid, [...(pathsOf.get(entry.oid) ?? []), entry.path]);
    }
    await readBlobs(git, [...pathsOf.keys()], (oid, text) => {
      for (const path of pathsOf.get(oid) ?? []) {
        const where = `${this.branch}:${path}`;
        let record: BaselineRecord;
        try {
          record = parseRecord(text ?? '', { samples: filter.samples !== false });
        } catch (error) {
          warnings.push(`${where}: ${(error as Error).message}; skipped`);
          continue;
        }
        if (gateKey !== undefined && record.gateKey !== gateKey) {
          warnings.push(`${where}: holds gate '${record.gateKey}', not '${gateKey}'; skipped`);
        } else if (benchmark !== undefined && record.benchmark !== benchmark) {
          warnings.push(
            `${where}: holds benchmark '${record.benchmark}', not '${benchmark}'; skipped`,
          );
        } else {
          records.push({ record, path });
        }
      }
    });
    records.sort(
      (a, b) =>
        b.record.createdAt.localeCompare(a.record.createdAt) || b.path.localeCompare(a.path),
    );
    return { records, warnings, commit: tip };
  }

  // ── writing ────────────────────────────────────────────────────────────────────────

  private async append(
    records: BaselineRecord[],
    options: AppendRecordsOptions,
  ): Promise<AppendRecordsResult> {
    const keep = options.keep ?? DEFAULT_KEEP;
    const maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
    const deadlineMs = options.deadlineMs ?? DEFAULT_PUSH_DEADLINE_MS;
    const started = performance.now();
    if (!Number.isInteger(keep) || keep < 1) {
      throw new RangeError(`appendRecords: keep must be a whole number ≥ 1, got ${keep}`);
    }
    if (!(maxAttempts >= 1) || (Number.isFinite(maxAttempts) && !Number.isInteger(maxAttempts))) {
      throw new RangeError(`appendRecords: maxAttempts must be ≥ 1, got ${maxAttempts}`);
    }
    const files = records.map((record) => {
      // What is stored must read back: validate before anything is written.
      const content = serializeRecord(record);
      migrateRecord(JSON.parse(content));
      return { path: pathOfRecord(record), content };
    });
    const git = await this.repository();
    const oids = await hashBlobs(
      git,
      this.scratchDir,
      files.map((f) => f.content),
    );
    const blobs = files.map((file, index) => ({ path: file.path, oid: oids[index]! }));

    let tip = await this.fetchTip(git);
    if (tip) await this.checkHoldsOnlyRecords(git, tip);
    let transientFailures = 0;
    for (let attempt = 1; ; attempt += 1) {
      const built = await this.buildCommit(git, tip, blobs, keep, records.length);
      if (built.commit === tip) {
        return { commit: tip, attempts: attempt, added: [], pruned: [] };
      }
      const push = await git.tryRun([
        'push',
        '--porcelain',
        '--no-thin',
        '--no-verify',
        'origin',
        `${built.commit}:refs/heads/${this.branch}`,
      ]);
      if (push.timedOut) {
        throw new Error(
          `could not push to the baseline branch '${this.branch}': ${lastLines(push.stderr)}. Pushes are never forced: the branch holds its earlier records, with or without this run's.`,
        );
      }
      if (push.ok) {
        await git.run(['update-ref', TIP_REF, built.commit]);
        return {
          commit: built.commit,
          attempts: attempt,
          added: built.added,
          pruned: built.pruned,
        };
      }
      const output = `${push.stdout}\n${push.stderr}`;
      const before = tip;
      tip = await this.fetchTip(git);
      const contention = tip !== before || isContention(output);
      const transient = !contention && isTransientFailure(output);
      if (transient) transientFailures += 1;
      if (!contention && (!transient || transientFailures > MAX_TRANSIENT_RETRIES)) {
        throw new Error(
          `could not push to the baseline branch '${this.branch}': ${lastLines(output)}. Check that the job may push (permissions: contents: write) and that the branch is not protected against it.`,
        );
      }
      const waited = performance.now() - started;
      if (attempt >= maxAttempts || waited >= deadlineMs) {
        throw new Error(
          `could not store ${records.length} record(s) on the baseline branch '${this.branch}': after ${attempt} attempts in ${Math.round(waited / 1000)} s, other writers kept getting there first (${lastLines(output)}). Nothing of this run was written; re-run the job to store it.`,
        );
      }
      await pauseBeforeRetry(attempt, this.options);
    }
  }

  /**
   * Records go only onto a branch of records: a branch that holds anything else (code,
   * a README) is someone's work, and a record pushed onto it would land in their history.
   * Checked once per tip, from the file names alone (no contents are fetched). Returns
   * every file of the tip.
   */
  private async checkHoldsOnlyRecords(git: Git, tip: string): Promise<TreeEntry[]> {
    if (this.checked?.tip === tip) return this.checked.entries;
    const entries = await listTree(git, tip, [], true);
    const strangers = entries.map((entry) => entry.path).filter((path) => !RECORD_PATH.test(path));
    if (strangers.length > 0) {
      const shown = strangers.slice(0, 3).join(', ');
      const more = strangers.length > 3 ? ` and ${strangers.length - 3} more` : '';
      throw new Error(
        `the baseline branch '${this.branch}' holds files that are not gate records (${shown}${more}), so it is not a data branch: the gate neither reads nor writes it. Set baseline-branch to a branch of its own (the default, ${DEFAULT_DATA_BRANCH}, is created on first use), never a branch with code.`,
      );
    }
    this.checked = { tip, entries };
    return entries;
  }

  /** One commit on top of `tip` (or an orphan) with the new files added and old ones pruned. */
  private async buildCommit(
    git: Git,
    tip: string | undefined,
    blobs: TreeEntry[],
    keep: number,
    recordCount: number,
  ): Promise<{ commit: string; added: string[]; pruned: string[] }> {
    const folders = [...new Set(blobs.map((b) => b.path.slice(0, b.path.lastIndexOf('/'))))];
    const existing = tip ? await listTree(git, tip, folders) : [];
    const byPath = new Map(existing.map((e) => [e.path, e.oid]));
    const storedOids = new Set(existing.map((e) => e.oid));
    const added: TreeEntry[] = [];
    for (const blob of blobs) {
      // Stored byte for byte already (a retried run): nothing to add.
      if (storedOids.has(blob.oid) || added.some((a) => a.oid === blob.oid)) continue;
      const path = freePath(blob.path, (p) => byPath.has(p) || added.some((a) => a.path === p));
      added.push({ path, oid: blob.oid });
    }
    if (added.length === 0 && tip) return { commit: tip, added: [], pruned: [] };

    const pruned: string[] = [];
    for (const folder of folders) {
      const names = [...existing, ...added]
        .filter(
          (e) => e.path.startsWith(`${folder}/`) && !e.path.slice(folder.length + 1).includes('/'),
        )
        .map((e) => e.path)
        .filter((path) => path.endsWith('.json'))
        .sort()
        .reverse();
      pruned.push(...names.slice(keep));
    }
    const prunedSet = new Set(pruned);

    const newPaths = added.filter((a) => !prunedSet.has(a.path)).map((a) => a.path);
    const message = [
      `perf-gate: ${recordCount} record${recordCount === 1 ? '' : 's'} [skip ci]`,
      '',
      ...newPaths.map((p) => `add ${p}`),
      ...(pruned.length > 0 ? [`prune ${pruned.length} older record(s)`] : []),
    ].join('\n');
    const commit = await commitTree(git, this.scratchDir, {
      parent: tip,
      add: added.filter((a) => !prunedSet.has(a.path)),
      remove: pruned,
      message,
    });
    return { commit, added: newPaths, pruned: pruned.filter((p) => byPath.has(p)) };
  }

  // ── the scratch repository ─────────────────────────────────────────────────────────

  /** The tip of the data branch, fetched one commit deep; undefined when there is none. */
  private fetchTip(git: Git): Promise<string | undefined> {
    return fetchBranchTip(git, {
      branch: this.branch,
      ref: TIP_REF,
      flags: ['--filter=blob:none'],
      what: 'the baseline branch',
    });
  }

  /**
   * The tip again with every file in it, in one pack: the server sends its stored pack
   * data as it is, where files asked for by id are packed afresh one request at a time
   * (on loopback about 5 s per 1,000 records either way, against 5 s for the whole of a
   * 7,300-record branch; `npm run bench:history`). `--refetch` because the tip commit is
   * here already, blob-less, and a plain fetch would find nothing to do.
   */
  private async fetchWhole(git: Git): Promise<string | undefined | null> {
    try {
      return await fetchBranchTip(git, {
        branch: this.branch,
        ref: TIP_REF,
        flags: ['--refetch', '--no-filter'],
        what: 'the baseline branch',
      });
    } catch (error) {
      // null: this git does not know --refetch; anything else is a real failure.
      if (/unknown option.*refetch/i.test((error as Error).message)) return null;
      throw error;
    }
  }

  private repository(): Promise<Git> {
    this.scratch ??= this.createRepository().catch((error: unknown) => {
      this.scratch = undefined;
      throw error;
    });
    return this.scratch;
  }

  private createRepository(): Promise<Git> {
    return openScratchRepository({
      repoDir: this.options.repoDir,
      ...(this.options.remote !== undefined ? { remote: this.options.remote } : {}),
      dir: this.scratchDir,
      timeLimitMs: () => this.callLimitMs(),
      ...(this.options.identity ? { identity: this.options.identity } : {}),
      ...(this.options.token ? { token: this.options.token } : {}),
      partial: true,
      noOriginAdvice:
        "the git-branch baseline store keeps its data on a branch of the repository's origin. Check the repository out with actions/checkout, or choose baseline-store: file.",
    });
  }

  /** The next git call's time limit; refused when the deadline has passed. */
  private callLimitMs(): number {
    const limit = this.options.networkTimeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS;
    const { deadline } = this.options;
    if (!deadline) return limit;
    if (deadline.expired) throw deadline.error(`git on the baseline branch '${this.branch}'`);
    return deadline.limitFor(limit);
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The entries under `folder` ('' = all of them). */
function inFolder(entries: TreeEntry[], folder: string): TreeEntry[] {
  if (folder === '') return entries;
  const prefix = `${folder}/`;
  return entries.filter((entry) => entry.path.startsWith(prefix));
}

/** Per folder, the newest `limit` `.json` files by name (names start with the time). */
function newestPerFolder(entries: TreeEntry[], limit: number): TreeEntry[] {
  const byFolder = new Map<string, TreeEntry[]>();
  for (const entry of entries) {
    if (!entry.path.endsWith('.json')) continue;
    const folder = entry.path.slice(0, entry.path.lastIndexOf('/'));
    let list = byFolder.get(folder);
    if (!list) byFolder.set(folder, (list = []));
    list.push(entry);
  }
  const kept: TreeEntry[] = [];
  for (const list of byFolder.values()) {
    list.sort((a, b) => b.path.localeCompare(a.path));
    kept.push(...list.slice(0, Math.min(list.length, limit)));
  }
  return kept;
}

/** `path`, or `<name>-2.json`, `-3`, ... when that name is taken by a different record. */
function freePath(path: string, taken: (path: string) => boolean): string {
  if (!taken(path)) return path;
  const stem = path.replace(/\.json$/, '');
  for (let n = 2; ; n += 1) {
    const candidate = `${stem}-${n}.json`;
    if (!taken(candidate)) return candidate;
  }
}

export { GitError };

// Baseline records in a plain folder, laid out like the data branch:
//
//   <gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json
//
// For a worktree or an unpacked copy of the data branch. Records are read as untrusted
// input (a file that does not parse is skipped with a warning) and written append-only:
// an existing file is never replaced.

import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { slugify } from '../runner/slug.js';
import { type BaselineRecord } from './record.js';
import { gateFolder, pathOfRecord } from './record-paths.js';
import { parseRecord, serializeRecord } from './record-text.js';

/** A record with the path of its file, relative to the store's root (`/`-separated). */
export interface StoredRecord {
  path: string;
  record: BaselineRecord;
}

export interface ListRecordsFilter {
  /** Only this gate's records. */
  gateKey?: string;
  /** Only this benchmark's records (of every gate unless `gateKey` is given too). */
  benchmark?: string;
  /** Only the newest this many files of each benchmark folder (names sort by time). */
  limit?: number;
}

export interface ListRecordsResult {
  /** Grouped by gate and benchmark (sorted by name), newest first within a group. */
  records: StoredRecord[];
  /** One line per skipped file, naming it and what is wrong. */
  warnings: string[];
}

/** Asked for a record path that holds no file. */
export class RecordNotFoundError extends Error {
  readonly path: string;

  constructor(path: string, where: string) {
    super(`no record '${path}' in ${where}`);
    this.name = 'RecordNotFoundError';
    this.path = path;
  }
}

export class FolderRecordStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  async listRecords(filter: ListRecordsFilter = {}): Promise<ListRecordsResult> {
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    if (!(limit >= 0)) throw new RangeError(`listRecords: limit must be ≥ 0, got ${limit}`);
    const gates =
      filter.gateKey === undefined ? await subfolders(this.root) : [gateFolder(filter.gateKey)];
    const warnings: string[] = [];
    const records: StoredRecord[] = [];
    for (const gate of gates) {
      const benchmarks =
        filter.benchmark === undefined
          ? await subfolders(join(this.root, gate))
          : [slugify(filter.benchmark)];
      for (const benchmark of benchmarks) {
        const folder = `${gate}/${benchmark}`;
        const names = (await recordFileNames(join(this.root, folder))).slice(0, limit);
        for (const name of names) {
          const path = `${folder}/${name}`;
          let record: BaselineRecord;
          try {
            record = parseRecord(await readFile(join(this.root, path), 'utf8'));
          } catch (error) {
            warnings.push(`${path}: ${(error as Error).message}; skipped`);
            continue;
          }
          const mismatch = mismatchOf(record, filter);
          if (mismatch) warnings.push(`${path}: ${mismatch}; skipped`);
          else records.push({ path, record });
        }
      }
    }
    records.sort(newestFirstByGroup);
    return { records, warnings };
  }

  /** The record at `path` (relative to the root). Throws RecordNotFoundError or a parse error. */
  async readRecord(path: string): Promise<BaselineRecord> {
    const relative = checkedPath(path);
    let text: string;
    try {
      text = await readFile(join(this.root, relative), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
        throw new RecordNotFoundError(relative, this.root);
      }
      throw error;
    }
    try {
      return parseRecord(text);
    } catch (error) {
      throw new Error(`${relative}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Writes the record at its path (pathOfRecord) atomically and returns that path. The
   * same record already stored byte for byte is not written again; a different record
   * under the same name gets `-2`, `-3`, ... like on the data branch.
   */
  async writeRecord(record: BaselineRecord): Promise<string> {
    const content = serializeRecord(record);
    // What is stored must read back: validate before anything is written.
    parseRecord(content);
    const wanted = pathOfRecord(record);
    const stem = wanted.replace(/\.json$/, '');
    for (let n = 1; ; n += 1) {
      const path = n === 1 ? wanted : `${stem}-${n}.json`;
      const existing = await readIfExists(join(this.root, path));
      if (existing === content) return path;
      if (existing === undefined) {
        await writeFileAtomic(join(this.root, path), content);
        return path;
      }
    }
  }
}

/** `path` made `/`-separated and checked to stay inside the store. */
function checkedPath(path: string): string {
  const normal = posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '');
  if (isAbsolute(path) || normal === '..' || normal.startsWith('../') || normal === '.') {
    throw new Error(
      `'${path}' is not a record path; give it relative to the store, like <gate-key>/<benchmark>/<file>.json`,
    );
  }
  return normal;
}

function mismatchOf(record: BaselineRecord, filter: ListRecordsFilter): string | undefined {
  if (filter.gateKey !== undefined && record.gateKey !== filter.gateKey) {
    return `holds gate '${record.gateKey}', not '${filter.gateKey}'`;
  }
  if (filter.benchmark !== undefined && record.benchmark !== filter.benchmark) {
    return `holds benchmark '${record.benchmark}', not '${filter.benchmark}'`;
  }
  return undefined;
}

function newestFirstByGroup(a: StoredRecord, b: StoredRecord): number {
  return (
    a.record.gateKey.localeCompare(b.record.gateKey) ||
    a.record.benchmark.localeCompare(b.record.benchmark) ||
    b.record.createdAt.localeCompare(a.record.createdAt) ||
    b.path.localeCompare(a.path)
  );
}

/** Folder names inside `dir`, without hidden ones (a worktree's `.git`); none if it is missing. */
async function subfolders(dir: string): Promise<string[]> {
  const entries = await entriesOf(dir);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

/** The `.json` file names in `dir`, newest first (names start with the time). */
async function recordFileNames(dir: string): Promise<string[]> {
  const entries = await entriesOf(dir);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.json') && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()
    .reverse();
}

async function entriesOf(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// Git object plumbing for the data branch's store: list a tree, find and fetch the blobs a
// blob-less fetch left out, read blobs through one `cat-file --batch`, write new ones.

import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BatchParser } from './cat-file-batch.js';
import type { Git } from './git.js';

/** A file of a tree: its path and blob id. */
export interface TreeEntry {
  oid: string;
  path: string;
}

/** Every file under `folders` in `commit` (or in all of it), as paths and blob ids. */
export async function listTree(
  git: Git,
  commit: string,
  folders: string[],
  everything = false,
): Promise<TreeEntry[]> {
  if (folders.length === 0 && !everything) return [];
  const output = await git.run([
    'ls-tree',
    '-r',
    '-z',
    '--full-tree',
    commit,
    ...(everything ? [] : ['--', ...folders.map((f) => `${f}/`)]),
  ]);
  const entries: TreeEntry[] = [];
  for (const line of output.split('\0')) {
    // <mode> SP <type> SP <oid> TAB <path>
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [, type, oid] = line.slice(0, tab).split(' ');
    if (type !== 'blob' || !oid) continue;
    entries.push({ oid, path: line.slice(tab + 1) });
  }
  return entries;
}

/**
 * The blobs of `entries` the scratch repository lacks (a blob-less fetch left them out),
 * and how many objects the tip holds in all. Never fetches: `--missing=print` only lists.
 */
export async function missingBlobs(
  git: Git,
  ref: string,
  entries: TreeEntry[],
): Promise<{ wanted: string[]; objects: number }> {
  if (entries.length === 0) return { wanted: [], objects: 0 };
  const wanted = new Set(entries.map((e) => e.oid));
  const lines = (await git.run(['rev-list', '--objects', '--missing=print', ref])).split('\n');
  const missing = new Set<string>();
  for (const line of lines) {
    if (!line.startsWith('?')) continue;
    const oid = line.slice(1).trim();
    if (wanted.has(oid)) missing.add(oid);
  }
  return { wanted: [...missing], objects: lines.length };
}

/** Fetches blobs by id, 1,000 a request. */
export async function fetchBlobsById(git: Git, oids: string[]): Promise<void> {
  for (let start = 0; start < oids.length; start += 1000) {
    await git.run([
      '-c',
      'fetch.negotiationAlgorithm=noop',
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--recurse-submodules=no',
      '--filter=blob:none',
      'origin',
      ...oids.slice(start, start + 1000),
    ]);
  }
}

/**
 * The contents of blobs, each handed to `onBlob` (as UTF-8 text; undefined when missing),
 * through one `cat-file --batch`, as its output comes.
 */
export async function readBlobs(
  git: Git,
  oids: string[],
  onBlob: (oid: string, text: string | undefined) => void,
): Promise<void> {
  if (oids.length === 0) return;
  const parser = new BatchParser(onBlob);
  await git.runStreaming(['cat-file', '--batch'], (chunk) => parser.push(chunk), {
    input: `${oids.join('\n')}\n`,
  });
  parser.end();
}

/** Writes the contents as blobs of the scratch repository; returns their ids in order. */
export async function hashBlobs(
  git: Git,
  scratchDir: string,
  contents: string[],
): Promise<string[]> {
  if (contents.length === 0) return [];
  const dir = join(scratchDir, `incoming-${randomBytes(6).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  try {
    const paths = await Promise.all(
      contents.map(async (content, index) => {
        const path = join(dir, `${index}.json`);
        await writeFile(path, content, 'utf8');
        return path;
      }),
    );
    const output = await git.run(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
      input: `${paths.join('\n')}\n`,
    });
    return output.split('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const EMPTY_OID = '0000000000000000000000000000000000000000';

/** What one commit changes: blobs added at their paths, paths removed. */
export interface TreeChange {
  /** undefined: an orphan commit. */
  parent: string | undefined;
  add: TreeEntry[];
  remove: string[];
  message: string;
}

/** Writes one commit on `parent` with the change, through an index of its own; its id. */
export async function commitTree(
  git: Git,
  scratchDir: string,
  change: TreeChange,
): Promise<string> {
  const index = join(scratchDir, `index-${randomBytes(6).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git.run(change.parent ? ['read-tree', change.parent] : ['read-tree', '--empty'], { env });
    const lines = [
      ...change.add.map((a) => `100644 ${a.oid}\t${a.path}`),
      ...change.remove.map((path) => `0 ${EMPTY_OID}\t${path}`),
    ];
    await git.run(['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` });
    const tree = await git.run(['write-tree', '--missing-ok'], { env });
    const parent = change.parent ? ['-p', change.parent] : [];
    return await git.run(['commit-tree', tree, ...parent, '-F', '-'], {
      input: `${change.message}\n`,
    });
  } finally {
    await rm(index, { force: true });
  }
}

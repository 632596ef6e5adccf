// The base side of an A/B comparison as the gate left it, checked before each base run and
// when judging: the head side's code (a pull request's, a candidate SDK's) runs in between.
// The head's sandbox already keeps the base out of its reach (runner/sandbox.ts `hiding`);
// these checks make a base side that changed anyway an error, never a verdict, and hold
// for a bug in the sandbox as for one we did not think of (issue 50, docs/security.md).

import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Git } from '../baseline/git/git.js';
import type { PreparedSide } from './sides.js';

/** A folder by what it is, not by its name: another folder put at its path differs. */
interface FolderIdentity {
  dev: number;
  ino: number;
}

export class BaseGuard {
  /** Each base run's result file, hashed right after the run. */
  private readonly hashes = new Map<string, string>();

  private constructor(
    private readonly side: PreparedSide,
    private readonly folders: ReadonlyMap<string, FolderIdentity>,
    /** The worktree's git, when the base side is a commit checked out by the gate. */
    private readonly git: Git | undefined,
    /** `git status` of the tracked files once set up. */
    private readonly status: string,
  ) {}

  /** The base side as it is now, after setup: its folders, commit and tracked files. */
  static async take(side: PreparedSide, git: Git): Promise<BaseGuard> {
    const folders = new Map<string, FolderIdentity>();
    for (const dir of [side.dir, side.outDir]) folders.set(dir, await identityOf(dir));
    const worktree = side.sha !== undefined ? git.in(side.dir) : undefined;
    const status = worktree ? await trackedStatus(worktree) : '';
    return new BaseGuard(side, folders, worktree, status);
  }

  /** Undefined when the base side is as taken; else what changed, in a sentence. */
  async changed(): Promise<string | undefined> {
    for (const [dir, identity] of this.folders) {
      const now = await identityOf(dir).catch(() => undefined);
      if (now?.dev !== identity.dev || now.ino !== identity.ino) {
        return `${dir} is no longer the folder the gate made (moved away or replaced)`;
      }
    }
    if (!this.git || this.side.sha === undefined) return undefined;
    const head = (await this.git.run(['rev-parse', 'HEAD'])).trim();
    if (head !== this.side.sha) {
      return `${this.side.dir} is at ${head.slice(0, 7)}, not the base commit ${this.side.sha.slice(0, 7)}`;
    }
    const status = await trackedStatus(this.git);
    if (status !== this.status) {
      const line = status.split('\n').find((l) => !this.status.includes(l)) ?? status;
      return `tracked files in ${this.side.dir} changed since setup (${line.trim() || 'a change undone'})`;
    }
    return undefined;
  }

  /** Hashes a base run's result file now, before any head run can touch it. */
  async recordResult(path: string): Promise<void> {
    this.hashes.set(path, await hashOf(path));
  }

  /** Undefined when every recorded result file is as hashed after its run; else which is not. */
  async changedResults(paths: readonly string[]): Promise<string | undefined> {
    for (const path of paths) {
      const recorded = this.hashes.get(path);
      if (recorded === undefined) continue;
      if ((await hashOf(path)) !== recorded) {
        return `${path} is not the file its run wrote (changed after the run)`;
      }
    }
    return undefined;
  }
}

async function identityOf(dir: string): Promise<FolderIdentity> {
  const { dev, ino } = await stat(dir);
  return { dev, ino };
}

/** A missing file hashes as such: one that appears later differs. */
async function hashOf(path: string): Promise<string> {
  const bytes = await readFile(path).catch(() => undefined);
  return bytes ? createHash('sha256').update(bytes).digest('hex') : 'missing';
}

/** Tracked files only: the base side's own runs may write files git does not track. */
async function trackedStatus(git: Git): Promise<string> {
  return git.run(['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no']);
}

// One git worktree per measured commit, in a temporary folder, removed when the commit is
// done, and all of them when bisect ends however it ends: an error, or SIGINT/SIGTERM
// (the CLI exits through process.exit then, so the last cleanup is synchronous).

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { inheritedEnvironment, type Git } from '../baseline/git/git.js';

export class Worktrees {
  private readonly dirs = new Map<string, string>();
  private readonly onExit = (): void => this.removeAllSync();

  private constructor(
    private readonly git: Git,
    /** The temporary folder the worktrees go in. */
    readonly base: string,
  ) {
    process.once('exit', this.onExit);
  }

  /** A set of worktrees of the repository `git` runs in. */
  static async create(git: Git): Promise<Worktrees> {
    return new Worktrees(git, await mkdtemp(join(tmpdir(), 'perf-gate-bisect-')));
  }

  /**
   * Checks `sha` out into a fresh worktree (detached HEAD); returns its folder. `key` names
   * it (the sha by default): two keys give one commit two folders (A/B of environments).
   */
  async add(sha: string, key = sha): Promise<string> {
    const existing = this.dirs.get(key);
    if (existing) return existing;
    const dir = join(this.base, key === sha ? sha.slice(0, 12) : key);
    // The folder is new: an earlier commit's hook or benchmark (pull-request code, which
    // can write here) may have put a link in its place, which git would check out through.
    if (await lstat(dir).catch(() => undefined)) {
      throw new Error(
        `${dir} is there before bisect made it (a link or folder an earlier commit's --command or benchmark left?); refusing to check ${sha.slice(0, 7)} out through it`,
      );
    }
    this.dirs.set(key, dir);
    await this.git.run(['worktree', 'add', '--detach', '--force', dir, sha]);
    return dir;
  }

  async remove(key: string): Promise<void> {
    const dir = this.dirs.get(key);
    if (!dir) return;
    this.dirs.delete(key);
    await this.git.tryRun(['worktree', 'remove', '--force', '--force', dir]);
    await rm(dir, { recursive: true, force: true });
    await this.git.tryRun(['worktree', 'prune']);
  }

  /** Removes every worktree and the temporary folder. */
  async removeAll(): Promise<void> {
    for (const key of [...this.dirs.keys()]) await this.remove(key);
    await rm(this.base, { recursive: true, force: true });
    await this.git.tryRun(['worktree', 'prune']);
    process.removeListener('exit', this.onExit);
  }

  /** For process exit: delete the folders, then let git forget them. */
  private removeAllSync(): void {
    // A second Ctrl-C while this runs would kill us half way: from here on it is ignored.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
    rmSync(this.base, { recursive: true, force: true });
    try {
      execFileSync('git', ['-c', 'core.hooksPath=/dev/null', 'worktree', 'prune'], {
        cwd: this.git.cwd,
        env: inheritedEnvironment(),
        stdio: 'ignore',
      });
    } catch {
      // Nothing more can be done while exiting; `git worktree prune` later does the same.
    }
  }
}

/** `path` at the same place inside `worktree` when it lies inside `root`; else as it is. */
export function movedInto(root: string, worktree: string, path: string): string {
  const inRepo = relative(root, path);
  if (inRepo.startsWith('..') || isAbsolute(inRepo)) return path;
  return join(worktree, inRepo);
}

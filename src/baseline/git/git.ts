// A small typed wrapper around the `git` binary: every git call of the baseline store
// goes through here, with prompts off, a fixed locale and the tool's own identity.

import { execa } from 'execa';
import { formatDuration } from '../../text/duration.js';

export interface GitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_IDENTITY: GitIdentity = {
  name: 'neuron-perf-gate',
  email: 'neuron-perf-gate@users.noreply.github.com',
};

export interface GitOptions {
  /** Folder git runs in. */
  cwd: string;
  /** Extra environment (GIT_INDEX_FILE, ...); process.env is inherited, less what redirects git. */
  env?: Record<string, string>;
  /** Author and committer of commits; the tool's own identity unless given. */
  identity?: GitIdentity;
  /**
   * Configuration for this process only (`-c key=value` without showing it in process
   * lists or error messages: passed as GIT_CONFIG_COUNT/KEY/VALUE).
   */
  config?: [key: string, value: string][];
  /** The git executable; `git` on PATH unless given. */
  binary?: string;
  /**
   * The time limit of the next call, asked before each (it may throw to refuse the call).
   * A call still running then is killed with everything it started (ssh, a remote helper).
   */
  timeLimitMs?: () => number;
}

export interface RunOptions {
  /** Written to git's stdin. */
  input?: string | Buffer;
  env?: Record<string, string>;
}

/** A git command that exited with a non-zero status. */
export class GitError extends Error {
  readonly args: string[];
  readonly exitCode: number | undefined;
  readonly stderr: string;
  readonly stdout: string;
  /** Killed at its time limit (a remote that does not answer). */
  readonly timedOut: boolean;

  constructor(
    args: string[],
    exitCode: number | undefined,
    stderr: string,
    stdout: string,
    timedOut = false,
  ) {
    const detail = (stderr.trim() || stdout.trim() || 'no output').split('\n').slice(-12);
    super(`git ${args.join(' ')} failed (exit ${exitCode ?? 'unknown'}): ${detail.join('\n')}`);
    this.name = 'GitError';
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.stdout = stdout;
    this.timedOut = timedOut;
  }
}

export class Git {
  readonly cwd: string;
  private readonly options: GitOptions;

  constructor(options: GitOptions) {
    this.cwd = options.cwd;
    this.options = options;
  }

  /** The same git in another folder, with the same settings. */
  in(cwd: string): Git {
    return new Git({ ...this.options, cwd });
  }

  /** Runs `git <args>`; returns stdout (trailing newline removed), throws GitError. */
  async run(args: string[], options: RunOptions = {}): Promise<string> {
    const result = await this.spawn(args, options, 'utf8');
    return result.stdout.replace(/\n$/, '');
  }

  /**
   * Runs `git <args>` and hands stdout to `onStdout` chunk by chunk as it comes (for
   * `cat-file --batch` of thousands of files: they are parsed while git still reads, and
   * never held whole). An error `onStdout` throws stops git and is thrown here.
   */
  async runStreaming(
    args: string[],
    onStdout: (chunk: Buffer) => void,
    options: RunOptions = {},
  ): Promise<void> {
    await this.spawn(args, options, 'buffer', onStdout);
  }

  /** Runs `git <args>` and reports the outcome instead of throwing. */
  async tryRun(
    args: string[],
    options: RunOptions = {},
  ): Promise<{
    ok: boolean;
    exitCode: number | undefined;
    stdout: string;
    stderr: string;
    timedOut?: boolean;
  }> {
    try {
      const stdout = await this.run(args, options);
      return { ok: true, exitCode: 0, stdout, stderr: '' };
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      return {
        ok: false,
        exitCode: error.exitCode,
        stdout: error.stdout,
        stderr: error.stderr,
        ...(error.timedOut ? { timedOut: true } : {}),
      };
    }
  }

  private async spawn<E extends 'utf8' | 'buffer'>(
    args: string[],
    options: RunOptions,
    encoding: E,
    onStdout?: (chunk: Buffer) => void,
  ) {
    const identity = this.options.identity ?? DEFAULT_IDENTITY;
    // No hook and no fsmonitor of the repository runs: the workspace's .git/hooks is the
    // pull request's to write (the sandbox keeps only .git/config from it), and a hook run
    // here would run with the gate's tokens (bisect's `worktree add` runs post-checkout).
    const config: [string, string][] = [
      ['core.hooksPath', '/dev/null'],
      ['core.fsmonitor', 'false'],
      // An empty helper clears every credential helper a config (~/.gitconfig) names.
      ['credential.helper', ''],
      ...(this.options.config ?? []),
    ];
    const env: Record<string, string> = {
      GIT_TERMINAL_PROMPT: '0',
      GCM_INTERACTIVE: 'never',
      LC_ALL: 'C',
      LANGUAGE: 'C',
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
      ...configEnv(config),
      ...this.options.env,
      ...options.env,
    };
    const limitMs = this.options.timeLimitMs?.();
    // With a time limit, git leads its own process group: the kill reaches what it started.
    const subprocess = execa(this.options.binary ?? 'git', args, {
      cwd: this.cwd,
      env: { ...inheritedEnvironment(), ...env },
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      encoding,
      maxBuffer: 1024 * 1024 * 1024,
      ...(onStdout ? { buffer: { stdout: false } } : {}),
      detached: limitMs !== undefined,
      ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
    });
    let timedOut = false;
    const kill = (): void => {
      if (subprocess.pid === undefined) return;
      try {
        process.kill(-subprocess.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    };
    const timer =
      limitMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            kill();
          }, limitMs);
    if (limitMs !== undefined) process.once('exit', kill);
    let streamError: unknown;
    if (onStdout) {
      subprocess.stdout?.on('data', (chunk: Buffer) => {
        if (streamError !== undefined) return;
        try {
          onStdout(chunk);
        } catch (error) {
          streamError = error;
          subprocess.kill('SIGKILL');
        }
      });
    }
    let result: Awaited<typeof subprocess>;
    try {
      result = await subprocess;
    } finally {
      clearTimeout(timer);
      process.removeListener('exit', kill);
    }
    if (streamError !== undefined) throw streamError;
    if (timedOut) {
      const said = toText(result.stderr as unknown).trim();
      throw new GitError(
        args,
        undefined,
        `${said ? `${said}\n` : ''}no answer within ${formatDuration(limitMs!)}: git was stopped`,
        toText(result.stdout as unknown),
        true,
      );
    }
    if (result.failed) {
      if (result.exitCode === undefined && !result.stderr) {
        throw new GitError(args, undefined, result.message ?? 'git could not be started', '');
      }
      throw new GitError(
        args,
        result.exitCode,
        toText(result.stderr as unknown),
        toText(result.stdout as unknown),
      );
    }
    return result;
  }
}

function configEnv(config: [string, string][]): Record<string, string> {
  if (config.length === 0) return {};
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return '';
}

/**
 * Variables that point git at another repository or index. Inherited from a caller (a
 * git hook, a wrapper script), they would make every command work on the wrong one.
 */
const REPOSITORY_VARIABLES = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
]);

/** This process's environment without the variables that redirect git. */
export function inheritedEnvironment(): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !REPOSITORY_VARIABLES.has(name)) inherited[name] = value;
  }
  return inherited;
}

/** The last `count` non-blank lines of git's output on one line, for an error message. */
export function lastLines(text: string, count = 4): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.slice(-count).join(' / ') || 'no output';
}

// git in a test's throwaway repository, as a fixed author: commits never depend on the
// machine's git config.
import { execFileSync } from 'node:child_process';

const IDENTITY = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
};

/** Runs `git args` in `cwd`; its stdout. */
export function gitIn(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...IDENTITY },
  });
}

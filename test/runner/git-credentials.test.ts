// The copy of a git config the sandbox shows: everything git needs, no credential.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../src/runner/git-credentials.js';

const TOKEN = 'ghs_configTokenThatMustNotLeak01234567';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

/** What git itself reads from `text`: `git config --file --list`. */
function gitReads(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'git-credentials-'));
  writeFileSync(join(dir, 'config'), text);
  return execFileSync('git', ['config', '--file', join(dir, 'config'), '--list'], {
    encoding: 'utf8',
  });
}

describe('withoutCredentials', () => {
  it('drops what actions/checkout and credential helpers leave, and keeps the rest', () => {
    const config = [
      '[core]',
      '\trepositoryformatversion = 0',
      '[remote "origin"]',
      `\turl = https://x-access-token:${TOKEN}@github.com/octo/inference`,
      '\tfetch = +refs/heads/*:refs/remotes/origin/*',
      '[http "https://github.com/"]',
      `\textraheader = AUTHORIZATION: basic ${BASIC}`,
      `[http "https://ghe.example/"] extraheader = AUTHORIZATION: basic ${BASIC}`,
      '[includeIf "gitdir:/home/runner/work/inference/inference/.git"]',
      '\tpath = /home/runner/work/_temp/git-credentials-1.config',
      '[credential]',
      '\thelper = store',
      `[url "https://x-access-token:${TOKEN}@github.com/"]`,
      '\tinsteadOf = https://github.com/',
      // A value continued on the next line with a backslash.
      '[http]',
      `\textraheader = AUTHORIZATION: basic \\`,
      `${BASIC}`,
      '[branch "main"]',
      '\tremote = origin',
    ].join('\n');
    expect(gitReads(config)).toContain(BASIC); // the test's config is what git reads
    const scrubbed = withoutCredentials(config);
    const read = gitReads(scrubbed);
    expect(read).not.toContain(TOKEN);
    expect(read).not.toContain(BASIC);
    expect(read).not.toMatch(/includeif|credential\.helper|extraheader/i);
    expect(read).toContain('remote.origin.url=https://github.com/octo/inference');
    expect(read).toContain('url.https://github.com/.insteadof=https://github.com/');
    expect(read).toContain('branch.main.remote=origin');
  });
});

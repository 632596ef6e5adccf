// The gate's own git processes, in a repository whose .git pull-request code could write.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../../src/baseline/git/git.js';

describe('Git', () => {
  it("runs no hook, fsmonitor or credential helper the repository's config names", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'git-no-hooks-'));
    const git = new Git({ cwd: dir });
    await git.run(['init', '--quiet', '-b', 'main']);
    const ran = join(dir, 'ran');
    const script = join(dir, 'evil.sh');
    await writeFile(script, `#!/bin/sh\necho "$0 $*" >> ${ran}\n`);
    await chmod(script, 0o755);
    for (const hook of ['post-checkout', 'pre-commit', 'post-commit', 'reference-transaction']) {
      await writeFile(join(dir, '.git', 'hooks', hook), `#!/bin/sh\n${script} ${hook}\n`);
      await chmod(join(dir, '.git', 'hooks', hook), 0o755);
    }
    await git.run(['config', 'core.fsmonitor', script]);
    await git.run(['config', 'credential.helper', `!${script}`]);
    await git.run(['commit', '--allow-empty', '-qm', 'first']);
    await git.run(['checkout', '-q', '-b', 'feature']);
    await git.run(['status', '--porcelain']);
    expect(existsSync(ran)).toBe(false);
  });
});

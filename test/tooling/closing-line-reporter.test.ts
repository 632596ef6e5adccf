// The closing line CI reads must agree with vitest's exit code: a file that fails to load or
// a failing beforeAll is a failure even though no test carries it. Runs a real vitest on
// small test files and reads its last line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';

const work = (() => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  return mkdtempSync(join(ROOT, '.tmp', 'closing-line-'));
})();
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs vitest on the given test files (name → source) and returns its exit code and last line. */
function runVitest(files: Record<string, string>): {
  status: number | null;
  last: string;
  out: string;
} {
  const dir = mkdtempSync(join(work, 'run-'));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { include: ['*.test.mjs'], reporters: [${JSON.stringify(
      join(ROOT, 'test/support/closing-line-reporter.ts'),
    )}] } };\n`,
  );
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } },
  );
  const lines = result.stdout.trim().split('\n');
  return { status: result.status, last: lines.at(-1) ?? '', out: result.stdout + result.stderr };
}

const PASSING = `import { it, expect } from 'vitest';\nit('passes', () => expect(1).toBe(1));\n`;

describe('closing line reporter', () => {
  it('counts a file that throws at import as failed, and vitest fails', () => {
    const run = runVitest({
      'good.test.mjs': PASSING,
      'broken.test.mjs': `throw new Error('cannot load');\n`,
    });
    expect(run.status, run.out).not.toBe(0);
    expect(run.last).toBe('Tests: 1 passed, 1 failed, 0 skipped');
    expect(run.out).toMatch(/Failed outside a test: .*broken\.test\.mjs: cannot load/);
  });

  it('counts a failing beforeAll once, not as zero failures', () => {
    const run = runVitest({
      'hook.test.mjs': `import { beforeAll, describe, it } from 'vitest';
describe('setup', () => {
  beforeAll(() => { throw new Error('no database'); });
  it('a', () => {});
  it('b', () => {});
});
`,
    });
    expect(run.status, run.out).not.toBe(0);
    expect(run.last).toMatch(/^Tests: 0 passed, [1-9]\d* failed, \d+ skipped$/);
  });

  it('says 0 failed when vitest exits 0', () => {
    const run = runVitest({ 'good.test.mjs': PASSING });
    expect(run.status, run.out).toBe(0);
    expect(run.last).toBe('Tests: 1 passed, 0 failed, 0 skipped');
  });
});

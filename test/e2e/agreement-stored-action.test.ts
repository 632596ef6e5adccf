// Stored answers through the bundled action and a real git data branch: a push to main keeps
// its answers to the agreement check in its record; a pull request is scored on them, and
// even with save-baseline keeps no answers of its own (its code answered them).
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import type { BaselineRecord } from '../../src/baseline/record.js';
import type { BenchmarkResult } from '../../src/model.js';
import { makeRepos } from '../baseline/git/support.js';
import { SERVE } from '../support/agreement-repo.js';
import { ROOT } from '../support/bundled.js';
import { freePort } from '../support/ports.js';
import { pullRequestPayload, pushPayload, runActionProcess } from '../support/action-run.js';

const inputs = {
  config: '.github/perf-gate.yml',
  'github-token': '',
  'upload-profiles': 'false',
  'save-baseline': 'saved-baseline.json',
};

async function storedRecords(origin: string): Promise<BaselineRecord[]> {
  const git = new Git({ cwd: origin });
  const files = (await git.run(['ls-tree', '-r', '--name-only', 'perf-gate-data']))
    .split('\n')
    .filter((line) => line.endsWith('.json'));
  return Promise.all(
    files.map(
      async (file) =>
        JSON.parse(await git.run(['show', `perf-gate-data:${file}`])) as BaselineRecord,
    ),
  );
}

describe('the action: answers stored by a push, never by a pull request', () => {
  it('keeps a push’s answers with its record and scores a pull request on them', async () => {
    const repos = await makeRepos();
    const port = `${await freePort()}`;
    const example = await readFile(join(ROOT, 'examples/agreement/perf-gate.yml'), 'utf8');
    await mkdir(join(repos.checkout, '.github'));
    await writeFile(
      join(repos.checkout, '.github/perf-gate.yml'),
      example.replaceAll('8000', port),
    );
    const sha = await repos.git.run(['rev-parse', 'HEAD']);

    const push = await runActionProcess({
      workspace: repos.checkout,
      label: 'push',
      inputs,
      event: { name: 'push', payload: pushPayload('main', sha), ref: 'refs/heads/main', sha },
      env: SERVE,
    });
    expect(push.code, push.stdout).toBe(0);
    const [record] = await storedRecords(repos.origin);
    expect(record!.result.answers!.prompts).toHaveLength(48);
    expect(record!.result.answers!.aa).toHaveLength(48);

    const pr = await runActionProcess({
      workspace: repos.checkout,
      label: 'pr',
      inputs,
      event: {
        name: 'pull_request',
        payload: pullRequestPayload({ number: 7, headSha: 'f'.repeat(40) }),
        ref: 'refs/pull/7/merge',
        sha: 'e'.repeat(40),
      },
      env: { ...SERVE, GITHUB_RUN_ID: '1001' },
    });
    expect(pr.code, pr.stdout).toBe(0);
    expect(pr.summary).toContain('Answers agree');
    expect(pr.stdout).toContain('agreement: pass');
    // Saved from the pull request's run: its results, but no answers of its code's.
    const saved = JSON.parse(
      await readFile(join(repos.checkout, 'saved-baseline.json'), 'utf8'),
    ) as { benchmarks?: BenchmarkResult[] };
    const results = saved.benchmarks ?? (saved as unknown as BenchmarkResult[]);
    expect(results).toHaveLength(1);
    expect(results[0]!.answers).toBeUndefined();
    // And the data branch holds the push's record only.
    expect(await storedRecords(repos.origin)).toHaveLength(1);
  }, 900_000);
});

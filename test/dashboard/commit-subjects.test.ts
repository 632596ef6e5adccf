// Commit subjects for the dashboard from a real git clone: the commits it has get their
// subject (printable, cut when long), the others none, and the CLI's page carries them.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsOfNight } from '../../bench/history-sim.js';
import { FolderRecordStore } from '../../src/baseline/folder-store.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { recordToResult } from '../../src/baseline/record.js';
import { runCli } from '../../src/cli/main.js';
import { commitSubjects } from '../../src/dashboard/commit-subjects.js';
import { Git } from '../../src/baseline/git/git.js';
import { makeRepos, type Repos } from '../baseline/git/support.js';

let repos: Repos;
let first: string;
let second: string;

beforeAll(async () => {
  repos = await makeRepos();
  first = await repos.git.run(['rev-parse', 'HEAD']);
  await writeFile(join(repos.checkout, 'a.txt'), 'a\n');
  await repos.git.run(['add', 'a.txt']);
  // A subject with a bidirectional control and more than 120 characters.
  await repos.git.run(['commit', '--quiet', '-m', `Speed up \u202Eprefill ${'x'.repeat(150)}`]);
  second = await repos.git.run(['rev-parse', 'HEAD']);
});

afterAll(async () => {
  if (repos) await rm(repos.root, { recursive: true, force: true });
});

describe('commit subjects', () => {
  it('names the commits the clone has, and leaves out the others', async () => {
    const subjects = await commitSubjects(repos.git, [
      first,
      second,
      'f'.repeat(40),
      'HEAD',
      first,
    ]);
    expect([...subjects.keys()].sort()).toEqual([first, second].sort());
    expect(subjects.get(first)).toBe('code');
    const long = subjects.get(second)!;
    expect(long).toMatch(/^Speed up \\u202eprefill x+…$/);
    expect(long).toHaveLength(120);
  });

  it('gives none outside a repository', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'perf-gate-no-git-'));
    try {
      expect(await commitSubjects(new Git({ cwd: empty }), [first])).toEqual(new Map());
      expect(await commitSubjects(new Git({ cwd: join(empty, 'missing') }), [first])).toEqual(
        new Map(),
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('reach the page the CLI writes from the clone it runs in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-subjects-'));
    try {
      const base = recordsOfNight({ nights: 1, benchmarks: 1, requests: 20 }, 0)[0]!;
      const store = new FolderRecordStore(join(dir, 'records'));
      for (const [night, commit] of [first, second].entries()) {
        await store.writeRecord(
          createRecord({
            gateKey: 'nightly',
            result: recordToResult(base),
            commit,
            branch: 'main',
            event: 'schedule',
            runId: String(500 + night),
            verdict: 'pass',
            createdAt: new Date(Date.UTC(2026, 0, 1 + night, 3)),
          }),
        );
      }
      const code = await runCli(
        ['dashboard', '--dir', join(dir, 'records'), '--out', join(dir, 'site')],
        {
          cwd: repos.checkout,
          env: {},
          stdout: () => {},
          stderr: () => {},
        },
      );
      expect(code).toBe(0);
      const html = await readFile(join(dir, 'site', 'index.html'), 'utf8');
      const data = JSON.parse(
        /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(html)![1]!,
      ) as { subjects: string[]; records: unknown[][] };
      expect(data.subjects).toContain('code');
      const rows = data.records.map((row) => [row[1], data.subjects[row[7] as number]]);
      expect(rows).toContainEqual([first.slice(0, 12), 'code']);
      expect(rows).toContainEqual([second.slice(0, 12), expect.stringMatching(/^Speed up /)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../../src/baseline/git/git-branch-store.js';
import { Git } from '../../../src/baseline/git/git.js';
import { benchmarkFolder, pathOfRecord } from '../../../src/baseline/record-paths.js';
import { at, checkoutState, makeRepos, sampleRecord, type Repos } from './support.js';
import { until } from '../../support/poll.js';

async function storeFor(
  repos: Repos,
  options: { sleep?: (ms: number) => Promise<void>; branch?: string } = {},
) {
  const workDir = await mkdtemp(join(repos.root, 'work-'));
  return new GitBranchStore({ repoDir: repos.checkout, workDir, ...options });
}

/** The data branch as the origin holds it. */
function originGit(repos: Repos): Git {
  return new Git({ cwd: repos.origin });
}

/** What a server answers while another push holds the data branch. */
const LOST_RACE = `echo "error: cannot lock ref 'refs/heads/perf-gate-data'" >&2; exit 1`;

/**
 * A store whose first record is on origin, after which origin's pre-receive hook runs
 * `hook` (shell lines) on every push; `unchanged()` checks the branch is still at that tip.
 */
async function storeWithHook(
  hook: (repos: Repos) => string,
  options: Parameters<typeof storeFor>[1] = {},
) {
  const repos = await makeRepos();
  const store = await storeFor(repos, options);
  await store.appendRecords([sampleRecord('bench', 1, at(1))]);
  const tipNow = () => originGit(repos).run(['rev-parse', 'perf-gate-data']);
  const tip = await tipNow();
  await writeFile(join(repos.origin, 'hooks', 'pre-receive'), `#!/bin/sh\n${hook(repos)}\n`, {
    mode: 0o755,
  });
  const unchanged = async () => expect(await tipNow()).toBe(tip);
  return { repos, store, unchanged };
}

describe('GitBranchStore', () => {
  it('creates the data branch as an orphan on the first write and reads it back', async () => {
    const repos = await makeRepos();
    const before = await checkoutState(repos.git);
    const store = await storeFor(repos);
    const records = [sampleRecord('llama 8b', 1, at(1)), sampleRecord('qwen3-reranker', 2, at(2))];
    const written = await store.appendRecords(records);
    expect(written.attempts).toBe(1);
    expect(written.added).toEqual(records.map(pathOfRecord));

    const origin = originGit(repos);
    const log = await origin.run(['log', '--format=%H %P', 'perf-gate-data']);
    expect(log.split('\n')).toHaveLength(1);
    expect(log).toBe(`${written.commit} `); // one root commit, no parent
    const mainTip = await origin.run(['rev-parse', 'main']);
    const base = await origin.tryRun(['merge-base', 'main', 'perf-gate-data']);
    expect(base.ok).toBe(false); // no history in common with the code
    expect(await origin.run(['log', '--format=%an <%ae>', '-1', 'perf-gate-data'])).toBe(
      'neuron-perf-gate <neuron-perf-gate@users.noreply.github.com>',
    );
    const files = await origin.run(['ls-tree', '-r', '--name-only', 'perf-gate-data']);
    expect(files.split('\n').sort()).toEqual(records.map(pathOfRecord).sort());
    expect(files).toMatch(/^default\/llama-8b-[0-9a-f]{8}\/20260101T000001Z-0000000-1001\.json$/m);

    const read = await store.readRecords('default', 'llama 8b');
    expect(read.warnings).toEqual([]);
    expect(read.commit).toBe(written.commit);
    expect(read.records).toEqual([records[0]]);
    // A fresh store (another job) reads the same.
    const again = await (await storeFor(repos)).readRecords('default');
    expect(again.records).toEqual([records[1], records[0]]);

    expect(await checkoutState(repos.git)).toBe(before);
    expect(await origin.run(['rev-parse', 'main'])).toBe(mainTip);
  });

  it('ignores GIT_DIR and GIT_INDEX_FILE inherited from the environment', async () => {
    const repos = await makeRepos();
    const decoy = await mkdtemp(join(repos.root, 'decoy-'));
    const saved = { dir: process.env.GIT_DIR, index: process.env.GIT_INDEX_FILE };
    process.env.GIT_DIR = decoy;
    process.env.GIT_INDEX_FILE = join(decoy, 'index');
    try {
      const record = sampleRecord('bench', 1, at(1));
      await (await storeFor(repos)).appendRecords([record]);
      const read = await (await storeFor(repos)).readRecords('default', 'bench');
      expect(read.records).toEqual([record]);
    } finally {
      if (saved.dir === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved.dir;
      if (saved.index === undefined) delete process.env.GIT_INDEX_FILE;
      else process.env.GIT_INDEX_FILE = saved.index;
    }
  });

  it('reads a missing branch as no records', async () => {
    const repos = await makeRepos();
    const before = await checkoutState(repos.git);
    const store = await storeFor(repos);
    expect(await store.readRecords('default', 'anything')).toEqual({ records: [], warnings: [] });
    expect(await checkoutState(repos.git)).toBe(before);
  });

  it('adds to the branch without touching earlier records, in new commits', async () => {
    const repos = await makeRepos();
    const store = await storeFor(repos);
    const first = sampleRecord('bench', 1, at(1));
    const { commit: c1 } = await store.appendRecords([first]);
    const firstBlob = await originGit(repos).run([
      'rev-parse',
      `perf-gate-data:${pathOfRecord(first)}`,
    ]);
    const second = sampleRecord('bench', 2, at(2));
    const { commit: c2 } = await (await storeFor(repos)).appendRecords([second]);
    const origin = originGit(repos);
    expect(await origin.run(['rev-parse', `${c2}^`])).toBe(c1);
    expect(await origin.run(['rev-parse', `perf-gate-data:${pathOfRecord(first)}`])).toBe(
      firstBlob,
    );
    const diff = await origin.run(['diff', '--name-status', c1, c2]);
    expect(diff).toBe(`A\t${pathOfRecord(second)}`);
    // Appending the same record again (a retried job) adds nothing.
    const again = await store.appendRecords([second]);
    expect(again).toMatchObject({ commit: c2, added: [] });
    expect((await store.readRecords('default', 'bench')).records).toEqual([second, first]);
  });

  it('keeps a different record of the same name beside the first, never over it', async () => {
    const repos = await makeRepos();
    const store = await storeFor(repos);
    const a = sampleRecord('bench', 1, at(1), { runId: '7', commit: 'f'.repeat(40) });
    const b = sampleRecord('bench', 2, at(1), { runId: '7', commit: 'f'.repeat(40) });
    await store.appendRecords([a]);
    const { added } = await store.appendRecords([b]);
    expect(added).toEqual([pathOfRecord(a).replace(/\.json$/, '-2.json')]);
    const { records } = await store.readRecords('default', 'bench');
    expect(records).toHaveLength(2);
  });

  it('prunes each benchmark folder to the newest N records in the same commit', async () => {
    const repos = await makeRepos();
    const store = await storeFor(repos);
    const olds = [1, 2, 3, 4].map((i) => sampleRecord('bench', i, at(i)));
    const other = sampleRecord('other', 9, at(0));
    await store.appendRecords([...olds, other], { keep: 10 });
    const newer = [5, 6].map((i) => sampleRecord('bench', i, at(i)));
    const result = await store.appendRecords(newer, { keep: 3 });
    expect(result.added).toEqual(newer.map(pathOfRecord));
    expect(result.pruned.sort()).toEqual(olds.slice(0, 3).map(pathOfRecord).sort());
    const origin = originGit(repos);
    const diff = await origin.run(['diff', '--name-status', `${result.commit}^`, result.commit]);
    expect(diff.split('\n').sort()).toEqual(
      [
        ...newer.map((r) => `A\t${pathOfRecord(r)}`),
        ...olds.slice(0, 3).map((r) => `D\t${pathOfRecord(r)}`),
      ].sort(),
    );
    const read = await store.readRecords('default', 'bench');
    expect(read.records.map((r) => r.createdAt)).toEqual([6, 5, 4].map((i) => at(i).toISOString()));
    // Other benchmarks are not pruned by a write that does not touch them.
    expect((await store.readRecords('default', 'other')).records).toEqual([other]);
    // The newest-K read takes the last names only.
    const two = await store.readRecords('default', 'bench', { limit: 2 });
    expect(two.records.map((r) => r.createdAt)).toEqual([6, 5].map((i) => at(i).toISOString()));
  });

  it('skips a corrupted record file with a warning naming it', async () => {
    const repos = await makeRepos();
    const store = await storeFor(repos);
    const good = sampleRecord('bench', 1, at(1));
    await store.appendRecords([good]);
    // Someone pushes broken files to the data branch by hand.
    const hand = join(repos.root, 'hand');
    const git = repos.git.in(repos.root);
    await git.run(['clone', '--quiet', '--branch', 'perf-gate-data', repos.origin, hand]);
    const folder = benchmarkFolder('default', 'bench');
    await writeFile(
      join(hand, folder, '20260101T000005Z-deadbee-1.json'),
      '{"schemaVersion": 1, "result": ',
    );
    await writeFile(
      join(hand, folder, '20260101T000006Z-deadbee-2.json'),
      JSON.stringify({ ...good, result: { ...good.result, metrics: 'nope' } }),
    );
    await writeFile(
      join(hand, folder, '20260101T000007Z-deadbee-3.json'),
      JSON.stringify({ schemaVersion: 3 }),
    );
    await git.in(hand).run(['add', '.']);
    await git.in(hand).run(['commit', '--quiet', '-m', 'by hand']);
    await git.in(hand).run(['push', '--quiet', 'origin', 'perf-gate-data']);

    const read = await store.readRecords('default', 'bench');
    expect(read.records).toEqual([good]);
    expect(read.warnings).toHaveLength(3);
    expect(read.warnings[0]).toMatch(
      new RegExp(
        `^perf-gate-data:${folder}/20260101T000007Z-deadbee-3\\.json: has schemaVersion 3, written by a newer`,
      ),
    );
    expect(read.warnings[1]).toMatch(
      /20260101T000006Z-deadbee-2\.json: field 'result\.metrics' is invalid/,
    );
    expect(read.warnings[2]).toMatch(/20260101T000005Z-deadbee-1\.json: is not valid JSON/);
    // Writing on top keeps the broken files as they are (nothing rewritten in place).
    const next = sampleRecord('bench', 2, at(8));
    const result = await store.appendRecords([next]);
    expect(result.pruned).toEqual([]);
    const files = await originGit(repos).run(['ls-tree', '-r', '--name-only', 'perf-gate-data']);
    expect(files.split('\n')).toHaveLength(5);
  });

  it('lands every record of 4 writers pushing at the same time', async () => {
    const repos = await makeRepos();
    const before = await checkoutState(repos.git);
    const writers = 4;
    const count = 3;
    const barrier = await mkdtemp(join(repos.root, 'barrier-'));
    const writing = Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        const workDir = await mkdtemp(join(repos.root, `writer-${writer}-`));
        const args = JSON.stringify({
          repoDir: repos.checkout,
          workDir,
          benchmark: 'bench',
          writer,
          count,
          barrier,
        });
        return new Promise<{ attempts: number[] }>((done, fail) => {
          execFile(
            process.execPath,
            [join(import.meta.dirname, 'writer-child.mjs'), args],
            { timeout: 120_000 },
            (error, stdout, stderr) => {
              if (error) fail(new Error(`writer ${writer} failed: ${stderr || error.message}`));
              else done(JSON.parse(stdout) as { attempts: number[] });
            },
          );
        });
      }),
    );
    // All started (however long a busy host takes), then all at once.
    expect(await until(async () => (await readdir(barrier)).length === writers)).toBe(true);
    await writeFile(join(barrier, 'go'), '');
    const outcomes = await writing;
    const origin = originGit(repos);
    const files = (await origin.run(['ls-tree', '-r', '--name-only', 'perf-gate-data'])).split(
      '\n',
    );
    expect(files).toHaveLength(writers * count);
    const log = (await origin.run(['log', '--format=%P', 'perf-gate-data'])).split('\n');
    expect(log).toHaveLength(writers * count);
    expect(log.filter((parents) => parents === '')).toHaveLength(1); // one orphan root, linear
    expect(log.every((parents) => !parents.includes(' '))).toBe(true); // no merges
    const read = await (await storeFor(repos)).readRecords('default', 'bench');
    expect(read.records.map((r) => r.runId).sort()).toEqual(
      Array.from({ length: writers }, (_, w) =>
        Array.from({ length: count }, (_, i) => `w${w}-${i}`),
      )
        .flat()
        .sort(),
    );
    const attempts = outcomes.flatMap((o) => o.attempts);
    expect(Math.max(...attempts)).toBeGreaterThan(1); // they did collide
    console.log(`attempts per append: ${attempts.join(' ')}`);
    expect(await checkoutState(repos.git)).toBe(before);
  }, 120_000);

  it('serializes concurrent appends on one store', async () => {
    const repos = await makeRepos();
    const store = await storeFor(repos);
    const records = [1, 2, 3, 4, 5].map((i) => sampleRecord('bench', i, at(i)));
    await Promise.all(records.map((record) => store.appendRecords([record])));
    expect((await store.readRecords('default', 'bench')).records).toHaveLength(5);
  });

  it('fetches only the record files it reads when the server allows a blob-less fetch', async () => {
    const repos = await makeRepos({ allowFilter: true });
    const store = await storeFor(repos);
    const records = Array.from({ length: 20 }, (_, i) => sampleRecord(i % 2 ? 'a' : 'b', i, at(i)));
    await store.appendRecords(records);
    const reader = new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await mkdtemp(join(repos.root, 'r-')),
    });
    const read = await reader.readRecords('default', 'a', { limit: 3 });
    expect(read.records.map((r) => r.createdAt)).toEqual(
      [19, 17, 15].map((i) => at(i).toISOString()),
    );
    const scratch = new Git({
      cwd: join((reader as unknown as { scratchDir: string }).scratchDir),
    });
    const missing = (
      await scratch.run(['rev-list', '--objects', '--missing=print', 'refs/perf-gate/tip'])
    )
      .split('\n')
      .filter((line) => line.startsWith('?'));
    expect(missing).toHaveLength(17); // 20 blobs, 3 fetched
    // Writing from a blob-less scratch repository works too, and keeps the other files.
    const more = sampleRecord('a', 99, at(99));
    await reader.appendRecords([more], { keep: 5 });
    const files = await originGit(repos).run(['ls-tree', '-r', '--name-only', 'perf-gate-data']);
    expect(files.split('\n')).toHaveLength(10 + 5);
    await originGit(repos).run(['fsck', '--strict']);
  });

  it('fetches the branch whole, in one pack, when it reads most of it, and reads every record', async () => {
    const repos = await makeRepos({ allowFilter: true });
    const store = await storeFor(repos);
    const many = Array.from({ length: 30 }, (_, i) => sampleRecord(`b${i % 3}`, i, at(i)));
    const other = sampleRecord('x', 99, at(99));
    other.gateKey = 'other-gate';
    await store.appendRecords([...many, other]);
    const scratchOf = (s: GitBranchStore) =>
      new Git({ cwd: (s as unknown as { scratchDir: string }).scratchDir });
    const missingIn = async (s: GitBranchStore) =>
      (await scratchOf(s).run(['rev-list', '--objects', '--missing=print', 'refs/perf-gate/tip']))
        .split('\n')
        .filter((line) => line.startsWith('?'));

    const reader = await storeFor(repos);
    // A few records first: fetched by id, the tip stays blob-less.
    expect((await reader.readRecords('default', 'b0', { limit: 2 })).records).toHaveLength(2);
    expect(await missingIn(reader)).toHaveLength(29);
    // Then the history: the whole tip, the other gate's file too, which a fetch by id skips.
    const read = await reader.readStoredRecords('default');
    expect(read.warnings).toEqual([]);
    expect(read.records.map((r) => r.record.createdAt)).toEqual(many.map((r) => r.createdAt));
    expect(read.records.every((r) => r.record.result.metrics.every((m) => !m.samples))).toBe(true);
    expect(await missingIn(reader)).toEqual([]);
    const packs = await scratchOf(reader).run(['count-objects', '-v']);
    expect(packs).toMatch(/^packs: [1-9]/m);
  });

  it('says what to do when the workspace has no origin', async () => {
    const repos = await makeRepos();
    await repos.git.run(['remote', 'remove', 'origin']);
    const store = await storeFor(repos);
    await expect(store.readRecords('default')).rejects.toThrow(/has no 'origin' remote/);
  });

  it('fails at once with the reason when a push is refused for another cause than a race', async () => {
    // A hook that refuses every update: not contention, so no retries.
    const { store, unchanged } = await storeWithHook(() => 'echo refused by policy >&2\nexit 1');
    await expect(store.appendRecords([sampleRecord('bench', 2, at(2))])).rejects.toThrow(
      /could not push to the baseline branch 'perf-gate-data': .*refused by policy/,
    );
    await unchanged();
  });

  it('tries again a push the server failed once (a 5xx), and stops after three such failures', async () => {
    const failOnce = ({ root }: Repos) => {
      const counter = join(root, 'failed');
      return `n=$(cat "${counter}" 2>/dev/null || echo 0)\nif [ "$n" -lt 1 ]; then echo $((n+1)) > "${counter}"; echo "error: RPC failed; HTTP 500 curl 22 The requested URL returned error: 500" >&2; exit 1; fi`;
    };
    const once = await storeWithHook(failOnce, { sleep: async () => {} });
    const result = await once.store.appendRecords([sampleRecord('bench', 2, at(2))]);
    expect(result).toMatchObject({ attempts: 2 });
    expect(result.added).toHaveLength(1);

    const always = await storeWithHook(() => 'echo "remote: Internal Server Error" >&2\nexit 1', {
      sleep: async () => {},
    });
    await expect(always.store.appendRecords([sampleRecord('bench', 2, at(2))])).rejects.toThrow(
      /could not push to the baseline branch 'perf-gate-data': .*Internal Server Error/,
    );
    await always.unchanged();
  });

  it('retries a push that lost a race, with growing random pauses, then gives up', async () => {
    const pauses: number[] = [];
    const { store, unchanged } = await storeWithHook(() => LOST_RACE, {
      sleep: async (ms) => void pauses.push(ms),
    });
    await expect(
      store.appendRecords([sampleRecord('bench', 2, at(2))], { maxAttempts: 3 }),
    ).rejects.toThrow(
      /after 3 attempts in \d+ s, other writers kept getting there first.*Nothing of this run was written/,
    );
    expect(pauses).toHaveLength(2);
    expect(pauses.every((ms) => ms >= 50 && ms <= 3_050)).toBe(true);
    await unchanged();
  });

  it('keeps retrying past ten lost races until the record lands (no limit of attempts)', async () => {
    // Another writer holds the branch for the next 12 pushes.
    const { repos, store } = await storeWithHook(
      ({ root }) => {
        const counter = join(root, 'refused');
        return `n=$(cat "${counter}" 2>/dev/null || echo 0)\nif [ "$n" -lt 12 ]; then echo $((n+1)) > "${counter}"; ${LOST_RACE}; fi`;
      },
      { sleep: async () => {} },
    );
    const result = await store.appendRecords([sampleRecord('bench', 2, at(2))]);
    expect(result.attempts).toBe(13);
    expect(result.added).toHaveLength(1);
    const files = await originGit(repos).run(['ls-tree', '-r', '--name-only', 'perf-gate-data']);
    expect(files.split('\n')).toHaveLength(2);
  });

  it('gives up when the deadline passes, saying so, with nothing written', async () => {
    const { store, unchanged } = await storeWithHook(() => LOST_RACE, { sleep: async () => {} });
    await expect(
      store.appendRecords([sampleRecord('bench', 2, at(2))], { deadlineMs: 500 }),
    ).rejects.toThrow(
      /could not store 1 record\(s\) on the baseline branch 'perf-gate-data': after \d+ attempts in \d+ s, other writers kept getting there first.*re-run the job/,
    );
    await unchanged();
  });

  it('never reads or writes a branch that holds anything but records', async () => {
    const repos = await makeRepos();
    // main holds the code (README.md): not a data branch, whatever it is called.
    const store = await storeFor(repos, { branch: 'main' });
    const before = await originGit(repos).run(['rev-parse', 'main']);
    await expect(store.appendRecords([sampleRecord('bench', 1, at(1))])).rejects.toThrow(
      /the baseline branch 'main' holds files that are not gate records \(README\.md\)/,
    );
    await expect(store.readRecords('default')).rejects.toThrow(/not a data branch/);
    expect(await originGit(repos).run(['rev-parse', 'main'])).toBe(before);
  });
});

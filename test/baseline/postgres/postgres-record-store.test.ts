// The PostgreSQL store against a real server: what it writes reads back, in the order
// and with the limits the data branch reads in, and a retried write adds nothing.
import { describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../../src/baseline/git/git-branch-store.js';
import { MIGRATIONS } from '../../../src/baseline/postgres/migrations.js';
import { at, makeRepos, sampleRecord } from '../git/support.js';
import { usePostgres } from './support.js';

const pg = usePostgres();

describe('PostgresRecordStore', () => {
  it('migrates a new database on first use and reads back what it wrote, newest first', async () => {
    const url = await pg.cluster().createDatabase();
    const store = pg.store(url);
    expect(store.description).toBe(
      `PostgreSQL database '${pg.databaseOf(url)}' on 127.0.0.1:${pg.cluster().port} as postgres`,
    );
    const records = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    const written = await store.appendRecords(records);
    expect(written.added).toHaveLength(3);
    expect(written.attempts).toBe(1);
    const read = await store.readRecords('default', 'chat');
    expect(read.warnings).toEqual([]);
    expect(read.records).toEqual([...records].reverse());
    const applied = await pg
      .cluster()
      .query(pg.databaseOf(url), 'SELECT version FROM perf_gate_migrations');
    expect(applied.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('reads the newest `limit` of each benchmark of a gate, and of one', async () => {
    const store = pg.store(await pg.cluster().createDatabase());
    const chat = [0, 2, 4, 6].map((i) => sampleRecord('chat', i, at(i)));
    const code = [1, 3, 5].map((i) => sampleRecord('code', i, at(i)));
    const other = sampleRecord('chat', 9, at(9), { gateKey: 'other' });
    await store.appendRecords([...chat, ...code, other]);
    const limited = await store.readRecords('default', undefined, { limit: 2 });
    expect(limited.records.map((r) => `${r.benchmark}@${r.createdAt}`)).toEqual(
      [chat[3], code[2], chat[2], code[1]].map((r) => `${r!.benchmark}@${r!.createdAt}`),
    );
    const one = await store.readRecords('default', 'code', { limit: 1 });
    expect(one.records).toEqual([code[2]]);
    expect((await store.readRecords('default', 'chat', { limit: 0 })).records).toEqual([]);
    expect((await store.readRecords('nobody')).records).toEqual([]);
  });

  it('adds nothing for a retried write, and names a record that differs from a stored one anew', async () => {
    const store = pg.store(await pg.cluster().createDatabase());
    const record = sampleRecord('chat', 1, at(1));
    const first = await store.appendRecords([record]);
    const again = await store.appendRecords([record, record]);
    expect(again.added).toEqual([]);
    // Same path (gate, benchmark, time, commit, run id), other bytes: a new record beside it.
    const differing = {
      ...sampleRecord('chat', 2, at(1)),
      commit: record.commit,
      runId: record.runId,
    };
    const third = await store.appendRecords([differing]);
    expect(third.added).toEqual([first.added[0]!.replace(/\.json$/, '-2.json')]);
    expect((await store.appendRecords([differing, record])).added).toEqual([]);
    const read = await store.readRecords('default', 'chat');
    expect(read.records).toHaveLength(2);
  });

  it('prunes each touched benchmark to its newest `keep` in the same write', async () => {
    const store = pg.store(await pg.cluster().createDatabase());
    const old = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    const first = await store.appendRecords(old);
    const other = sampleRecord('code', 3, at(3));
    await store.appendRecords([other]);
    const newest = sampleRecord('chat', 4, at(4));
    const written = await store.appendRecords([newest], { keep: 2 });
    expect(written.pruned).toEqual(first.added.slice(0, 2).sort());
    expect((await store.readRecords('default', 'chat')).records).toEqual([newest, old[2]]);
    expect((await store.readRecords('default', 'code')).records).toEqual([other]);
  });

  it('reads in the same order as the data branch, limits and history alike', async () => {
    // Equal times across benchmarks and within one (a numbered path), in shuffled order;
    // run ids whose names sort one way by bytes and the other by localeCompare (git's),
    // older than the limits below cut: a cut between them is made in byte order here and
    // in localeCompare order on the data branch.
    const records = [
      sampleRecord('chat', 50, at(0), { runId: '7_a' }),
      sampleRecord('chat', 51, at(0), { runId: '7-b' }),
      ...[5, 1, 3, 3, 0].map((t, i) => sampleRecord('chat', 10 + i, at(t))),
      ...[2, 3, 3, 4].map((t, i) => sampleRecord('code', 20 + i, at(t))),
      {
        ...sampleRecord('code', 30, at(3)),
        commit: sampleRecord('code', 21, at(3)).commit,
        runId: '1021',
      },
      sampleRecord('chat', 40, at(2), { gateKey: 'nightly' }),
    ];
    const repos = await makeRepos();
    const git = new GitBranchStore({ repoDir: repos.checkout, workDir: repos.root });
    await git.appendRecords(records);
    const store = pg.store(await pg.cluster().createDatabase());
    await store.appendRecords(records);
    for (const limit of [undefined, 1, 2]) {
      const options = limit === undefined ? {} : { limit };
      expect((await store.readRecords('default', undefined, options)).records).toEqual(
        (await git.readRecords('default', undefined, options)).records,
      );
    }
    expect((await store.readRecords('default', 'code')).records).toEqual(
      (await git.readRecords('default', 'code')).records,
    );
    for (const gate of [undefined, 'default']) {
      const mine = await store.readStoredRecords(gate);
      const theirs = await git.readStoredRecords(gate);
      expect(mine.records).toEqual(theirs.records);
      expect(mine.warnings).toEqual([]);
    }
    // And against a sorted reference, not only against git.
    const reference = [...records]
      .filter((r) => r.gateKey === 'default')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const read = (await store.readRecords('default')).records;
    expect(read.map((r) => r.createdAt)).toEqual(reference.map((r) => r.createdAt));
  });

  it('skips a row that does not parse, or whose record is not the gate its row says, naming its path', async () => {
    const url = await pg.cluster().createDatabase();
    const store = pg.store(url);
    const [good, bad, moved] = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    const added = (await store.appendRecords([good!, bad!, moved!])).added;
    const database = pg.databaseOf(url);
    await pg
      .cluster()
      .query(
        database,
        `UPDATE perf_gate_records SET body = '{"kind": 1', summary = '{}' WHERE path = $1`,
        [added[1]],
      );
    const elsewhere = JSON.stringify({ ...moved, gateKey: 'other' });
    await pg
      .cluster()
      .query(
        database,
        'UPDATE perf_gate_records SET body = $2, summary = $3::jsonb WHERE path = $1',
        [added[2], elsewhere, elsewhere],
      );
    const read = await store.readRecords('default', 'chat');
    expect(read.records).toEqual([good]);
    expect(read.warnings).toHaveLength(2);
    expect(read.warnings[0]).toMatch(
      new RegExp(`^perf_gate_records:${added[2]}: holds gate 'other'`),
    );
    expect(read.warnings[1]).toMatch(
      new RegExp(`^perf_gate_records:${added[1]}: is not valid JSON`),
    );
    const history = await store.readStoredRecords();
    expect(history.records.map((r) => r.path)).toEqual([added[0]]);
    expect(history.warnings).toHaveLength(2);
  });
});

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderRecordStore, RecordNotFoundError } from '../../src/baseline/folder-store.js';
import { benchmarkFolder, pathOfRecord } from '../../src/baseline/record-paths.js';
import { serializeRecord } from '../../src/baseline/record-text.js';
import { tempDir } from '../support/offline-result.js';
import { at, sampleRecord } from './git/support.js';

async function storeWith(...records: ReturnType<typeof sampleRecord>[]) {
  const root = await tempDir('perf-gate-folder-');
  const store = new FolderRecordStore(root);
  for (const record of records) await store.writeRecord(record);
  return { root, store };
}

describe('FolderRecordStore', () => {
  it('writes records at their path and lists them by gate and benchmark, newest first', async () => {
    const records = [
      sampleRecord('qwen', 1, at(1)),
      sampleRecord('llama 8b', 2, at(2)),
      sampleRecord('llama 8b', 3, at(5)),
      sampleRecord('llama 8b', 4, at(3), { gateKey: 'nightly' }),
    ];
    const { root, store } = await storeWith(...records);
    const text = await readFile(join(root, pathOfRecord(records[1]!)), 'utf8');
    expect(text).toBe(serializeRecord(records[1]!));
    // Not records: a worktree's .git, files outside the layout, other file types.
    await mkdir(join(root, '.git', 'x'), { recursive: true });
    await writeFile(join(root, '.git', 'x', 'y.json'), '{');
    await writeFile(join(root, 'README.json'), '{');
    await writeFile(join(root, benchmarkFolder('default', 'qwen'), 'notes.txt'), 'hi');

    const listed = await store.listRecords();
    expect(listed.warnings).toEqual([]);
    expect(listed.records.map((r) => r.path)).toEqual(
      [records[2]!, records[1]!, records[0]!, records[3]!].map(pathOfRecord),
    );
    expect(listed.records[0]!.record).toEqual(records[2]);
  });

  it('filters by gate and by benchmark, and keeps the newest N per folder', async () => {
    const { store } = await storeWith(
      sampleRecord('bench', 1, at(1)),
      sampleRecord('bench', 2, at(2)),
      sampleRecord('bench', 3, at(3)),
      sampleRecord('other', 4, at(4)),
      sampleRecord('bench', 5, at(5), { gateKey: 'nightly' }),
    );
    const gate = await store.listRecords({ gateKey: 'default' });
    expect(gate.records.map((r) => r.record.benchmark)).toEqual([
      'bench',
      'bench',
      'bench',
      'other',
    ]);
    const bench = await store.listRecords({ benchmark: 'bench' });
    expect(bench.records.map((r) => `${r.record.gateKey}@${r.record.createdAt}`)).toEqual([
      `default@${at(3).toISOString()}`,
      `default@${at(2).toISOString()}`,
      `default@${at(1).toISOString()}`,
      `nightly@${at(5).toISOString()}`,
    ]);
    const newest = await store.listRecords({ gateKey: 'default', limit: 2 });
    expect(newest.records.map((r) => r.record.createdAt)).toEqual(
      [3, 2, 4].map((i) => at(i).toISOString()),
    );
    expect((await store.listRecords({ gateKey: 'missing' })).records).toEqual([]);
  });

  it('skips files that do not parse or sit in the wrong folder, with a warning naming them', async () => {
    const good = sampleRecord('bench', 1, at(1));
    const { root, store } = await storeWith(good);
    const folder = benchmarkFolder('default', 'bench');
    await writeFile(join(root, folder, '20260101T000005Z-deadbee-1.json'), '{"result": ');
    await writeFile(join(root, folder, '20260101T000006Z-deadbee-2.json'), '{"schemaVersion": 9}');
    // A record of another gate copied into this gate's folder.
    const stray = sampleRecord('bench', 2, at(7), { gateKey: 'nightly' });
    await writeFile(join(root, folder, '20260101T000007Z-deadbee-3.json'), serializeRecord(stray));

    const all = await store.listRecords();
    expect(all.records.map((r) => r.record.gateKey)).toEqual(['default', 'nightly']);
    expect(all.warnings).toHaveLength(2);
    expect(all.warnings[0]).toMatch(
      new RegExp(`^${folder}/20260101T000006Z-deadbee-2\\.json: has schemaVersion 9.*; skipped$`),
    );
    expect(all.warnings[1]).toMatch(/20260101T000005Z-deadbee-1\.json: is not valid JSON/);

    const gate = await store.listRecords({ gateKey: 'default' });
    expect(gate.records.map((r) => r.record)).toEqual([good]);
    expect(gate.warnings).toContain(
      `${folder}/20260101T000007Z-deadbee-3.json: holds gate 'nightly', not 'default'; skipped`,
    );
  });

  it('reads one record by path, and says when there is none', async () => {
    const record = sampleRecord('bench', 1, at(1));
    const { root, store } = await storeWith(record);
    const path = pathOfRecord(record);
    expect(await store.readRecord(path)).toEqual(record);
    expect(await store.readRecord(`./${path}`)).toEqual(record);
    const missing = store.readRecord('default/bench/20990101T000000Z-0000000-1.json');
    await expect(missing).rejects.toBeInstanceOf(RecordNotFoundError);
    await expect(missing).rejects.toThrow(`in ${root}`);
    await expect(store.readRecord(benchmarkFolder('default', 'bench'))).rejects.toBeInstanceOf(
      RecordNotFoundError,
    );
    await expect(store.readRecord('../outside.json')).rejects.toThrow(/not a record path/);
    await expect(store.readRecord('/etc/passwd')).rejects.toThrow(/not a record path/);
    const broken = `${benchmarkFolder('default', 'bench')}/20260101T000009Z-deadbee-1.json`;
    await writeFile(join(root, broken), '[]');
    await expect(store.readRecord(broken)).rejects.toThrow(`${broken}: is not a JSON object`);
  });

  it('never replaces a stored file: the same record is kept once, another gets -2', async () => {
    const a = sampleRecord('bench', 1, at(1), { runId: '7', commit: 'f'.repeat(40) });
    const b = sampleRecord('bench', 2, at(1), { runId: '7', commit: 'f'.repeat(40) });
    const { root, store } = await storeWith(a);
    expect(await store.writeRecord(a)).toBe(pathOfRecord(a));
    expect(await store.writeRecord(b)).toBe(pathOfRecord(a).replace(/\.json$/, '-2.json'));
    const folder = join(root, benchmarkFolder('default', 'bench'));
    const names = await readdir(folder);
    // Two records, no temporary files left behind.
    expect(names).toHaveLength(2);
    expect(await readFile(join(root, pathOfRecord(a)), 'utf8')).toBe(serializeRecord(a));
    const listed = (await store.listRecords()).records.map((r) => r.record);
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(expect.arrayContaining([a, b]));
  });

  it('lists nothing in a folder without records', async () => {
    const store = new FolderRecordStore(join(await tempDir(), 'does-not-exist'));
    expect(await store.listRecords()).toEqual({ records: [], warnings: [] });
  });
});

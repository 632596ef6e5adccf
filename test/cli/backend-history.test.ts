// `baseline list | show | accept` over any RecordBackend (--store s3://…, postgres://…),
// here a folder through the same interface.

import { describe, expect, it } from 'vitest';
import { FolderBackend } from '../../src/baseline/folder-backend.js';
import { RecordNotFoundError } from '../../src/baseline/folder-store.js';
import { acceptanceRecord } from '../../src/baseline/accept.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { backendHistory } from '../../src/cli/backend-history.js';
import { tempDir } from '../support/offline-result.js';
import { at, sampleRecord } from '../baseline/git/support.js';

describe('backendHistory', () => {
  it('lists by gate and benchmark newest first, shows a record whole, and appends', async () => {
    const backend = new FolderBackend(await tempDir('perf-gate-backend-history-'));
    const records = [
      sampleRecord('qwen', 1, at(1)),
      sampleRecord('qwen', 3, at(3)),
      sampleRecord('llama', 2, at(2)),
      sampleRecord('llama', 4, at(4), { gateKey: 'nightly' }),
    ];
    await backend.appendRecords(records);
    const history = backendHistory(backend);
    expect(history.description).toBe(backend.description);

    const listed = await history.listRecords({});
    expect(listed?.records.map((r) => r.path)).toEqual(
      [records[2]!, records[1]!, records[0]!, records[3]!].map(pathOfRecord),
    );
    const newest = await history.listRecords({ gateKey: 'default', benchmark: 'qwen', limit: 1 });
    expect(newest?.records.map((r) => r.path)).toEqual([pathOfRecord(records[1]!)]);

    // Shown whole: with the per-request samples the listing leaves out.
    const shown = await history.readRecord(pathOfRecord(records[0]!));
    expect(shown).toEqual(records[0]);
    expect(shown.result.metrics.some((m) => m.samples)).toBe(true);
    await expect(history.readRecord('default/qwen/none.json')).rejects.toBeInstanceOf(
      RecordNotFoundError,
    );

    const accepted = acceptanceRecord(shown, {
      reason: 'manual',
      at: at(9),
      records: [pathOfRecord(records[0]!)],
    });
    expect(await history.appendRecord(accepted)).toBe(pathOfRecord(accepted));
    expect((await backend.readRecords('default', 'qwen')).records[0]).toEqual(accepted);
    await history.close();
  });

  it("reads only the shown record's gate and benchmark, and one series for a listing of it", async () => {
    const folder = new FolderBackend(await tempDir('perf-gate-backend-history-'));
    const records = ['default', 'nightly', 'weekly'].flatMap((gateKey, g) =>
      ['qwen', 'llama'].map((name, b) => sampleRecord(name, g * 2 + b, at(g * 2 + b), { gateKey })),
    );
    await folder.appendRecords(records);
    const reads: string[] = [];
    const backend = Object.assign(Object.create(folder) as FolderBackend, {
      readStoredRecords: (gateKey?: string, benchmark?: string) => {
        reads.push(`stored ${gateKey ?? '*'} ${benchmark ?? '*'}`);
        return folder.readStoredRecords(gateKey, benchmark);
      },
      readRecords: (gateKey: string, benchmark?: string, options?: { limit?: number }) => {
        reads.push(`whole ${gateKey} ${benchmark ?? '*'}`);
        return folder.readRecords(gateKey, benchmark, options);
      },
    });
    const history = backendHistory(backend);
    const wanted = records[3]!; // nightly / llama
    expect(await history.readRecord(pathOfRecord(wanted))).toEqual(wanted);
    expect(reads).toEqual(['stored nightly *', 'stored nightly llama', 'whole nightly llama']);

    reads.length = 0;
    const listed = await history.listRecords({ gateKey: 'weekly', benchmark: 'qwen' });
    expect(listed?.records.map((r) => r.path)).toEqual([pathOfRecord(records[4]!)]);
    expect(reads).toEqual(['stored weekly qwen']);
  });
});

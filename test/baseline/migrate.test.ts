// migrateRecords checks what arrived: a target that loses a record is caught, by path.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderBackend } from '../../src/baseline/folder-backend.js';
import { migrateRecords } from '../../src/baseline/migrate.js';
import type { RecordBackend } from '../../src/baseline/record-backend.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { tempDir } from '../support/offline-result.js';
import { at, sampleRecord } from './git/support.js';

/** A store that says it stored everything but drops the records of one run. */
function losing(backend: FolderBackend, runId: string): RecordBackend {
  return {
    description: backend.description,
    readRecords: (...args) => backend.readRecords(...args),
    readStoredRecords: (gate) => backend.readStoredRecords(gate),
    appendRecords: (records, options) =>
      backend.appendRecords(
        records.filter((r) => r.runId !== runId),
        options,
      ),
  };
}

describe('migrateRecords', () => {
  it('copies in batches, counts per gate, and names the paths a target lost', async () => {
    const root = await tempDir('perf-gate-migrate-');
    const source = new FolderBackend(join(root, 'from'));
    const records = [
      ...[1, 2, 3].map((s) => sampleRecord('qwen', s, at(s))),
      sampleRecord('qwen', 4, at(4), { gateKey: 'nightly' }),
    ];
    await source.appendRecords(records);

    const whole = new FolderBackend(join(root, 'to'));
    const moved = await migrateRecords(source, whole, { batch: 2 });
    expect(moved.gates).toEqual([
      { gateKey: 'default', source: 3, added: 3, target: 3, missing: [] },
      { gateKey: 'nightly', source: 1, added: 1, target: 1, missing: [] },
    ]);
    expect((await whole.readRecords('default')).records).toEqual(records.slice(0, 3).reverse());

    const lossy = losing(new FolderBackend(join(root, 'lossy')), records[1]!.runId);
    const lost = await migrateRecords(source, lossy);
    expect(lost.gates[0]).toEqual({
      gateKey: 'default',
      source: 3,
      added: 2,
      target: 2,
      missing: [pathOfRecord(records[1]!)],
    });
  });
});

// The record store contract against a folder of record files (`dir:PATH`, `--dir`): what
// `baseline migrate` moves a history through, and the CLI reads.

import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FolderBackend } from '../../../src/baseline/folder-backend.js';
import { benchmarkFolder } from '../../../src/baseline/record-paths.js';
import { serializeRecord } from '../../../src/baseline/record-text.js';
import { at, sampleRecord } from '../git/support.js';
import { describeRecordBackendContract, FOREIGN_GATE } from './record-backend-contract.js';

describeRecordBackendContract('folder of record files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'perf-gate-contract-'));
  return {
    backend: new FolderBackend(dir),
    reopen: () => Promise.resolve(new FolderBackend(dir)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
    plantForeign: async (gateKey) => {
      const path = `${benchmarkFolder(gateKey, 'qwen')}/20260101T000117Z-planted-1.json`;
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(
        join(dir, path),
        serializeRecord(sampleRecord('qwen', 77, at(77), { gateKey: FOREIGN_GATE })),
      );
      return path;
    },
  };
});

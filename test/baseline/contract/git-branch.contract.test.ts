// The record store contract against the git data branch: a real bare repository as the
// origin of a real clone, each writer with its own scratch repository.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GitBranchStore } from '../../../src/baseline/git/git-branch-store.js';
import { benchmarkFolder } from '../../../src/baseline/record-paths.js';
import { serializeRecord } from '../../../src/baseline/record-text.js';
import { gitIn } from '../../support/git.js';
import { at, makeRepos, sampleRecord } from '../git/support.js';
import { describeRecordBackendContract, FOREIGN_GATE } from './record-backend-contract.js';

describeRecordBackendContract('git data branch', async () => {
  const repos = await makeRepos();
  const writer = async () =>
    new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await mkdtemp(join(repos.root, 'writer-')),
    });
  return {
    backend: await writer(),
    reopen: writer,
    cleanup: () => rm(repos.root, { recursive: true, force: true }),
    // A hand-made commit on the data branch: another gate's record in this gate's folder.
    plantForeign: async (gateKey) => {
      const clone = await mkdtemp(join(repos.root, 'plant-'));
      gitIn(repos.root, ['clone', '--quiet', '--branch', 'perf-gate-data', repos.origin, clone]);
      const foreign = sampleRecord('qwen', 77, at(77), { gateKey: FOREIGN_GATE });
      const path = `${benchmarkFolder(gateKey, 'qwen')}/20260101T000117Z-planted-1.json`;
      await writeFile(join(clone, path), serializeRecord(foreign));
      gitIn(clone, ['add', path]);
      gitIn(clone, ['commit', '--quiet', '-m', 'plant']);
      gitIn(clone, ['push', '--quiet', 'origin', 'perf-gate-data']);
      return path;
    },
  };
});

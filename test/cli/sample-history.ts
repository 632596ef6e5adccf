// The sample history `baseline migrate` moves in its tests: the history tests' nights (an
// SDK upgrade that slows one benchmark), records with per-request samples, an acceptance,
// and two records wanting one path; and `history --json` without the lines naming the store.

import { acceptanceRecord } from '../../src/baseline/accept.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { at, makeRepos, sampleRecord } from '../baseline/git/support.js';
import { allNights } from '../history/night-records.js';

/** The history tests' nights (an SDK upgrade that slows one benchmark) and more beside. */
export function sampleHistory() {
  const nights = allNights({
    benchmarks: ['reranker', 'embedder'],
    nights: 24,
    slowdown: (benchmark, n) => (benchmark === 'reranker' && n >= 16 ? 1.12 : 1),
    environment: (n) => ({ neuronSdkVersion: n >= 16 ? '2.27.0' : '2.26.0' }),
  });
  // Records with per-request samples, an acceptance, and two records wanting one path.
  const sampled = [1, 2, 3].map((s) => sampleRecord('qwen', s, at(s)));
  const accepted = acceptanceRecord(sampled[2]!, {
    reason: 'manual',
    by: 'octocat',
    at: at(10),
    records: [pathOfRecord(sampled[2]!)],
  });
  const twin = sampleRecord('qwen', 9, at(3), {
    runId: sampled[2]!.runId,
    commit: sampled[2]!.commit,
  });
  return { nights, others: [...sampled, accepted], twin };
}

/** `history --json` without the lines that name the store and its version. */
export function historyOf(stdout: string) {
  const json = JSON.parse(stdout) as Record<string, unknown>;
  delete json.source;
  delete json.commit;
  return json;
}

/** The sample history on the data branch of a new repository: where the migrate tests start. */
export async function sampleHistoryOnDataBranch() {
  const repos = await makeRepos();
  const { nights, others, twin } = sampleHistory();
  const original = new GitBranchStore({
    repoDir: repos.checkout,
    workDir: await mkdtemp(join(repos.root, 'seed-')),
  });
  await original.appendRecords(nights);
  await original.appendRecords(others);
  await original.appendRecords([twin]);
  return { repos, original, nights, total: nights.length + others.length + 1 };
}

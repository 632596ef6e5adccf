// The artifact baseline store's write: this run's accepted results as the
// `perf-gate-baseline` artifact, which later runs find through the REST API.

import { join } from 'node:path';
import { baselineArtifactName } from '../baseline/artifact-store.js';
import { writeBaselineFile } from '../baseline/file-store.js';
import type { BenchmarkResult } from '../model.js';
import type { Deadline } from '../net/deadline.js';
import { uploadProfileArtifact } from '../publish/artifact.js';

/** Artifacts live at most 90 days: the longest GitHub allows by default. */
const BASELINE_RETENTION_DAYS = 90;

export async function uploadBaselineArtifact(
  results: BenchmarkResult[],
  outDir: string,
  gateKey: string,
  deadline?: Deadline,
): Promise<string> {
  const name = baselineArtifactName(gateKey);
  const folder = join(outDir, 'baseline-artifact');
  const file = join(folder, 'baseline.json');
  await writeBaselineFile(file, results, { root: outDir });
  const outcome = await uploadProfileArtifact({
    name,
    files: [file],
    rootDirectory: folder,
    retentionDays: BASELINE_RETENTION_DAYS,
    compressionLevel: 6,
    label: 'baseline artifact',
    ...(deadline ? { deadline } : {}),
  });
  if (!outcome.ok) throw new Error(outcome.warning);
  return `baseline uploaded as artifact ${name} (id ${outcome.id})`;
}

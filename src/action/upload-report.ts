// The report of a pull request run as the `perf-gate-report` artifact: what a two-stage
// comment job (`mode: comment`, in a workflow_run job) downloads and posts.

import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import { reportArtifactName } from '../github/report-artifact.js';
import type { GateReport } from '../model.js';
import type { Deadline } from '../net/deadline.js';
import { uploadProfileArtifact } from '../publish/artifact.js';
import type { ReportFiles } from '../publish/files.js';

export interface ReportArtifactOptions {
  outDir: string;
  pr: { number: number; headSha: string; gateKey: string };
  /** GITHUB_RUN_ATTEMPT: a re-run uploads under a name of its own. */
  attempt: number;
  deadline?: Deadline;
}

/** Uploads report.json, comment.md and pr.json; a message for the log, or throws. */
export async function uploadReportArtifact(
  report: GateReport,
  files: ReportFiles,
  options: ReportArtifactOptions,
): Promise<string> {
  const folder = join(options.outDir, 'report-artifact');
  // The benchmark could have left a link in the folder's place (security.md).
  await refuseLinksBelow(dirname(options.outDir), folder, 'the report artifact folder');
  await mkdir(folder, { recursive: true });
  const paths = {
    report: join(folder, 'report.json'),
    comment: join(folder, 'comment.md'),
    pr: join(folder, 'pr.json'),
  };
  // The report.json the run wrote, with its resolved config, so the comment job shows it.
  await writeFileAtomic(paths.report, await readFile(files.report, 'utf8'));
  await writeFileAtomic(paths.comment, files.commentMarkdown);
  await writeFileAtomic(paths.pr, `${JSON.stringify(options.pr, null, 2)}\n`);
  const name = reportArtifactName(options.pr.gateKey, options.attempt);
  const outcome = await uploadProfileArtifact({
    name,
    files: Object.values(paths),
    rootDirectory: folder,
    retentionDays: 7,
    label: 'report artifact (for a two-stage comment job)',
    compressionLevel: 6,
    ...(options.deadline ? { deadline: options.deadline } : {}),
  });
  if (!outcome.ok) throw new Error(outcome.warning);
  return `report uploaded as artifact ${name} (id ${outcome.id}) for a comment job`;
}

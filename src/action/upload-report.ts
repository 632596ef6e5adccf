// The report of a pull request run as the `perf-gate-report` artifact: what a two-stage
// comment job (`mode: comment`, in a workflow_run job) downloads and posts.

import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import { reportArtifactFiles, reportArtifactName } from '../github/report-artifact.js';
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
  // The report.json the run wrote, with its resolved config, so the comment job shows it.
  const contents = reportArtifactFiles(
    await readFile(files.report, 'utf8'),
    files.commentMarkdown,
    options.pr,
  );
  const paths = Object.keys(contents).map((name) => join(folder, name));
  for (const [name, content] of Object.entries(contents)) {
    await writeFileAtomic(join(folder, name), content);
  }
  const name = reportArtifactName(options.pr.gateKey, options.attempt);
  const outcome = await uploadProfileArtifact({
    name,
    files: paths,
    rootDirectory: folder,
    retentionDays: 7,
    label: 'report artifact (for a two-stage comment job)',
    compressionLevel: 6,
    ...(options.deadline ? { deadline: options.deadline } : {}),
  });
  if (!outcome.ok) throw new Error(outcome.warning);
  return `report uploaded as artifact ${name} (id ${outcome.id}) for a comment job`;
}

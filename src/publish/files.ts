import { join } from 'node:path';
import { writeBaselineFile } from '../baseline/file-store.js';
import { writeFileAtomic } from '../fs/atomic.js';
import type { BenchmarkResult, GateReport } from '../model.js';
import { configView } from '../report/config-view.js';
import { gateSecrets, redactStrings, secretValuesOf } from '../report/redact.js';
import { renderComment, renderMarkdown } from '../report/markdown.js';
import { reportJsonText } from '../report/report-json.js';
import type { GateConfig } from '../config/types.js';

export interface ReportFiles {
  report: string;
  comment: string;
  summary: string;
  /** The job summary (summary.md): the full report, up to GitHub's 1 MiB. */
  markdown: string;
  /** The pull request comment (comment.md): within GitHub's 65,536 characters. */
  commentMarkdown: string;
}

/**
 * Writes report.json, comment.md and summary.md into `outDir`, each atomically. With the
 * config, both show the resolved settings.
 */
export async function writeReportFiles(
  outDir: string,
  report: GateReport,
  config?: GateConfig,
): Promise<ReportFiles> {
  // The publishing edge: whatever came in, no secret of this process goes out.
  const secrets = config ? gateSecrets(config, process.env) : secretValuesOf(process.env);
  report = redactStrings(report, secrets);
  const view = config ? redactStrings(configView(config), secrets) : undefined;
  const markdown = renderMarkdown(report, { ...(view ? { config: view } : {}) });
  const commentMarkdown = renderComment(report, {
    ...(view ? { config: view } : {}),
    ...(report.links.summary ? { summaryUrl: report.links.summary } : {}),
  });
  const files = {
    report: join(outDir, 'report.json'),
    comment: join(outDir, 'comment.md'),
    summary: join(outDir, 'summary.md'),
  };
  const stored: GateReport = view ? { ...report, config: view } : report;
  await writeFileAtomic(files.report, reportJsonText(stored));
  await writeFileAtomic(files.comment, commentMarkdown);
  await writeFileAtomic(files.summary, markdown);
  return { ...files, markdown, commentMarkdown };
}

export type SaveBaselineOutcome = { saved: true } | { saved: false; reason: string };

/**
 * Saves this run's results as a baseline file, but only from a run that passed or had
 * nothing to compare with: a failed or regressed run never overwrites a baseline.
 */
export async function saveBaselineIfAllowed(
  path: string,
  report: GateReport,
  /** The workspace: no folder on the way to `path` may be a link (the benchmark's). */
  root?: string,
): Promise<SaveBaselineOutcome> {
  if (report.verdict === 'error') {
    return {
      saved: false,
      reason: 'a benchmark failed to run, so the baseline was left as it was',
    };
  }
  if (report.verdict === 'regression') {
    return {
      saved: false,
      reason:
        'the run regressed, so the baseline was left as it was (compare again after fixing, or save from a passing run)',
    };
  }
  const results: BenchmarkResult[] = report.benchmarks.flatMap((b) => (b.result ? [b.result] : []));
  await writeBaselineFile(path, results, root !== undefined ? { root } : {});
  return { saved: true };
}

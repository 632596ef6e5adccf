// The two renderings of a report: the job summary (complete unless it would exceed the
// step summary limit) and the PR comment (shortened to fit GitHub's comment limit).

import type { GateReport, ResolvedConfigView } from '../model.js';
import { documentRenderer } from './document.js';
import { markdownLink, safeUrl } from './escape.js';
import { renderWithin } from './fit.js';
import { summaryLinkOf } from './links.js';
import { droppableBenchmarks } from './omissions.js';

/** GitHub rejects comment bodies over 65,536 characters; room is left for the sticky marker. */
export const COMMENT_LIMIT = 65_536 - 200;
/** GitHub refuses a step summary over 1024 KiB. */
export const SUMMARY_LIMIT = 1024 * 1024;

export interface RenderOptions {
  /** The resolved configuration, shown folded away (see configView). */
  config?: ResolvedConfigView;
  /**
   * The longest output allowed: in characters (UTF-16 code units, which never undercount)
   * for the comment, in UTF-8 bytes for the job summary.
   */
  limit?: number;
  /** The job summary's URL, where a shortened comment sends its readers. */
  summaryUrl?: string;
}

/** The job summary (summary.md): the whole report, shortened only beyond `SUMMARY_LIMIT` bytes. */
export function renderMarkdown(report: GateReport, options: RenderOptions = {}): string {
  const run = markdownLink('workflow run', report.links.run);
  return renderWithin({
    render: documentRenderer({
      report,
      config: options.config,
      fullReport: `the \`report.json\` of the ${run}`,
    }),
    droppable: droppableBenchmarks(report.benchmarks),
    limit: options.limit ?? SUMMARY_LIMIT,
    size: (text) => Buffer.byteLength(text, 'utf8'),
  });
}

/** The PR comment (comment.md): the same report, shortened to `COMMENT_LIMIT` characters. */
export function renderComment(report: GateReport, options: RenderOptions = {}): string {
  return renderWithin({
    render: documentRenderer({
      report,
      config: options.config,
      fullReport: fullReportLink(report, options.summaryUrl),
    }),
    droppable: droppableBenchmarks(report.benchmarks),
    limit: options.limit ?? COMMENT_LIMIT,
    size: (text) => text.length,
  });
}

/** The job summary by its own URL if known, else by the run's. */
function fullReportLink(report: GateReport, summaryUrl: string | undefined): string {
  const summary = safeUrl(summaryUrl) ?? safeUrl(summaryLinkOf(report));
  if (summary) return `the [job summary](${summary})`;
  return `the job summary of the ${markdownLink('workflow run', report.links.run)}`;
}

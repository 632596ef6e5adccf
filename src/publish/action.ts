import * as core from '@actions/core';
import { countRegressions } from '../report/build.js';
import { escapeMarkdown } from '../report/escape.js';
import type { GateReport } from '../model.js';
import type { ReportFiles } from './files.js';

/** Job summary, outputs and the check's status for one finished gate run. */
export async function publishToActions(
  report: GateReport,
  files: ReportFiles,
  options: { failOnRegression: boolean; notes?: string[] },
): Promise<void> {
  const regressions = countRegressions(report);
  core.setOutput('verdict', report.verdict);
  core.setOutput('report', files.report);
  core.setOutput('regressions', String(regressions));

  if (process.env.GITHUB_STEP_SUMMARY) {
    await core.summary.addRaw(withNotes(files.markdown, options.notes ?? [])).write();
  } else {
    core.info('GITHUB_STEP_SUMMARY is not set: the summary is only in ' + files.summary);
  }

  for (const line of inconclusiveLines(report)) core.warning(`neuron-perf-gate: ${line}`);
  annotateMetrics(report);

  if (report.verdict === 'error') {
    const failed = report.benchmarks.filter((b) => b.verdict === 'error').map((b) => b.name);
    core.setFailed(
      `neuron-perf-gate: ${failed.join(', ')} failed to run; see the log and ${files.report}`,
    );
  } else if (report.verdict === 'regression') {
    const message = regressionMessage(report, regressions);
    if (options.failOnRegression) core.setFailed(message);
    else core.warning(`${message} (fail-on-regression is false, so the check passes)`);
  } else {
    core.info(`neuron-perf-gate: ${report.verdict}`);
  }
}

export function regressionMessage(report: GateReport, regressions: number): string {
  const lines = report.benchmarks.flatMap((b) =>
    b.metrics
      .filter((m) => m.verdict === 'regression')
      .map((m) => `${b.name} ${m.id}: ${m.reason}`),
  );
  return `neuron-perf-gate: ${regressions} regression(s)\n${lines.join('\n')}`;
}

/**
 * What could not be done on GitHub (comment, issue, baseline), under the report. Notes
 * carry error messages that quote benchmark names, branches and what a server answered:
 * escaped like every other such text, one line each.
 */
export function withNotes(markdown: string, notes: string[]): string {
  if (notes.length === 0) return markdown;
  return `${markdown}\n\n**Notes**\n\n${notes.map((note) => `- ${escapeMarkdown(note)}`).join('\n')}\n`;
}

/** One error annotation per regressed metric and a notice per improvement, on the run. */
function annotateMetrics(report: GateReport): void {
  for (const benchmark of report.benchmarks) {
    for (const metric of benchmark.metrics) {
      const title = `${benchmark.name}/${metric.id}`;
      if (metric.verdict === 'regression') core.error(metric.reason, { title });
      else if (metric.verdict === 'improvement') core.notice(metric.reason, { title });
    }
  }
}

/** Changes beyond a threshold that the data cannot confirm: a warning, not a failure. */
function inconclusiveLines(report: GateReport): string[] {
  return report.benchmarks.flatMap((b) =>
    b.metrics
      .filter((m) => m.verdict === 'inconclusive')
      .map((m) => `${b.name} ${m.id}: ${m.reason}`),
  );
}

/**
 * `artifact-id` and `artifact-url`: the uploaded artifacts, comma separated when there are
 * several benchmarks; a failed upload is a warning.
 */
export function publishArtifactOutputs(report: GateReport): void {
  const artifacts = report.benchmarks.flatMap((b) => (b.artifact ? [b.artifact] : []));
  const unique = [...new Map(artifacts.map((a) => [a.name, a])).values()];
  for (const artifact of unique) if (artifact.warning) core.warning(artifact.warning);
  const uploaded = unique.filter((a) => a.id !== undefined);
  core.setOutput('artifact-id', uploaded.map((a) => String(a.id)).join(','));
  core.setOutput(
    'artifact-url',
    uploaded
      .map((a) => a.url ?? '')
      .filter(Boolean)
      .join(','),
  );
}

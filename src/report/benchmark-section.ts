import type { BenchmarkReport, Confirmation } from '../model.js';
import { acceptedNote, baselineInfoOf, environmentNotesBlock } from './baseline-notes.js';
import { escapeMarkdown, fencedBlock } from './escape.js';
import { chartsSection } from './charts-section.js';
import { benchmarkLinksLine } from './links.js';
import {
  basisLegend,
  isDroppableRow,
  metricsEstimatorLegend,
  metricsTable,
  verdictReasons,
} from './metrics-table.js';
import { formatChange } from './numbers.js';
import { openRegressionNote, type OpenRegressions } from './open-regressions.js';
import { needsAttention, worstChangeText } from './overview-table.js';
import { benchmarkBadge, notMeasuredText } from './benchmark-verdict.js';
import { opDiffSection } from './op-diff-section.js';
import { agreementLeads, agreementSection } from './agreement-section.js';
import { profileSection } from './profile-section.js';
import { reachLine } from './reach-line.js';
import { runValuesDetails } from './run-values.js';
import { compileCacheLine } from './compile-cache-line.js';
import { serverLine } from './server-line.js';
import { isMemoryDetail, memoryLine } from './memory-line.js';
import { startupLine } from './startup-line.js';
import { isServerViewDetail, serverViewLine } from './server-view-line.js';
import { warmupLine } from './warmup-line.js';

/** What a shortened report leaves out of each benchmark it still shows. */
export interface SectionOmissions {
  /** The Mermaid charts: the first thing left out. */
  charts: boolean;
  runValues: boolean;
  unchangedRows: boolean;
}

/**
 * `heading`: a report's only benchmark, under a heading of its own. `folded`: one of
 * several, under the overview table, in a <details> whose summary names it with its
 * verdict and worst change, open when it needs attention.
 */
export type SectionLayout = 'heading' | 'folded';

/**
 * One benchmark: its verdict, profile and baseline, what differs from the baseline's
 * environment, the metrics table and why, the confirmation, the profile, warnings and
 * per-run values.
 */
export function benchmarkSection(
  benchmark: BenchmarkReport,
  omit: SectionOmissions,
  layout: SectionLayout = 'heading',
  open?: OpenRegressions,
): string {
  const verdict = benchmarkBadge(benchmark);
  const name = escapeMarkdown(benchmark.name);
  const parts = layout === 'heading' ? [`### ${name} — ${verdict}`] : [];
  const unmeasured = notMeasuredLine(benchmark);
  if (unmeasured) parts.push(unmeasured);
  const info = baselineInfoOf(benchmark);
  const profile = profileSection(benchmark);
  const links = benchmarkLinksLine(benchmark, info);
  if (links) parts.push(links);
  const regression = openRegressionNote(benchmark, open);
  if (regression) parts.push(regression);
  const environment = info ? environmentNotesBlock(benchmark, info) : undefined;
  if (environment) parts.push(environment);
  const accepted = info ? acceptedNote(info) : undefined;
  if (accepted) parts.push(accepted);
  if (benchmark.error) parts.push(errorBlock(benchmark.error));
  // Answers that changed come before any timing; answers that agree after the table.
  const agreement = agreementSection(benchmark);
  const agreementFirst = agreement !== undefined && agreementLeads(benchmark);
  if (agreementFirst) parts.push(agreement);
  const server = serverLine(benchmark);
  if (server) parts.push(server);
  const compileCache = compileCacheLine(benchmark);
  if (compileCache) parts.push(compileCache);
  // What monitor: watched: one line, its ungated details not rows of the table.
  const memory = memoryLine(benchmark);
  if (memory) parts.push(memory);
  const startup = startupLine(benchmark);
  if (startup) parts.push(startup);
  const warmup = warmupLine(benchmark);
  if (warmup) parts.push(warmup);
  // The server's own /metrics beside the client's latency; its ungated figures not rows.
  const serverView = serverViewLine(benchmark);
  if (serverView) parts.push(serverView);
  const rows = benchmark.metrics.filter(
    (m) => !(memory && isMemoryDetail(m.id)) && !(serverView && isServerViewDetail(m)),
  );
  if (rows.length > 0) {
    const shown = omit.unchangedRows ? rows.filter((m) => !isDroppableRow(m)) : rows;
    const hidden = rows.length - shown.length;
    if (shown.length > 0) parts.push(metricsTable(shown));
    const legend = shown.length > 0 ? basisLegend(shown) : undefined;
    if (legend) parts.push(legend);
    const estimators = metricsEstimatorLegend(shown);
    if (estimators) parts.push(estimators);
    if (hidden > 0) {
      parts.push(`_${hidden} unchanged metric${hidden === 1 ? '' : 's'} not shown._`);
    }
    const reasons = verdictReasons(benchmark.metrics);
    if (reasons) parts.push(reasons);
  }
  if (agreement && !agreementFirst) parts.push(agreement);
  const charts = omit.charts ? undefined : chartsSection(benchmark);
  if (charts) parts.push(charts);
  const confirmation = confirmationLine(benchmark);
  if (confirmation) parts.push(confirmation);
  const reach = reachLine(benchmark);
  if (reach) parts.push(reach);
  const opDiff = opDiffSection(benchmark);
  if (opDiff) parts.push(opDiff);
  if (profile) parts.push(profile);
  for (const warning of benchmark.warnings) parts.push(`> ⚠️ ${escapeMarkdown(warning)}`);
  const runs = omit.runValues ? undefined : runValuesDetails(benchmark);
  if (runs) parts.push(runs);
  if (layout === 'heading') return parts.join('\n\n');
  const worst = worstChangeText(benchmark);
  const summary = `<b>${name}</b> — ${verdict}${worst ? ` · ${worst}` : ''}`;
  const folded = needsAttention(benchmark) ? ' open' : '';
  return `<details${folded}><summary>${summary}</summary>\n\n${parts.join('\n\n')}\n\n</details>`;
}

/**
 * Under the heading of a benchmark with nothing gated measured: that it neither passed nor
 * failed, and why, so that no reader takes the quiet table for a pass.
 */
function notMeasuredLine(benchmark: BenchmarkReport): string | undefined {
  const why = notMeasuredText(benchmark);
  if (!why) return undefined;
  return `⚪ **Not measured**, neither a pass nor a regression: no metric this benchmark gates has a figure in this run (${why}). It fails nothing, as a metric not measured never does.`;
}

/**
 * "Confirmed with 2 more runs: regression → pass (throughput −6.1% → −2.0%)". Verdicts are
 * escaped too: comment mode renders a report.json that a pull request's run uploaded.
 */
function confirmationLine(benchmark: BenchmarkReport): string | undefined {
  const confirmation = benchmark.confirmation;
  if (!confirmation) return undefined;
  const plain = (value: unknown) => escapeMarkdown(String(value));
  const changed = benchmark.metrics.flatMap((after) => {
    const before = confirmation.metricsBefore.find((m) => m.id === after.id);
    if (!before || before.verdict === after.verdict) return [];
    return [
      `${plain(after.id)} ${formatChange(before.change)} ${plain(before.verdict)} → ${formatChange(after.change)} ${plain(after.verdict)}`,
    ];
  });
  const verdicts =
    confirmation.verdictBefore === benchmark.verdict
      ? `the ${plain(benchmark.verdict)} verdict stands`
      : `${plain(confirmation.verdictBefore)} → ${plain(benchmark.verdict)}`;
  const details = changed.length > 0 ? ` (${changed.join('; ')})` : '';
  return `🔁 **Confirmed** with ${confirmedWith(confirmation)}: ${verdicts}${details}.`;
}

/** What the confirmation added: runs, passes of a sweep, or restarts of the server. */
function confirmedWith(confirmation: Confirmation): string {
  const plain = (value: unknown) => escapeMarkdown(String(value));
  if (confirmation.sweepPasses !== undefined) {
    return `${plain(confirmation.sweepPasses)} more pass(es) of the whole sweep (${plain(confirmation.runs)} more clean runs), judged on all passes together`;
  }
  const restarts = confirmation.restarts ?? 0;
  const restarted = `${plain(restarts)} confirmation restart(s) of the server (server_startup: every clean start judged together)`;
  if (confirmation.runs === 0) return restarted;
  const runs = `${plain(confirmation.runs)} more clean run(s), judged on all runs together`;
  return restarts > 0 ? `${runs}, and ${restarted}` : runs;
}

function errorBlock(error: string): string {
  const [first, ...rest] = error.split('\n');
  const summary = `**Error:** ${escapeMarkdown(first ?? '')}`;
  if (rest.length === 0) return summary;
  return `${summary}\n\n<details><summary>Details</summary>\n\n${fencedBlock(rest.join('\n'))}\n\n</details>`;
}

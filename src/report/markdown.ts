import { markdownTable } from 'markdown-table';
import type {
  BenchmarkReport,
  BenchmarkVerdict,
  Comparison,
  Environment,
  GateReport,
  MetricVerdict,
} from '../model.js';
import { formatDuration } from '../text/duration.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import { profileSection } from './profile-section.js';
import { sweepRanking } from './sweep-ranking.js';
import { formatChange, formatInterval, formatThreshold, formatValue } from './numbers.js';

const HEADLINES: Record<GateReport['verdict'], string> = {
  pass: '✅ neuron-perf-gate: no performance regression',
  regression: '❌ neuron-perf-gate: performance regression',
  'no-baseline': '🆕 neuron-perf-gate: no baseline to compare with yet',
  error: '💥 neuron-perf-gate: a benchmark failed to run',
};

const BENCHMARK_BADGES: Record<BenchmarkVerdict, string> = {
  pass: '✅ pass',
  regression: '❌ regression',
  'no-baseline': '🆕 no baseline',
  error: '💥 error',
};

const METRIC_BADGES: Record<MetricVerdict, string> = {
  regression: '❌ regression',
  improvement: '🚀 improvement',
  unchanged: '✅ unchanged',
  inconclusive: '⚠️ inconclusive',
  new: '🆕 new',
  missing: '⚪ missing',
};

/** The job summary and the PR comment: the same report, read in two places. */
export function renderMarkdown(report: GateReport): string {
  const parts = [`## ${HEADLINES[report.verdict]}`, overview(report)];
  const ranked = new Set<string>();
  for (const benchmark of report.benchmarks) {
    const sweep = benchmark.sweep?.name;
    if (sweep !== undefined && !ranked.has(sweep)) {
      ranked.add(sweep);
      parts.push(
        sweepRanking(
          sweep,
          report.benchmarks.filter((b) => b.sweep?.name === sweep),
        ),
      );
    }
    parts.push(benchmarkSection(benchmark));
  }
  if (report.warnings.length > 0) {
    parts.push(
      ['**Warnings**', ...report.warnings.map((w) => `- ${escapeMarkdown(w)}`)].join('\n'),
    );
  }
  parts.push(environmentSection(report));
  parts.push(
    `<sub>${escapeMarkdown(report.tool.name)} ${escapeMarkdown(report.tool.version)} · ${report.createdAt}</sub>`,
  );
  return `${parts.join('\n\n')}\n`;
}

function overview(report: GateReport): string {
  const count = (verdict: BenchmarkVerdict) =>
    report.benchmarks.filter((b) => b.verdict === verdict).length;
  const total = report.benchmarks.length;
  const facts = [
    `${total} benchmark${total === 1 ? '' : 's'}`,
    count('regression') > 0 ? `${count('regression')} regressed` : '',
    count('error') > 0 ? `${count('error')} failed to run` : '',
    count('no-baseline') > 0 ? `${count('no-baseline')} without baseline` : '',
    count('pass') > 0 ? `${count('pass')} passed` : '',
    inconclusive(report) > 0 ? `⚠️ ${inconclusive(report)} inconclusive metric(s)` : '',
  ].filter(Boolean);
  const against = report.baselineSource
    ? ` Baseline: ${codeSpan(report.baselineSource)}.`
    : ' No baseline was given: this run can become the baseline.';
  return `${facts.join(', ')}.${against}`;
}

function inconclusive(report: GateReport): number {
  return report.benchmarks.reduce(
    (sum, b) => sum + b.metrics.filter((m) => m.verdict === 'inconclusive').length,
    0,
  );
}

function benchmarkSection(benchmark: BenchmarkReport): string {
  const parts = [`### ${escapeMarkdown(benchmark.name)} — ${BENCHMARK_BADGES[benchmark.verdict]}`];
  if (benchmark.error) parts.push(errorBlock(benchmark.error));
  if (benchmark.metrics.length > 0) {
    parts.push(metricsTable(benchmark.metrics));
    const reasons = benchmark.metrics
      .filter((m) => m.verdict !== 'unchanged' && m.verdict !== 'new' && !isNotMeasured(m))
      .map((m) => `- **${escapeMarkdown(m.id)}**: ${escapeMarkdown(m.reason)}`);
    if (reasons.length > 0) parts.push(reasons.join('\n'));
  }
  const confirmation = confirmationLine(benchmark);
  if (confirmation) parts.push(confirmation);
  const profile = profileSection(benchmark);
  if (profile) parts.push(profile);
  for (const warning of benchmark.warnings) parts.push(`> ⚠️ ${escapeMarkdown(warning)}`);
  const runs = runsDetails(benchmark);
  if (runs) parts.push(runs);
  return parts.join('\n\n');
}

function metricsTable(metrics: Comparison[]): string {
  const confidence = metrics[0]?.confidence ?? 0.95;
  const rows = metrics.map((m) => [
    `${escapeMarkdown(m.id)} (${escapeMarkdown(m.unit)})`,
    formatValue(m.baseline),
    formatValue(m.current),
    formatChange(m.change),
    intervalCell(m),
    formatThreshold(m.threshold),
    verdictCell(m),
  ]);
  const header = [
    'Metric',
    'Baseline',
    'Current',
    'Change',
    `${formatConfidence(confidence)} CI`,
    'Threshold',
    'Verdict',
  ];
  return markdownTable([header, ...rows], { align: ['l', 'r', 'r', 'r', 'c', 'r', 'l'] });
}

function intervalCell(metric: Comparison): string {
  if (metric.ci) return formatInterval(metric.ci);
  return metric.change === null ? '—' : 'low confidence';
}

function formatConfidence(confidence: number): string {
  return `${Number((confidence * 100).toPrecision(4))}%`;
}

/** "Confirmed with 2 more runs: regression → pass (throughput −6.1% → −2.0%)". */
function confirmationLine(benchmark: BenchmarkReport): string | undefined {
  const confirmation = benchmark.confirmation;
  if (!confirmation) return undefined;
  const changed = benchmark.metrics.flatMap((after) => {
    const before = confirmation.metricsBefore.find((m) => m.id === after.id);
    if (!before || before.verdict === after.verdict) return [];
    return [
      `${escapeMarkdown(after.id)} ${formatChange(before.change)} ${before.verdict} → ${formatChange(after.change)} ${after.verdict}`,
    ];
  });
  const verdicts =
    confirmation.verdictBefore === benchmark.verdict
      ? `the ${benchmark.verdict} verdict stands`
      : `${confirmation.verdictBefore} → ${benchmark.verdict}`;
  const details = changed.length > 0 ? ` (${changed.join('; ')})` : '';
  return `🔁 **Confirmed** with ${confirmation.runs} more clean run(s), judged on all runs together: ${verdicts}${details}.`;
}

function verdictCell(metric: Comparison): string {
  if (isNotMeasured(metric)) return '⚪ not measured';
  if (metric.threshold === null && metric.verdict === 'unchanged') return 'not gated';
  return METRIC_BADGES[metric.verdict];
}

/** Absent on both sides; the profile line says why. */
function isNotMeasured(metric: Comparison): boolean {
  return metric.verdict === 'missing' && metric.reason.startsWith('not measured');
}

function errorBlock(error: string): string {
  const [first, ...rest] = error.split('\n');
  const summary = `**Error:** ${escapeMarkdown(first ?? '')}`;
  if (rest.length === 0) return summary;
  return `${summary}\n\n<details><summary>Details</summary>\n\n${fenced(rest.join('\n'))}\n\n</details>`;
}

/** A fenced code block whose fence is longer than any backtick run inside it. */
function fenced(text: string): string {
  const longestRun = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}text\n${text}\n${fence}`;
}

function runsDetails(benchmark: BenchmarkReport): string | undefined {
  const result = benchmark.result;
  if (!result || result.runs.length === 0) return undefined;
  const clean = result.runs.filter((run) => run.kind === 'clean');
  const header = ['Metric', ...clean.map((run) => `run ${run.index}`)];
  // MFU and MBU come from the one profiled run, not from each clean run.
  const perRun = result.metrics.filter((metric) => metric.values.length === clean.length);
  const rows = perRun.map((metric) => [
    `${escapeMarkdown(metric.id)} (${escapeMarkdown(metric.unit)})`,
    ...clean.map((_, i) => formatValue(metric.values[i] ?? null)),
  ]);
  const durations = result.runs.map(
    (run) =>
      `run ${run.index} (${run.kind}): ${run.ok ? 'ok' : 'failed'} in ${formatDuration(run.durationMs)}`,
  );
  const table = rows.length > 0 ? `${markdownTable([header, ...rows])}\n\n` : '';
  return `<details><summary>Runs and per-run values</summary>\n\n${table}${durations.map((d) => `- ${d}`).join('\n')}\n\n</details>`;
}

function environmentSection(report: GateReport): string {
  const rows = environmentRows(report.environment);
  if (report.links.run) rows.push(['Workflow run', report.links.run]);
  if (rows.length === 0) return '';
  return `<details><summary>Environment</summary>\n\n${markdownTable([['', ''], ...rows])}\n\n</details>`;
}

function environmentRows(environment: Environment): string[][] {
  const labels: [keyof Environment, string][] = [
    ['instanceType', 'Instance type'],
    ['neuronDevices', 'Neuron devices'],
    ['neuronCores', 'NeuronCores'],
    ['neuronSdkVersion', 'Neuron SDK'],
    ['compilerVersion', 'Neuron compiler'],
    ['runtimeVersion', 'Neuron runtime'],
    ['vllmVersion', 'vLLM'],
    ['vllmNeuronVersion', 'vllm-neuron'],
    ['runner', 'Runner'],
    ['commit', 'Commit'],
    ['ref', 'Ref'],
  ];
  return labels
    .filter(([key]) => environment[key] !== undefined && environment[key] !== '')
    .map(([key, label]) => [label, escapeMarkdown(String(environment[key]))]);
}

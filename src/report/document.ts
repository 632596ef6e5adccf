import { markdownTable } from 'markdown-table';
import type {
  AbRunsOfMetric,
  AbSideSummary,
  AbSummary,
  BenchmarkVerdict,
  Environment,
  GateReport,
  ResolvedConfigView,
} from '../model.js';
import { benchmarkSection } from './benchmark-section.js';
import { configSection } from './config-section.js';
import { costLine } from './cost-line.js';
import { cacheFacts } from './compile-cache-line.js';
import { codeSpan, escapeMarkdown, labelOf } from './escape.js';
import { formatValue } from './numbers.js';
import { reportLinksLine } from './links.js';
import { shortenedNote, type Omissions } from './omissions.js';
import { overviewTable } from './overview-table.js';
import {
  openRegressionsBlock,
  openRegressionsOf,
  type OpenRegressions,
} from './open-regressions.js';
import { missingSeriesBlock, missingSeriesOf } from './missing-series.js';
import { sweepRanking } from './sweep-ranking.js';
import { serverSettingsOf } from './server-settings.js';
import { settingsTable } from './settings-table.js';
import { isNotMeasured } from './benchmark-verdict.js';

const HEADLINES: Record<GateReport['verdict'], string> = {
  pass: '✅ neuron-perf-gate: no performance regression',
  regression: '❌ neuron-perf-gate: performance regression',
  'no-baseline': '🆕 neuron-perf-gate: no baseline to compare with yet',
  error: '💥 neuron-perf-gate: a benchmark failed to run',
};

export interface DocumentInput {
  report: GateReport;
  config?: ResolvedConfigView;
  /** Markdown naming where the full report is, for the note of a shortened report. */
  fullReport: string;
}

/**
 * The report as top-level markdown blocks (joined by blank lines), leaving out what
 * `omit` says. Blocks are whole tables, lists or <details>, so dropping trailing blocks
 * never cuts one in half. Benchmark sections are cached: a search for the largest report
 * that fits renders the same sections many times.
 */
export function documentRenderer(input: DocumentInput): (omit: Omissions) => string[] {
  const { report, config } = input;
  const sections = new Map<string, string>();
  const layout = report.benchmarks.length > 1 ? 'folded' : 'heading';
  const open = openRegressionsOf(report);
  const missing = missingSeriesOf(report);
  const settingsTables = serverSettingsOf(report.benchmarks, report.cost).map(settingsTable);
  const section = (index: number, omit: Omissions) => {
    const key = `${index}:${omit.charts}:${omit.runValues}:${omit.unchangedRows}`;
    let text = sections.get(key);
    if (text === undefined) {
      text = benchmarkSection(report.benchmarks[index]!, omit, layout, open);
      sections.set(key, text);
    }
    return text;
  };
  return (omit) => {
    const blocks = [`## ${headline(report, open)}`];
    if (open) blocks.push(openRegressionsBlock(open));
    if (missing) blocks.push(missingSeriesBlock(missing));
    blocks.push(overview(report));
    if (report.ab) blocks.push(abSection(report.ab));
    const links = reportLinksLine(report);
    if (links) blocks.push(links);
    if (report.cost) blocks.push(costLine(report.cost));
    const note = shortenedNote(omit, {
      benchmarks: report.benchmarks,
      hasConfig: config !== undefined,
      fullReport: input.fullReport,
    });
    if (note) blocks.push(note);
    const table = overviewTable(report.benchmarks);
    if (table) blocks.push(table);
    // Each entry's server settings side by side: a few rows, kept however short the comment.
    blocks.push(...settingsTables);
    const ranked = new Set<string>();
    report.benchmarks.forEach((benchmark, index) => {
      const sweep = benchmark.sweep?.name;
      if (sweep !== undefined && !ranked.has(sweep) && !omit.rankings) {
        ranked.add(sweep);
        const variants = report.benchmarks.filter((b) => b.sweep?.name === sweep);
        blocks.push(sweepRanking(sweep, variants));
      }
      if (!omit.benchmarks.has(index)) blocks.push(section(index, omit));
    });
    if (report.warnings.length > 0) {
      blocks.push(
        ['**Warnings**', ...report.warnings.map((w) => `- ${escapeMarkdown(w)}`)].join('\n'),
      );
    }
    if (config && !omit.config) blocks.push(configSection(config, report.ab));
    const environment = environmentSection(report.environment);
    if (environment) blocks.push(environment);
    const isolation =
      report.isolation !== undefined ? ` · isolation: ${escapeMarkdown(report.isolation)}` : '';
    blocks.push(
      `<sub>${escapeMarkdown(report.tool.name)} ${escapeMarkdown(report.tool.version)} · ${escapeMarkdown(report.createdAt)}${isolation}</sub>`,
    );
    return blocks;
  };
}

/**
 * The verdict of this run, and, when it passes while the baseline branch has an open
 * regression, that the regression is still there: a green headline would hide it.
 */
function headline(report: GateReport, open: OpenRegressions | undefined): string {
  const { verdict } = report;
  if (verdict === 'regression') return regressionHeadline(report);
  if (verdict === 'pass') {
    const unmeasured = notMeasuredHeadline(report);
    if (unmeasured) return unmeasured;
  }
  if (verdict !== 'pass' || !open) return labelOf(HEADLINES, verdict);
  const count = open.regressions.length;
  return `⚠️ neuron-perf-gate: no new regression in this run, but ${codeSpan(open.branch)} has ${count} open performance regression${count === 1 ? '' : 's'}`;
}

/**
 * A pass that rests on no measured benchmark reads as none; one that rests on some names
 * those with nothing measured. Undefined when every benchmark had something measured.
 */
function notMeasuredHeadline(report: GateReport): string | undefined {
  const unmeasured = report.benchmarks.filter(isNotMeasured).length;
  if (unmeasured === 0) return undefined;
  const passed = report.benchmarks.filter((b) => b.verdict === 'pass' && !isNotMeasured(b));
  if (passed.length === 0) {
    return '⚪ neuron-perf-gate: nothing gated was measured, so nothing passed or regressed';
  }
  const which = unmeasured === 1 ? '1 benchmark' : `${unmeasured} benchmarks`;
  return `${labelOf(HEADLINES, 'pass')}; ${which} not measured`;
}

/**
 * What failed: the figures, the answers (the agreement check), or both; a build that only
 * answers differently is not headed a performance regression.
 */
function regressionHeadline(report: GateReport): string {
  const answers = report.benchmarks.some((b) => b.agreement?.verdict === 'regression');
  // A metric that failed it (a regression, or an inconclusive one with fail-on-inconclusive).
  const slower = report.benchmarks.some(
    (b) =>
      b.metrics.some((m) => m.verdict === 'regression') ||
      (b.verdict === 'regression' && b.agreement?.verdict !== 'regression'),
  );
  if (answers && slower) return '❌ neuron-perf-gate: performance regression and changed answers';
  if (answers) return '❌ neuron-perf-gate: the answers changed';
  return labelOf(HEADLINES, 'regression');
}

function overview(report: GateReport): string {
  // A benchmark with nothing gated measured is counted as such, never among the passes.
  const count = (verdict: BenchmarkVerdict) =>
    report.benchmarks.filter((b) => b.verdict === verdict && !isNotMeasured(b)).length;
  const unmeasured = report.benchmarks.filter(isNotMeasured).length;
  const total = report.benchmarks.length;
  const inconclusive = report.benchmarks.reduce(
    (sum, b) => sum + b.metrics.filter((m) => m.verdict === 'inconclusive').length,
    0,
  );
  const facts = [
    `${total} benchmark${total === 1 ? '' : 's'}`,
    count('regression') > 0 ? `${count('regression')} regressed` : '',
    count('error') > 0 ? `${count('error')} failed to run` : '',
    count('no-baseline') > 0 ? `${count('no-baseline')} without baseline` : '',
    count('pass') > 0 ? `${count('pass')} passed` : '',
    unmeasured > 0 ? `⚪ ${unmeasured} not measured` : '',
    inconclusive > 0 ? `⚠️ ${inconclusive} inconclusive metric(s)` : '',
  ].filter(Boolean);
  const against = report.baselineSource
    ? ` Baseline: ${codeSpan(report.baselineSource)}.`
    : ' No baseline was given: this run can become the baseline.';
  return `${facts.join(', ')}.${against}`;
}

/** A/B mode: what was measured against what, in which order, and what differs between them. */
function abSection(ab: AbSummary): string {
  const side = (name: string, s: AbSideSummary) =>
    `**${name}** ${codeSpan(s.label)}${s.setupSeconds !== undefined ? ` (setup ${s.setupSeconds.toFixed(1)} s)` : ''}`;
  const blocks = Object.entries(ab.blocks)
    .map(([name, count]) => `${escapeMarkdown(name)}: ${count}`)
    .join(', ');
  const lines = [
    `A/B on one host: ${side('head', ab.head)} against ${side('base', ab.base)}, runs in blocks of ${escapeMarkdown(ab.order)} (blocks: ${blocks}); each change is judged within the blocks, so what the host does between them cancels.`,
  ];
  const cache = compileCacheLine(ab);
  if (cache) lines.push(cache);
  lines.push(...abCacheLines(ab));
  const runs = Object.entries(ab.runs ?? {});
  if (runs.length > 0) lines.push(abRunsTable(runs));
  if (ab.differs.length > 0) {
    const label = (key: string) =>
      ENVIRONMENT_LABELS.find(([k]) => k === key)?.[1] ?? escapeMarkdown(key);
    const seen =
      ab.versionsSeen === 'in-benchmark-shell'
        ? ", as each side's benchmark ran (read in its shell after the command's own set-up)"
        : ab.versionsSeen === 'beside-benchmark'
          ? " (by the probe beside the benchmarks, with each side's variables: no benchmark shell left a record)"
          : '';
    lines.push(
      `The sides differ in: ${ab.differs.map((d) => `${label(d.component)} ${codeSpan(d.base)} → ${codeSpan(d.head)}`).join(', ')}${seen}.`,
    );
  }
  const configs = configDifferencesLine(ab);
  if (configs) lines.push(configs);
  return lines.join('\n\n');
}

/** "The sides' configs differ: qwen3-serve: server.command `…` → `…`; …" (two stacks). */
function configDifferencesLine(ab: AbSummary): string | undefined {
  const differs = ab.configDiffers ?? [];
  if (differs.length === 0) return undefined;
  const items = differs.map((d) => {
    const where = d.benchmark === '' ? '' : `${escapeMarkdown(d.benchmark)}: `;
    return `${where}${codeSpan(d.setting)} ${codeSpan(d.base)} → ${codeSpan(d.head)}`;
  });
  return `<details><summary>The sides' configs differ in ${differs.length} setting(s)</summary>\n\n${items.map((i) => `- ${i}`).join('\n')}\n\n</details>`;
}

/**
 * Whose NEFFs each side loads: its compile cache and compiler. One cache for two compiler
 * versions is safe (the cache keeps each version's graphs in a folder of its own), but
 * then only the compiler tells the sides' graphs apart.
 */
function compileCacheLine(ab: AbSummary): string | undefined {
  const { base, head } = ab;
  if (!base.compileCache || !head.compileCache) return undefined;
  const side = (name: string, s: AbSideSummary) =>
    `${name} ${codeSpan(s.compileCache!)}${s.environment.compilerVersion ? ` (neuronx-cc ${codeSpan(String(s.environment.compilerVersion))})` : ''}`;
  const shared =
    base.compileCache === head.compileCache
      ? base.environment.compilerVersion !== head.environment.compilerVersion
        ? '; one cache, kept apart by compiler version'
        : '; one cache, shared'
      : '';
  return `NEFF compile cache: ${side('base', base)}, ${side('head', head)}${shared}.`;
}

/**
 * Per benchmark, what each side's first run did with the cache, the head judged against
 * the base (src/ab/compile-cache.ts); with one cache, the base's second run too.
 */
function abCacheLines(ab: AbSummary): string[] {
  return Object.entries(ab.compileCaches ?? {}).flatMap(([name, caches]) => {
    const base = cacheFacts(caches.base);
    const again = cacheFacts(caches.baseAgain);
    const head = cacheFacts(caches.head);
    if (!base && !head) return [];
    const sides = [
      `base's first run: ${base ?? 'did not touch it'}${again ? ` (its second run: ${again})` : ''}`,
      `head's first run: ${head ?? 'did not touch it'}`,
    ];
    const how = caches.shared ? 'one cache, which the base warms first' : 'a cache each';
    return [`🧱 ${escapeMarkdown(name)}, compile cache (${how}): ${sides.join('; ')}.`];
  });
}

/** Each benchmark's runs of one metric, block by block in the order they ran (ABBA). */
function abRunsTable(runs: [string, AbRunsOfMetric][]): string {
  const rows = runs.flatMap(([name, { metric, unit, blocks }]) =>
    blocks.map((block, index) => [
      index === 0
        ? `${escapeMarkdown(name)}: ${escapeMarkdown(metric)} (${escapeMarkdown(unit)})`
        : '',
      String(index + 1),
      formatValue(block.base[0] ?? null),
      formatValue(block.head[0] ?? null),
      formatValue(block.head[1] ?? null),
      formatValue(block.base[1] ?? null),
    ]),
  );
  const table = markdownTable([['', 'block', 'base', 'head', 'head', 'base'], ...rows]);
  return `<details><summary>Runs in the order they ran</summary>\n\n${table}\n\n</details>`;
}

const ENVIRONMENT_LABELS: [keyof Environment, string][] = [
  ['instanceType', 'Instance type'],
  ['neuronDevices', 'Neuron devices'],
  ['neuronCores', 'NeuronCores'],
  ['logicalNcConfig', 'LNC (physical cores per logical NeuronCore)'],
  ['neuronSdkVersion', 'Neuron SDK'],
  ['compilerVersion', 'Neuron compiler'],
  ['runtimeVersion', 'Neuron runtime'],
  ['vllmVersion', 'vLLM'],
  ['vllmNeuronVersion', 'vllm-neuron'],
  ['runner', 'Runner'],
  ['commit', 'Commit'],
  ['ref', 'Ref'],
];

function environmentSection(environment: Environment): string | undefined {
  const rows = ENVIRONMENT_LABELS.filter(
    ([key]) => environment[key] !== undefined && environment[key] !== '',
  ).map(([key, label]) => [label, escapeMarkdown(String(environment[key]))]);
  if (rows.length === 0) return undefined;
  return `<details><summary>Environment</summary>\n\n${markdownTable([['', ''], ...rows])}\n\n</details>`;
}

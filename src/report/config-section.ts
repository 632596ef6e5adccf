import { markdownTable } from 'markdown-table';
import type { AbSummary, BenchmarkConfigView, ResolvedConfigView } from '../model.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import { DEFAULT_KEY, THRESHOLD_OFF } from '../config/default-thresholds.js';
import { formatThreshold } from './numbers.js';
import { confidencePercent } from '../text/percent.js';

/** The resolved configuration, folded away: what ran, how often, against which thresholds. */
export function configSection(config: ResolvedConfigView, ab?: AbSummary): string {
  const withParams = config.benchmarks.some((b) => b.sweep);
  const withSlo = config.benchmarks.some((b) => b.slo !== undefined);
  const header = [
    'Benchmark',
    ...(withParams ? ['Params'] : []),
    'Command',
    'Format',
    'Runs',
    'Profile',
    'Timeout',
    'Thresholds',
    ...(withSlo ? ['SLO'] : []),
    'Variables',
  ];
  const rows = config.benchmarks.map((b) => [
    escapeMarkdown(b.name),
    ...(withParams ? [paramsCell(b)] : []),
    b.command === undefined ? 'not published' : codeSpan(b.command),
    escapeMarkdown(b.format),
    ab ? abRunsCell(ab, b.name) : runsCell(b),
    b.profile === 'false' || ab
      ? 'off'
      : `${escapeMarkdown(b.profile)} (${escapeMarkdown(b.profileMode)})`,
    `${b.timeoutMinutes} min`,
    thresholdsCell(b.thresholds),
    ...(withSlo ? [b.slo === undefined ? '—' : escapeMarkdown(b.slo)] : []),
    b.envNames.map(codeSpan).join(', ') || '—',
  ]);
  const table = rows.length > 0 ? `\n\n${markdownTable([header, ...rows])}` : '';
  return `<details><summary>Configuration</summary>\n\n${gateLine(config, ab)}${table}\n\n</details>`;
}

function runsCell(b: BenchmarkConfigView): string {
  return b.confirmRuns > 0 ? `${b.runs} (+ up to ${b.confirmRuns} to confirm)` : String(b.runs);
}

/** A/B mode runs blocks, not the configured runs: what each side ran. */
function abRunsCell(ab: AbSummary, name: string): string {
  const blocks = Object.entries(ab.blocks)
    .filter(([benchmark]) => benchmark === name || benchmark.startsWith(`${name}/`))
    .map(([, count]) => count);
  return blocks.length > 0 ? `${2 * Math.max(...blocks)} a side, in blocks` : '—';
}

function gateLine(config: ResolvedConfigView, ab: AbSummary | undefined): string {
  const facts = [
    `${confidencePercent(config.confidence)} confidence`,
    ab
      ? 'A/B: both sides measured here, no stored baseline'
      : `baseline of the newest ${config.baselineWindow} record(s)`,
    config.failOnRegression ? 'fails on a regression' : 'reports regressions without failing',
    config.failOnInconclusive ? 'fails when inconclusive' : 'does not fail when inconclusive',
    ab
      ? 'no profiled run'
      : config.uploadProfiles
        ? `profiles uploaded (kept ${config.artifactRetentionDays} days)`
        : 'profiles not uploaded',
  ];
  const baselines =
    config.baselinePaths.length > 0
      ? ` Baseline files: ${config.baselinePaths.map(codeSpan).join(', ')}.`
      : '';
  const hidden = config.benchmarks.some((b) => b.command === undefined)
    ? ' A command given as an input is not published: it may hold a secret.'
    : '';
  return `From ${codeSpan(config.source)}: ${facts.join(', ')}.${baselines} Variables are listed by name only.${hidden}`;
}

function paramsCell(benchmark: BenchmarkConfigView): string {
  const params = Object.entries(benchmark.sweep?.params ?? {});
  if (params.length === 0) return '—';
  return params.map(([key, value]) => escapeMarkdown(`${key}=${paramText(value)}`)).join(', ');
}

function paramText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The config's own thresholds; every other metric has its built-in one (docs/thresholds.md). */
function thresholdsCell(thresholds: Record<string, number>): string {
  const entries = Object.entries(thresholds);
  if (entries.length === 0) return 'built-in';
  const own = entries.map(
    ([id, t]) => `${escapeMarkdown(id)} ${t === THRESHOLD_OFF ? 'off' : formatThreshold(t)}`,
  );
  return `${own.join(', ')}${Object.hasOwn(thresholds, DEFAULT_KEY) ? '' : '; others built-in'}`;
}

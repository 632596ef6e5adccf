import { basename } from 'node:path';
import { markdownTable } from 'markdown-table';
import { WARMUP_VARIABLE } from '../config/profiler-variables.js';
import type { BenchmarkReport, ProfileCapture, ProfileGraph, ProfileSummary } from '../model.js';
import { codeSpan, escapeMarkdown, markdownLink } from './escape.js';
import { formatBytes, formatChange, formatSeconds, formatValue } from './numbers.js';
import { shownFigures } from './metrics-table.js';
import { hasUploadedProfile } from './profile-link.js';

/**
 * The "Profile" block of a benchmark: MFU now and before, the graphs, engine activity,
 * profiling overhead, where the files are and how to open them.
 */
export function profileSection(benchmark: BenchmarkReport): string | undefined {
  const profile = benchmark.profile;
  if (!profile) return undefined;
  if (profile.status === 'not-requested') {
    // Not profiled on purpose (profile: on-change): say why MFU has no value.
    if (!profile.note) return undefined;
    return `#### Profile\n\nMFU and MBU are not measured: ${escapeMarkdown(profile.note)}.`;
  }
  const parts = ['#### Profile'];
  if (profile.status === 'measured') {
    parts.push(headline(benchmark, profile));
    if (profile.graphs && profile.graphs.length > 0) parts.push(graphTable(profile.graphs));
    const engines = engineLine(profile);
    if (engines) parts.push(engines);
    parts.push(
      '_MFU covers NeuronCore time only: framework work on the host (scheduling, transfers) ' +
        'is in the latency but not in the device profile._',
    );
  } else if (profile.note) {
    parts.push(escapeMarkdown(profile.note));
  }
  const contaminated = contaminationLine(profile);
  if (contaminated) parts.push(contaminated);
  const source = sourceLine(profile);
  if (source) parts.push(source);
  if (profile.capture) parts.push(captureLine(profile.capture));
  for (const warning of profile.warnings ?? []) parts.push(`> ⚠️ ${escapeMarkdown(warning)}`);
  parts.push(filesLine(benchmark, profile));
  const hint = openHint(profile);
  if (hint) parts.push(hint);
  return parts.join('\n\n');
}

function headline(benchmark: BenchmarkReport, profile: ProfileSummary): string {
  const facts: string[] = [];
  const mfu = benchmark.metrics.find((m) => m.id === 'mfu');
  if (profile.metrics.mfu !== undefined) {
    // The baseline the change is the ratio of (metrics-table.ts: shownFigures).
    const base = mfu ? shownFigures(mfu).baseline : null;
    const before =
      base !== null && mfu
        ? ` (baseline ${formatValue(base, '%')}, ${formatChange(mfu.change)})`
        : '';
    facts.push(`MFU **${formatValue(profile.metrics.mfu, '%')}**${before}`);
  }
  const untimed = profile.untimedGraphs?.length ?? 0;
  if (untimed > 0) {
    facts.push(
      `MFU **not measured**: partial profile, ${untimed} graph(s) without total_time (see the warning)`,
    );
  }
  if (profile.metrics.mbu !== undefined) facts.push(`MBU ${formatValue(profile.metrics.mbu, '%')}`);
  if (profile.metrics.profiling_overhead !== undefined) {
    facts.push(
      `profiling overhead ${formatChange(profile.metrics.profiling_overhead / 100)} on throughput`,
    );
  }
  if (profile.metrics.device_time_seconds !== undefined) {
    facts.push(`${formatSeconds(profile.metrics.device_time_seconds)} of NeuronCore time profiled`);
  }
  return facts.join(' · ');
}

function graphTable(graphs: ProfileGraph[]): string {
  const percent = (value: number | undefined) =>
    value === undefined ? '—' : formatValue(value, '%');
  const rows = graphs.map((graph) => [
    `${graph.label ? `${escapeMarkdown(graph.label)} ` : ''}${codeSpan(shortKey(graph.key))}`,
    formatSeconds(graph.totalTime),
    `${percent(graph.mfu)}${graph.mfuDerived ? '*' : ''}`,
    percent(graph.mbu),
    percent(graph.engines.tensor),
    percent(graph.engines.vector),
    percent(graph.engines.scalar),
    percent(graph.engines.gpsimd),
    percent(graph.dma),
  ]);
  const table = markdownTable(
    [
      ['Graph', 'Device time', 'MFU', 'MBU', 'Tensor', 'Vector', 'Scalar', 'GpSimd', 'DMA'],
      ...rows,
    ],
    { align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'] },
  );
  const derived = graphs.some((g) => g.mfuDerived)
    ? '\n\n\\* the profiler gave no MFU for this graph; derived from its model flops and the peak rate implied by the other graphs.'
    : '';
  return `${table}${derived}`;
}

function engineLine(profile: ProfileSummary): string | undefined {
  const m = profile.metrics;
  const parts: string[] = [];
  for (const engine of ['tensor', 'vector', 'scalar', 'gpsimd', 'sync']) {
    const value = m[`${engine}_engine_active`];
    if (value !== undefined) parts.push(`${engine} ${formatValue(value, '%')}`);
  }
  if (m.dma_active !== undefined) parts.push(`DMA ${formatValue(m.dma_active, '%')}`);
  if (m.hbm_read_bytes !== undefined) parts.push(`HBM read ${formatBytes(m.hbm_read_bytes)}`);
  if (m.hbm_write_bytes !== undefined) parts.push(`written ${formatBytes(m.hbm_write_bytes)}`);
  return parts.length > 0 ? `Engines active (whole profile): ${parts.join(', ')}.` : undefined;
}

/** Which device profile mode and warm-up the profiled run recorded with, and why. */
export function captureLine(capture: ProfileCapture): string {
  const why =
    capture.modeFrom === 'profile-mode'
      ? 'set by profile-mode'
      : capture.format === undefined
        ? 'profile-mode auto; the result format was not known'
        : `profile-mode auto: ${escapeMarkdown(capture.format)} is ${capture.modeFrom === 'serving' ? 'a serving format' : 'not a serving format'}`;
  const warmup =
    capture.warmup === undefined
      ? `the runtime's default (${codeSpan(WARMUP_VARIABLE)} not set)`
      : `${escapeMarkdown(capture.warmup)} execution(s) (${codeSpan(WARMUP_VARIABLE)})` +
        (capture.mode === 'model' ? '' : ', which the Neuron docs support in model mode only');
  return `Recorded with device profile mode ${codeSpan(capture.mode)} (${why}); warm-up: ${warmup}.`;
}

/**
 * How many files the profile wrote and where they are: the artifact named at the top of
 * the benchmark (profile-link.ts) once uploaded, else the folder on the runner.
 */
function filesLine(benchmark: BenchmarkReport, profile: ProfileSummary): string {
  if (profile.ntffFiles.length === 0) return 'Files: no NTFF file was written.';
  const files = `${profile.ntffFiles.length} NTFF and ${profile.neffFiles.length} NEFF file(s), ${formatBytes(profile.totalBytes)}`;
  const artifact = benchmark.artifact;
  if (hasUploadedProfile(benchmark) && artifact) {
    return `Files: ${files}, in the artifact ${markdownLink(escapeMarkdown(artifact.name), artifact.url)}.`;
  }
  if (artifact?.warning)
    return `Files: ${files} — not uploaded: ${escapeMarkdown(artifact.warning)}.`;
  return profile.dir ? `Files: ${files} in ${codeSpan(profile.dir)}.` : `Files: ${files}.`;
}

function openHint(profile: ProfileSummary): string | undefined {
  const ntff = profile.ntffFiles[0];
  const neff = profile.neffFiles[0];
  if (!ntff || !neff) return undefined;
  return `Open one: ${codeSpan(`neuron-explorer view -n ${basename(neff)} -s ${basename(ntff)}`)} (add \`--output-format perfetto\` for Perfetto).`;
}

/** `n_fdc71a0b…` reads better than forty hex digits. */
function shortKey(key: string): string {
  return key.length > 14 ? `${key.slice(0, 12)}…` : key;
}

/** A profiled run whose figures are left out of the verdict, and why. */
function contaminationLine(profile: ProfileSummary): string | undefined {
  const reasons = profile.contamination ?? [];
  if (reasons.length === 0) return undefined;
  return (
    `> ⚠️ **Contaminated profile: MFU and MBU are not judged.** ` +
    `${escapeMarkdown(reasons.join('; '))}. Re-run the job; if it recurs, check the runner.`
  );
}

/** Where the figures come from: the profile tables (and their schema) or summary-json. */
function sourceLine(profile: ProfileSummary): string | undefined {
  const source = profile.source;
  if (!source || source.tables + source.summaryJson === 0) return undefined;
  const parts: string[] = [];
  if (source.tables > 0) {
    const schemas = source.schemas.map((s) => escapeMarkdown(s)).join(', ');
    parts.push(`the profile tables (schema ${schemas}) of ${source.tables} profiler call(s)`);
  }
  if (source.summaryJson > 0) parts.push(`summary-json of ${source.summaryJson} profiler call(s)`);
  return `Read from ${parts.join(' and ')}.${logicalCoreNote(source.physicalCores)}`;
}

/** Why MFU is below the profiler's own figure at LNC 2 (src/profile/logical-core.ts). */
function logicalCoreNote(physicalCores: number | undefined): string {
  if (physicalCores === undefined) return '';
  return (
    ` MFU is per logical NeuronCore of ${physicalCores} physical cores (LNC ${physicalCores}): ` +
    `the profiler's documented formula divides by one physical core's Tensor Engine, so the gate ` +
    `divides its figure by ${physicalCores} (AWS does not say how the profiler counts LNC ${physicalCores}).`
  );
}

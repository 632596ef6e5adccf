import type { BenchmarkReport, GateReport } from '../model.js';
import { safeUrl } from './escape.js';
import { artifactLine } from './profile-link.js';
import { baselineLine, type BaselineInfoView } from './baseline-notes.js';

/** `links.summary` is newer than the other links; read it without relying on the type. */
export function summaryLinkOf(report: GateReport): string | undefined {
  const summary: unknown = (report.links as { summary?: unknown }).summary;
  return typeof summary === 'string' && summary !== '' ? summary : undefined;
}

/** "Workflow run · Artifacts · Baseline", each a link; undefined when there is none. */
export function reportLinksLine(report: GateReport): string | undefined {
  const links = [
    linkOrNothing('Workflow run', report.links.run),
    linkOrNothing('Artifacts', report.links.artifact),
    linkOrNothing('Baseline', report.links.baseline),
  ].filter((link): link is string => link !== undefined);
  return links.length > 0 ? `🔗 ${links.join(' · ')}` : undefined;
}

/**
 * The first line of a benchmark: its profile (a link only when NTFF files were uploaded)
 * or artifact, then its baseline (source, records, commit).
 */
export function benchmarkLinksLine(
  benchmark: BenchmarkReport,
  info: BaselineInfoView | undefined,
): string | undefined {
  const parts: string[] = [];
  const artifact = artifactLine(benchmark);
  if (artifact) parts.push(artifact);
  const baseline = info ? baselineLine(info) : undefined;
  if (baseline) parts.push(baseline);
  return parts.length > 0 ? `${parts.join(' · ')}.` : undefined;
}

function linkOrNothing(label: string, url: string | undefined): string | undefined {
  const href = safeUrl(url);
  return href ? `[${label}](${href})` : undefined;
}

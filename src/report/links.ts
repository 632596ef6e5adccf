import type { BenchmarkReport, GateReport } from '../model.js';
import { escapeMarkdown, markdownLink, safeUrl } from './escape.js';
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
 * A benchmark's baseline (source, records, commit) and its artifact, on one line. The
 * artifact is left to the profile block when that block names it.
 */
export function benchmarkLinksLine(
  benchmark: BenchmarkReport,
  info: BaselineInfoView | undefined,
  profileNamesArtifact: boolean,
): string | undefined {
  const parts: string[] = [];
  const baseline = info ? baselineLine(info) : undefined;
  if (baseline) parts.push(baseline);
  const artifact = benchmark.artifact;
  if (artifact && !profileNamesArtifact) {
    const name = escapeMarkdown(artifact.name);
    if (artifact.url) parts.push(`Artifact: ${markdownLink(name, artifact.url)}`);
    else if (artifact.warning)
      parts.push(`Artifact not uploaded: ${escapeMarkdown(artifact.warning)}`);
  }
  return parts.length > 0 ? `${parts.join(' · ')}.` : undefined;
}

function linkOrNothing(label: string, url: string | undefined): string | undefined {
  const href = safeUrl(url);
  return href ? `[${label}](${href})` : undefined;
}

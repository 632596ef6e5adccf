// Where a benchmark's profile is, on one line beside its verdict (the overview table, the
// top of its section): a link only when the uploaded artifact holds NTFF files. An
// artifact of logs and results alone is named for what it holds, never as a profile.

import type { BenchmarkReport } from '../model.js';
import { escapeMarkdown, markdownLink, safeUrl } from './escape.js';
import { formatBytes } from './numbers.js';

/** Whether the benchmark's profile wrote NTFF files and its artifact was uploaded. */
export function hasUploadedProfile(benchmark: BenchmarkReport): boolean {
  const count = ntffCount(benchmark);
  return count > 0 && safeUrl(benchmark.artifact?.url) !== undefined;
}

/** "[2 NTFF, 2 NEFF](url)" for the overview's Profile cell; "—" without an uploaded profile. */
export function profileCell(benchmark: BenchmarkReport): string {
  if (!hasUploadedProfile(benchmark)) {
    return ntffCount(benchmark) > 0 && benchmark.artifact?.warning ? 'not uploaded' : '—';
  }
  return markdownLink(filesLabel(benchmark), benchmark.artifact!.url);
}

/**
 * "Profile: [1 NTFF, 1 NEFF](url) (11.8 MB zipped)", "Artifact (run logs and results, no
 * profile): [name](url)" or why nothing was uploaded; undefined without an artifact.
 */
export function artifactLine(benchmark: BenchmarkReport): string | undefined {
  const artifact = benchmark.artifact;
  if (!artifact) return undefined;
  const name = escapeMarkdown(String(artifact.name));
  if (hasUploadedProfile(benchmark)) {
    const size = typeof artifact.size === 'number' ? ` (${formatBytes(artifact.size)} zipped)` : '';
    return `Profile: ${markdownLink(filesLabel(benchmark), artifact.url)} in ${name}${size}`;
  }
  if (safeUrl(artifact.url)) {
    return `Artifact (run logs and results, no profile): ${markdownLink(name, artifact.url)}`;
  }
  return artifact.warning
    ? `Artifact not uploaded: ${escapeMarkdown(String(artifact.warning))}`
    : undefined;
}

function filesLabel(benchmark: BenchmarkReport): string {
  const neff = Array.isArray(benchmark.profile?.neffFiles) ? benchmark.profile.neffFiles.length : 0;
  return `${ntffCount(benchmark)} NTFF${neff > 0 ? `, ${neff} NEFF` : ''}`;
}

function ntffCount(benchmark: BenchmarkReport): number {
  const files: unknown = benchmark.profile?.ntffFiles;
  return Array.isArray(files) ? files.length : 0;
}

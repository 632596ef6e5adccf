// The two-stage mode for pull requests whose job may not write to the repository (forks).
// Stage 1, the gate on the pull request, uploads its report as the `perf-gate-report`
// artifact. Stage 2, a `workflow_run` job on a GitHub-hosted runner (`mode: comment`),
// downloads it and posts the comment. A fork controls everything stage 1 does, so the
// artifact is untrusted input here: only three fixed file names are read, each size-capped
// and schema-checked, nothing from it becomes a path or is executed, and it must belong to
// the pull request and commit GitHub says the triggering run was for.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { GitHubClient } from './client.js';
import { requestFailed } from './request-error.js';
import { ArtifactDownloadError, downloadArtifactZip, findRunArtifact } from './run-artifacts.js';
import { extractNamedEntries, quoteEntryName } from './unzip.js';

export const REPORT_ARTIFACT_NAME = 'perf-gate-report';

/**
 * `perf-gate-report-<gate key>`: one artifact per gate, since names are unique within a
 * run and the jobs of a matrix each upload one. Characters artifact names refuse become `-`.
 * A re-run's attempt (2, 3, ...) adds `~attempt-<n>`: the run keeps the first attempt's
 * artifact, and uploading its name again is refused (409), so the comment job would post
 * the old report. `~` cannot occur in the key part.
 */
export function reportArtifactName(gateKey: string, attempt = 1): string {
  const base = `${REPORT_ARTIFACT_NAME}-${gateKey.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
  return attempt > 1 ? `${base}${ATTEMPT_MARK}${attempt}` : base;
}

const ATTEMPT_MARK = '~attempt-';

/**
 * The names of the run's report artifacts, one per gate (its newest attempt's), oldest
 * gate first.
 */
export async function listReportArtifacts(
  octokit: GitHubClient,
  options: { owner: string; repo: string; runId: number },
): Promise<string[]> {
  const artifacts = await octokit
    .paginate(octokit.rest.actions.listWorkflowRunArtifacts, {
      owner: options.owner,
      repo: options.repo,
      run_id: options.runId,
      per_page: 100,
    })
    .catch((error: unknown) => {
      throw requestFailed(error, `Listing the artifacts of run ${options.runId}`, 'actions: read');
    });
  const newestOfGate = new Map<string, string>();
  for (const { name } of artifacts.sort((a, b) => a.id - b.id)) {
    if (name !== REPORT_ARTIFACT_NAME && !name.startsWith(`${REPORT_ARTIFACT_NAME}-`)) continue;
    // A Map keeps a key's first place when set again: the gate's order, its newest name.
    newestOfGate.set(name.split(ATTEMPT_MARK)[0]!, name);
  }
  return [...newestOfGate.values()];
}
export const REPORT_JSON = 'report.json';
export const COMMENT_MD = 'comment.md';
export const PR_JSON = 'pr.json';
export const REPORT_ARTIFACT_FILES = [REPORT_JSON, COMMENT_MD, PR_JSON] as const;
export type ReportArtifactFileName = (typeof REPORT_ARTIFACT_FILES)[number];
/** File name → content, as text. */
export type ReportArtifactFiles = Record<ReportArtifactFileName, string>;

/** Largest file read from the artifact; a real report.json is far smaller. */
export const MAX_REPORT_FILE_BYTES = 5 * 1024 * 1024;
/** Largest artifact downloaded: three capped files, compressed. */
const MAX_REPORT_ZIP_BYTES = 3 * MAX_REPORT_FILE_BYTES + 64 * 1024;

/** What stage 1 says the report is for. */
export interface ReportArtifactPr {
  number: number;
  headSha: string;
  gateKey: string;
}

/** Stage 1: the content of the artifact's three files, from the rendered report.json and comment. */
export function reportArtifactFiles(
  reportJson: string,
  comment: string,
  pr: ReportArtifactPr,
): ReportArtifactFiles {
  return {
    [REPORT_JSON]: reportJson,
    [COMMENT_MD]: comment,
    [PR_JSON]: `${JSON.stringify(pr, null, 2)}\n`,
  };
}

export class ReportArtifactError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportArtifactError';
  }
}

export interface DownloadReportArtifactOptions {
  owner: string;
  repo: string;
  /** The run that triggered the `workflow_run` job: `workflow_run.id`. */
  runId: number;
  /** Where the three files are written, under their own fixed names. */
  dir: string;
  log: Logger;
  /** The artifact's name; `perf-gate-report` unless given (see reportArtifactName). */
  name?: string;
}

export interface DownloadedReportArtifact {
  artifactId: number;
  files: ReportArtifactFiles;
  /** Where each file was written in `dir`. */
  paths: Record<ReportArtifactFileName, string>;
}

/**
 * Downloads the run's report artifact and reads its three files; undefined when the run
 * uploaded none (its gate job was skipped, or stopped before the report). Throws
 * ReportArtifactError when the artifact is expired, damaged or holds anything suspicious.
 */
export async function downloadReportArtifact(
  octokit: GitHubClient,
  options: DownloadReportArtifactOptions,
): Promise<DownloadedReportArtifact | undefined> {
  const { owner, repo, runId, log } = options;
  const name = options.name ?? REPORT_ARTIFACT_NAME;
  const artifact = await findRunArtifact(octokit, {
    owner,
    repo,
    runId,
    name,
  }).catch((error: unknown) => {
    throw requestFailed(error, `Listing the artifacts of run ${runId}`, 'actions: read');
  });
  if (!artifact) {
    log.info(`Run ${runId} uploaded no "${name}" artifact: nothing to post.`);
    return undefined;
  }
  if (artifact.expired) {
    throw new ReportArtifactError(
      `the "${name}" artifact of run ${runId} has expired; re-run that workflow to post its report`,
    );
  }
  if (artifact.sizeInBytes > MAX_REPORT_ZIP_BYTES) {
    throw new ReportArtifactError(
      `the "${name}" artifact of run ${runId} is ${artifact.sizeInBytes} bytes, more than a report can be (${MAX_REPORT_ZIP_BYTES}); refusing to download it`,
    );
  }
  const zip = await downloadArtifactZip(octokit, {
    owner,
    repo,
    artifactId: artifact.id,
    maxBytes: MAX_REPORT_ZIP_BYTES,
  }).catch((error: unknown) => {
    // Too large or empty: the artifact's fault, not the request's.
    if (error instanceof ArtifactDownloadError) throw new ReportArtifactError(error.message);
    throw requestFailed(error, `Downloading artifact ${artifact.id}`, 'actions: read');
  });
  const files = readReportZip(zip, log);
  await mkdir(options.dir, { recursive: true });
  const paths = {} as Record<ReportArtifactFileName, string>;
  for (const name of REPORT_ARTIFACT_FILES) {
    paths[name] = join(options.dir, name);
    await writeFile(paths[name], files[name], 'utf8');
  }
  return { artifactId: artifact.id, files, paths };
}

/** The three files of a report artifact's zip, as text. */
export function readReportZip(zip: Uint8Array, log: Logger): ReportArtifactFiles {
  let extracted;
  try {
    extracted = extractNamedEntries(zip, {
      names: REPORT_ARTIFACT_FILES,
      maxEntryBytes: MAX_REPORT_FILE_BYTES,
    });
  } catch (error) {
    throw new ReportArtifactError(
      `the report artifact cannot be read: ${(error as Error).message}`,
    );
  }
  const unsafe = extracted.ignored.filter(isUnsafeEntryName);
  if (unsafe.length > 0) {
    throw new ReportArtifactError(
      `the report artifact holds entries named ${unsafe.map(quoteEntryName).join(', ')}. Stage 1 never writes such paths; the artifact was made by something else, so nothing from it is posted`,
    );
  }
  if (extracted.ignored.length > 0) {
    const names = extracted.ignored.map(quoteEntryName).join(', ');
    log.warning(`The report artifact holds other files, not read: ${names}`);
  }
  const files = {} as ReportArtifactFiles;
  for (const name of REPORT_ARTIFACT_FILES) {
    const data = extracted.files.get(name);
    if (!data) {
      throw new ReportArtifactError(
        `the report artifact has no ${name}; stage 1 and stage 2 must use the same version of neuron-perf-gate`,
      );
    }
    files[name] = decodeUtf8(data, name);
  }
  return files;
}

/** A name that would climb out of a folder, be absolute, or hide control characters. */
function isUnsafeEntryName(name: string): boolean {
  return (
    name.startsWith('/') ||
    name.includes('\\') ||
    /^[a-zA-Z]:/.test(name) ||
    name.split('/').includes('..') ||
    [...name].some((char) => char.charCodeAt(0) < 0x20)
  );
}

function decodeUtf8(data: Buffer, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new ReportArtifactError(`${name} in the report artifact is not UTF-8 text`);
  }
}

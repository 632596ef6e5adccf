// Uploads the profiler's files (NTFF/NEFF) as a workflow artifact. An upload that fails
// is a warning, never an error: the gate's verdict stands whatever happens here.
import {
  DefaultArtifactClient,
  type ArtifactClient,
  type UploadArtifactOptions,
  type UploadArtifactResponse,
} from '@actions/artifact';
import type { Deadline } from '../net/deadline.js';

/** The one method of `@actions/artifact`'s client that the gate uses. */
export type ArtifactUploadClient = Pick<ArtifactClient, 'uploadArtifact'>;

export interface UploadProfileArtifactOptions {
  /** The artifact's name; see `artifactName`. */
  name: string;
  /** Files to put in the zip, each inside `rootDirectory`. */
  files: string[];
  /** Trimmed from every file's path: the zip's paths are relative to it. */
  rootDirectory: string;
  retentionDays: number;
  /** zlib level, 0 (store) to 9. */
  compressionLevel: number;
  /** Defaults to `@actions/artifact`'s client, which talks to GitHub's results service. */
  client?: ArtifactUploadClient;
  /** What the artifact is, for messages: "profile artifact" unless given. */
  label?: string;
  /** The upload takes no signal: when the deadline passes it is given up on. */
  deadline?: Deadline;
}

export type UploadProfileArtifactOutcome =
  { ok: true; id: number; size: number; url?: string } | { ok: false; warning: string };

/**
 * Uploads `files` as one zipped artifact. Never throws: every failure (a missing
 * runtime environment outside GitHub, an HTTP error, a used-up storage quota, files
 * that are gone) comes back as `{ ok: false, warning }` for the caller to log.
 */
export async function uploadProfileArtifact(
  options: UploadProfileArtifactOptions,
): Promise<UploadProfileArtifactOutcome> {
  const subject = `the ${options.label ?? 'profile artifact'} "${options.name}" was not uploaded`;
  if (options.files.length === 0) {
    return { ok: false, warning: `${subject}: there are no profile files to upload` };
  }

  let client = options.client;
  if (!client) {
    const missing = missingRuntimeVariable();
    if (missing) {
      return {
        ok: false,
        warning:
          `${subject}: ${missing} is not set. Artifacts can only be uploaded from a ` +
          'JavaScript action step inside a GitHub Actions job; outside GitHub the ' +
          `files stay in ${options.rootDirectory}`,
      };
    }
    client = new DefaultArtifactClient();
  }

  const uploadOptions: UploadArtifactOptions = {
    retentionDays: options.retentionDays,
    compressionLevel: options.compressionLevel,
  };
  let response: UploadArtifactResponse;
  try {
    const upload = client.uploadArtifact(
      options.name,
      options.files,
      options.rootDirectory,
      uploadOptions,
    );
    response = await (options.deadline?.race(upload, 'the upload') ?? upload);
  } catch (error) {
    return { ok: false, warning: `${subject}: ${describeUploadError(error)}` };
  }

  if (response.id === undefined) {
    return { ok: false, warning: `${subject}: the artifact service returned no artifact id` };
  }
  const url = artifactUrl(response.id);
  return { ok: true, id: response.id, size: response.size ?? 0, ...(url ? { url } : {}) };
}

/**
 * A valid, readable artifact name: `<gate>-<benchmark>[-attempt-<n>]`, e.g.
 * `perf-gate-qwen3-reranker-attempt-1`. Characters GitHub refuses in a name
 * (`"` `:` `<` `>` `|` `*` `?` `\` `/`, CR, LF), whitespace and other punctuation become
 * `-`; runs of `-` collapse. The attempt keeps a re-run's artifact apart from the first
 * run's, since names must be unique within a workflow run.
 */
export function artifactName(gate: string, benchmark: string, attempt: string | undefined): string {
  const parts = [gate, benchmark].map(safeNamePart).filter((part) => part.length > 0);
  if (parts.length === 0) parts.push('perf-gate');
  const attemptPart = attempt === undefined ? '' : safeNamePart(attempt);
  const suffix = attemptPart ? `-attempt-${attemptPart}` : '';
  const base = parts
    .join('-')
    .slice(0, MAX_NAME_LENGTH - suffix.length)
    .replace(/-+$/, '');
  return `${base}${suffix}`;
}

/** Long enough for any real name; GitHub's web UI and download paths stay usable. */
const MAX_NAME_LENGTH = 200;

function safeNamePart(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}._+=@-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
}

/** The artifact's page, when the job's environment says where the run lives. */
function artifactUrl(id: number): string | undefined {
  const repository = process.env.GITHUB_REPOSITORY;
  const runId = process.env.GITHUB_RUN_ID;
  if (!repository || !runId) return undefined;
  const server = (process.env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  return `${server}/${repository}/actions/runs/${runId}/artifacts/${id}`;
}

/** The first variable the results service client needs that the environment lacks. */
function missingRuntimeVariable(): string | undefined {
  for (const name of ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RESULTS_URL']) {
    if (!process.env[name]) return name;
  }
  return undefined;
}

function describeUploadError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = firstLine(error.message);
  // The client wraps its own errors (UsageError, NetworkError) in plain Errors whose
  // message starts "Failed to <Method>: ", so they are told apart by their text.
  if (
    error.name === 'UsageError' ||
    /storage quota has been hit|insufficient usage/i.test(message)
  ) {
    return (
      "the repository's artifact storage quota is used up (the service answered " +
      '"insufficient usage"). Delete old artifacts or raise the Actions storage limit; ' +
      'the storage used can take some hours to be recalculated'
    );
  }
  if (error.name === 'GHESNotSupportedError') {
    return `${message} (GITHUB_SERVER_URL is ${process.env.GITHUB_SERVER_URL})`;
  }
  if (error.name === 'NetworkError' || message.includes('Unable to make request:')) {
    return `${message}; check that the runner can reach GitHub's artifact endpoints`;
  }
  // Errors from blob storage (RestError) carry the HTTP status and the storage error
  // code apart from their message.
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  if (typeof statusCode === 'number' && !message.includes(String(statusCode))) {
    const detail = typeof code === 'string' && !message.includes(code) ? ` ${code}` : '';
    return `${message} (HTTP ${statusCode}${detail})`;
  }
  return message;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim().length > 0) ?? text;
  return line.trim();
}

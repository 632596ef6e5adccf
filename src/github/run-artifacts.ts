// The artifacts a workflow run uploaded, found by name and downloaded through the REST API
// (the job needs `permissions: actions: read`). The report artifact of the two-stage mode
// and the artifact baseline store both read them this way.
import type { GitHubClient } from './client.js';

/**
 * A download that is not an artifact the gate can read: larger than allowed, or empty. Its
 * message says what is wrong; the request itself went through.
 */
export class ArtifactDownloadError extends Error {
  override readonly name = 'ArtifactDownloadError';
}

export interface RunArtifact {
  id: number;
  name: string;
  sizeInBytes: number;
  expired: boolean;
  createdAt?: string;
}

/** The newest artifact of run `runId` named exactly `name`, or undefined when it has none. */
export async function findRunArtifact(
  octokit: GitHubClient,
  options: { owner: string; repo: string; runId: number; name: string },
): Promise<RunArtifact | undefined> {
  const artifacts = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, {
    owner: options.owner,
    repo: options.repo,
    run_id: options.runId,
    name: options.name,
    per_page: 100,
  });
  // A re-run's attempt may upload the name again; the newest has the largest id.
  const newest = artifacts
    .filter((artifact) => artifact.name === options.name)
    .sort((a, b) => b.id - a.id)[0];
  if (!newest) return undefined;
  return {
    id: newest.id,
    name: newest.name,
    sizeInBytes: newest.size_in_bytes,
    expired: newest.expired,
    ...(newest.created_at ? { createdAt: newest.created_at } : {}),
  };
}

/**
 * The artifact's zip. GitHub answers with a redirect to short-lived blob storage, which
 * fetch follows (dropping the token, as the blob URL is signed). At most `maxBytes` are
 * read, whatever the size the listing gave.
 */
export async function downloadArtifactZip(
  octokit: GitHubClient,
  options: { owner: string; repo: string; artifactId: number; maxBytes: number },
): Promise<Buffer> {
  const response = await octokit.rest.actions.downloadArtifact({
    owner: options.owner,
    repo: options.repo,
    artifact_id: options.artifactId,
    archive_format: 'zip',
    // The raw stream, so that an oversized answer is cut off rather than buffered.
    request: { parseSuccessResponseBody: false },
  });
  return readCapped(response.data as unknown, options.maxBytes, options.artifactId);
}

async function readCapped(body: unknown, maxBytes: number, artifactId: number): Promise<Buffer> {
  const tooLarge = () =>
    new ArtifactDownloadError(
      `artifact ${artifactId} is larger than the ${maxBytes} bytes allowed`,
    );
  if (body instanceof ArrayBuffer) {
    if (body.byteLength > maxBytes) throw tooLarge();
    return Buffer.from(body);
  }
  if (!(body instanceof ReadableStream)) {
    throw new ArtifactDownloadError(`artifact ${artifactId}: the download returned no content`);
  }
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

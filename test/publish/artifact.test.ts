// The real @actions/artifact client uploading to a loopback results service; the zip
// that arrives is opened and compared with the files on disk.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { artifactName, uploadProfileArtifact } from '../../src/publish/artifact.js';
import { ResultsService } from '../support/results-service.js';
import { readZip } from './zip.js';

const MB = 1024 * 1024;

/** Relative path → content: text, JSON, an empty file and NTFF/NEFF-like random binaries. */
const PROFILE: Record<string, Buffer> = {
  'summary.json': Buffer.from(JSON.stringify({ mfu: 0.41, mbu: 0.63 }, null, 2)),
  'notes.txt': Buffer.from('engine activity\n'.repeat(2000)),
  'empty.log': Buffer.alloc(0),
  'neff/model.neff': randomBytes(700 * 1024),
  'ntff/rank0/profile_0.ntff': randomBytes(5 * MB),
  'ntff/rank1/nested/profile_1.ntff': randomBytes(4 * MB),
};

let root: string;
let profileDir: string;
let files: string[];
let service: ResultsService;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'perf-gate-artifact-'));
  profileDir = join(root, 'profile');
  files = [];
  for (const [relative, content] of Object.entries(PROFILE)) {
    const path = join(profileDir, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    files.push(path);
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  service = await ResultsService.start();
  vi.stubEnv('ACTIONS_RUNTIME_TOKEN', service.runtimeToken);
  vi.stubEnv('ACTIONS_RESULTS_URL', `${service.url}/`);
  // @actions/artifact refuses to run when the server is not github.com (GHES).
  vi.stubEnv('GITHUB_SERVER_URL', undefined);
  vi.stubEnv('GITHUB_REPOSITORY', 'acme/vllm-neuron');
  vi.stubEnv('GITHUB_RUN_ID', '987654321');
  vi.stubEnv('GITHUB_RETENTION_DAYS', undefined);
  vi.stubEnv('ACTIONS_ARTIFACT_UPLOAD_CONCURRENCY', undefined);
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) {
    vi.stubEnv(name, undefined);
  }
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await service.close();
});

function upload(overrides: Partial<Parameters<typeof uploadProfileArtifact>[0]> = {}) {
  return uploadProfileArtifact({
    name: 'perf-gate-qwen3-reranker-attempt-1',
    files,
    rootDirectory: profileDir,
    retentionDays: 14,
    compressionLevel: 6,
    ...overrides,
  });
}

describe('uploadProfileArtifact against the results service', () => {
  it('uploads every file, and the zip that arrives holds them byte for byte', async () => {
    const outcome = await upload();

    const artifact = service.artifacts.get('perf-gate-qwen3-reranker-attempt-1');
    expect(artifact?.finalized).toBe(true);
    expect(outcome).toEqual({
      ok: true,
      id: artifact!.id,
      size: artifact!.blob!.length,
      url: `https://github.com/acme/vllm-neuron/actions/runs/987654321/artifacts/${artifact!.id}`,
    });

    const entries = readZip(artifact!.blob!);
    const contents = Object.fromEntries(
      entries.filter((e) => !e.isDirectory).map((e) => [e.name, e.data]),
    );
    expect(Object.keys(contents).sort()).toEqual(Object.keys(PROFILE).sort());
    for (const [relative, content] of Object.entries(PROFILE)) {
      expect(contents[relative]!.equals(content), relative).toBe(true);
      expect(contents[relative]!.equals(await readFile(join(profileDir, relative)))).toBe(true);
    }
    // Text compresses at level 6; the random profiles cannot.
    expect(entries.find((e) => e.name === 'notes.txt')!.compressedSize).toBeLessThan(
      PROFILE['notes.txt']!.length / 10,
    );

    // The protocol as the client spoke it.
    const [create] = service.calls('CreateArtifact');
    expect(create!.json).toMatchObject({
      workflow_run_backend_id: service.backend.workflowRunBackendId,
      workflow_job_run_backend_id: service.backend.workflowJobRunBackendId,
      name: 'perf-gate-qwen3-reranker-attempt-1',
      version: 7,
      mime_type: 'application/zip',
    });
    const expiresInDays = (Date.parse(artifact!.expiresAt!) - Date.now()) / (24 * 60 * 60 * 1000);
    expect(expiresInDays).toBeGreaterThan(13.9);
    expect(expiresInDays).toBeLessThan(14.1);
    // Over 8 MiB of zip: at least two 8 MiB blocks, committed in order by one block list.
    expect(service.calls('PutBlock').length).toBeGreaterThanOrEqual(2);
    expect(artifact!.blockIds).toHaveLength(service.calls('PutBlock').length);
    expect(service.calls('PutBlockList')).toHaveLength(1);
    expect(artifact!.blobContentType).toBe('application/zip');
    const [finalize] = service.calls('FinalizeArtifact');
    expect(finalize!.json).toMatchObject({
      size: String(artifact!.blob!.length),
      hash: artifact!.hash,
    });
    expect(service.requests.map((r) => r.operation)).toEqual([
      'CreateArtifact',
      ...service.calls('PutBlock').map(() => 'PutBlock'),
      'PutBlockList',
      'FinalizeArtifact',
    ]);
    expect(service.requests.every((r) => r.status >= 200 && r.status < 300)).toBe(true);
  });

  it('stores entries uncompressed at compression level 0 and leaves out the url outside a run', async () => {
    vi.stubEnv('GITHUB_RUN_ID', undefined);
    const outcome = await upload({ files: files.slice(0, 3), compressionLevel: 0 });

    expect(outcome.ok).toBe(true);
    expect(outcome).not.toHaveProperty('url');
    const artifact = service.artifacts.get('perf-gate-qwen3-reranker-attempt-1')!;
    const entries = readZip(artifact.blob!);
    expect(entries.map((e) => e.name).sort()).toEqual(['empty.log', 'notes.txt', 'summary.json']);
    expect(entries.every((e) => e.method === 0)).toBe(true);
  });

  it('turns a 4xx from CreateArtifact into a warning naming the status, without retrying', async () => {
    service.failNext('CreateArtifact', { status: 400, msg: 'artifact name is too long' });

    const outcome = await upload();

    expect(outcome.ok).toBe(false);
    const warning = outcome.ok ? '' : outcome.warning;
    expect(warning).toContain('perf-gate-qwen3-reranker-attempt-1');
    expect(warning).toContain('Failed request: (400) Bad Request');
    expect(warning).toContain('artifact name is too long');
    expect(service.calls('CreateArtifact')).toHaveLength(1);
    expect(service.calls('PutBlock')).toHaveLength(0);
  });

  it('retries transient 5xx answers from the results service and blob storage, then succeeds', async () => {
    service.failNext('CreateArtifact', { status: 503, msg: 'service unavailable' });
    service.failNext('PutBlock', { status: 500 });

    const outcome = await upload({ files: files.slice(0, 4) });

    expect(outcome.ok).toBe(true);
    expect(service.calls('CreateArtifact').map((r) => r.status)).toEqual([503, 200]);
    expect(service.calls('PutBlock').map((r) => r.status)).toEqual([500, 201]);
    const artifact = service.artifacts.get('perf-gate-qwen3-reranker-attempt-1')!;
    expect(artifact.finalized).toBe(true);
    const data = readZip(artifact.blob!).find((e) => e.name === 'neff/model.neff')!.data;
    expect(data.equals(PROFILE['neff/model.neff']!)).toBe(true);
  });

  it('reports a used-up storage quota ("insufficient usage") clearly', async () => {
    service.failNext('CreateArtifact', {
      status: 403,
      msg: 'insufficient usage to create artifact',
    });

    const outcome = await upload();

    expect(outcome).toEqual({ ok: false, warning: expect.stringContaining('quota is used up') });
    expect(service.calls('CreateArtifact')).toHaveLength(1);
  });

  it('names the status when blob storage refuses a block', async () => {
    service.failNext('PutBlock', {
      status: 403,
      code: 'AuthenticationFailed',
      msg: 'Signature not valid in the specified time frame',
      times: 10,
    });

    const outcome = await upload({ files: files.slice(0, 2) });

    expect(outcome.ok).toBe(false);
    const warning = outcome.ok ? '' : outcome.warning;
    expect(warning).toContain(
      'Signature not valid in the specified time frame (HTTP 403 AuthenticationFailed)',
    );
    expect(service.calls('PutBlock')).toHaveLength(1);
    expect(service.calls('FinalizeArtifact')).toHaveLength(0);
  });

  it('warns when an artifact of that name already exists in the run (a re-run)', async () => {
    expect((await upload({ files: files.slice(0, 1) })).ok).toBe(true);
    const second = await upload({ files: files.slice(0, 1) });
    expect(second).toEqual({ ok: false, warning: expect.stringContaining('(409)') });
  });

  it('warns without any request when ACTIONS_RUNTIME_TOKEN is missing (outside GitHub)', async () => {
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', undefined);

    const outcome = await upload();

    expect(outcome.ok).toBe(false);
    const warning = outcome.ok ? '' : outcome.warning;
    expect(warning).toContain('ACTIONS_RUNTIME_TOKEN is not set');
    expect(warning).toContain(profileDir);
    expect(service.requests).toHaveLength(0);
  });

  it('warns when a file has gone missing before the upload', async () => {
    const outcome = await upload({ files: [join(profileDir, 'ntff/rank9/gone.ntff')] });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.warning).toContain(
      `File ${join(profileDir, 'ntff/rank9/gone.ntff')} does not exist`,
    );
    expect(service.requests).toHaveLength(0);
  });

  it('warns when there is nothing to upload', async () => {
    const outcome = await upload({ files: [] });
    expect(outcome).toEqual({ ok: false, warning: expect.stringContaining('no profile files') });
  });
});

describe('uploadProfileArtifact with a given client', () => {
  it('passes the options through and turns a thrown error into a warning', async () => {
    const calls: unknown[][] = [];
    const outcome = await upload({
      client: {
        uploadArtifact: async (...args: unknown[]) => {
          calls.push(args);
          throw new Error('Failed to FinalizeArtifact: something broke\nmore detail');
        },
      },
    });
    expect(calls[0]).toEqual([
      'perf-gate-qwen3-reranker-attempt-1',
      files,
      profileDir,
      { retentionDays: 14, compressionLevel: 6 },
    ]);
    expect(outcome).toEqual({
      ok: false,
      warning:
        'the profile artifact "perf-gate-qwen3-reranker-attempt-1" was not uploaded: Failed to FinalizeArtifact: something broke',
    });
  });

  it('uses the server URL from the environment for the artifact link', async () => {
    vi.stubEnv('GITHUB_SERVER_URL', 'https://example.ghe.com/');
    const outcome = await upload({ client: { uploadArtifact: async () => ({ id: 7, size: 3 }) } });
    expect(outcome).toEqual({
      ok: true,
      id: 7,
      size: 3,
      url: 'https://example.ghe.com/acme/vllm-neuron/actions/runs/987654321/artifacts/7',
    });
  });
});

describe('artifactName', () => {
  const forbidden = /["':<>|*?\r\n\\/\s]/;

  it('joins gate, benchmark and attempt readably', () => {
    expect(artifactName('perf-gate', 'qwen3-reranker', '1')).toBe(
      'perf-gate-qwen3-reranker-attempt-1',
    );
    expect(artifactName('perf-gate', 'qwen3-reranker', undefined)).toBe('perf-gate-qwen3-reranker');
    expect(artifactName('perf-gate', 'llama', '')).toBe('perf-gate-llama');
  });

  it('replaces every character GitHub refuses, and whitespace', () => {
    const name = artifactName('perf gate', 'Qwen/Qwen3: "rerank" <bf16> | tp*2? a\\b\r\nc', '2');
    expect(name).toBe('perf-gate-Qwen-Qwen3-rerank-bf16-tp-2-a-b-c-attempt-2');
    expect(name).not.toMatch(forbidden);
  });

  it('never returns an empty or over-long name', () => {
    expect(artifactName('', '///', undefined)).toBe('perf-gate');
    const long = artifactName('perf-gate', 'x'.repeat(500), '3');
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long.endsWith('-attempt-3')).toBe(true);
  });
});

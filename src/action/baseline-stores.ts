// The configured baseline store of an action run: where the baseline is read from, and
// how this run's results are written back when the update policy allows it.

import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactBaselineStore, baselineArtifactName } from '../baseline/artifact-store.js';
import { fileBaselineStoreFor, writeBaselineFile } from '../baseline/file-store.js';
import { openRecordBackend } from '../baseline/open-backend.js';
import type { AppendResult, RecordBackend } from '../baseline/record-backend.js';
import type { BaselineRecord } from '../baseline/record.js';
import { RecordBaselineStore } from '../baseline/record-store.js';
import { DEFAULT_S3_DEADLINE_MS } from '../baseline/s3/s3-record-store.js';
import type { BaselineStore } from '../baseline/types.js';
import type { GateConfig } from '../config/types.js';
import type { StoredRecordSource } from '../history/read.js';
import { errorMessage, usageError } from '../errors.js';
import type { GitHubClient } from '../github/client.js';
import type { GitHubContext } from '../github/event.js';
import type { Logger } from '../log.js';
import type { BenchmarkResult } from '../model.js';
import type { Deadline } from '../net/deadline.js';
import { uploadBaselineArtifact } from './upload-baseline.js';

/** How long the s3 and postgres stores retry a call at most: their own default. */
const STORE_RETRY_MS = DEFAULT_S3_DEADLINE_MS;

export interface StoreContext {
  config: GateConfig;
  github: GitHubContext;
  gateKey: string;
  /** The branch whose baseline this run is compared with (a pull request's base). */
  baselineBranch?: string;
  workspace: string;
  log: Logger;
  /** Needed by the artifact store only. */
  octokit?: GitHubClient;
  /** The github-token input: the git-branch store pushes with it when checkout kept none. */
  token?: string;
  /** Time limit of each git call of the git-branch store, and each S3 request. */
  networkTimeoutMs?: number;
  /**
   * The publish phase's length: the s3 and postgres stores retry a call no longer than
   * this (nor than their own 120 s), before the benchmarks as after them.
   */
  publishTimeoutMs?: number;
  /** The publish phase's: the writes happen in it. */
  deadline?: Deadline;
}

/** Writes a run's results to the store it was read from: one of the two. */
export interface BaselineWriter {
  /** Appends records (the record stores: git-branch, s3, postgres). */
  appendRecords?(records: BaselineRecord[]): Promise<string>;
  /** Replaces the stored results (file, artifact): only accepted results are given. */
  writeResults?(results: BenchmarkResult[]): Promise<string>;
}

export interface ConfiguredStore {
  store: BaselineStore;
  writer: BaselineWriter;
  /** Record stores: every stored record, for the history and the dashboard. */
  history?: StoredRecordSource;
  /** Record stores: where the records are, for messages and the dashboard's source line. */
  description?: string;
  /** Releases the store's connections at the end of the run (postgres). */
  close?: () => Promise<void>;
  /** Record stores: keeps the records of open regressions out of the baseline. */
  holdOut?: RecordBaselineStore['holdOut'];
  /** Record stores: compares with the branch's records since its open regressions. */
  compareWithCurrentLevel?: RecordBaselineStore['compareWithCurrentLevel'];
}

export async function configuredStore(context: StoreContext): Promise<ConfiguredStore> {
  const { config } = context;
  switch (config.baselineStore) {
    case 'file':
      return fileStore(config, context.workspace);
    case 'artifact':
      return artifactStore(context);
    case 'git-branch':
      return recordStore(context, await gitBackend(context));
    case 's3':
    case 'postgres':
      return recordStore(context, await serviceBackend(context));
  }
}

function fileStore(config: GateConfig, workspace: string): ConfiguredStore {
  const path = config.baselinePaths[0];
  if (path === undefined) {
    // Nothing to read, and nothing to write: say so when a run would have stored its results
    // (never upload an artifact instead: that is the artifact store's job).
    return {
      store: fileBaselineStoreFor(config),
      writer: {
        writeResults: () =>
          Promise.reject(
            usageError(
              "baseline-store 'file' has no file to write: give baseline-path, the baseline JSON file the store reads and each storing run replaces (it need not exist before the first run), or choose baseline-store git-branch or artifact",
            ),
          ),
      },
    };
  }
  return {
    // The first run finds no file: no baseline yet, and storing creates it.
    store: fileBaselineStoreFor(config, { createdOnWrite: path }),
    writer: {
      writeResults: async (results) => {
        await writeBaselineFile(path, results, { root: workspace });
        return `baseline file ${path} written`;
      },
    },
  };
}

function artifactStore(context: StoreContext): ConfiguredStore {
  const { github, octokit } = context;
  if (!octokit) {
    throw usageError(
      "baseline-store 'artifact' needs the GitHub API: give github-token (the job needs permissions: actions: read)",
    );
  }
  const only =
    context.config.benchmarks.length === 1 ? context.config.benchmarks[0]?.name : undefined;
  const store = new ArtifactBaselineStore({
    octokit,
    owner: github.repository.owner,
    repo: github.repository.repo,
    runId: github.runId,
    defaultBranch: context.baselineBranch ?? github.defaultBranch ?? 'main',
    window: context.config.baselineWindow,
    fallbackName: only ?? 'benchmark',
    log: context.log,
    name: baselineArtifactName(context.gateKey),
  });
  const outDir = context.config.outDir;
  return {
    store,
    writer: {
      writeResults: (results) =>
        uploadBaselineArtifact(results, outDir, context.gateKey, context.deadline),
    },
  };
}

/** The data branch of the workspace's origin, which must not be the default branch. */
async function gitBackend(context: StoreContext): Promise<RecordBackend> {
  const { config, github } = context;
  // Records pushed onto the default branch would land in everyone's history.
  if (github.defaultBranch !== undefined && config.baselineBranch === github.defaultBranch) {
    throw usageError(
      `baseline-branch is '${config.baselineBranch}', the repository's default branch: the git-branch store pushes a commit of records to that branch on every stored run. Give it a branch of its own, such as the default perf-gate-data (created on first use).`,
    );
  }
  const scratchRoot = process.env.RUNNER_TEMP || tmpdir();
  await mkdir(scratchRoot, { recursive: true });
  const workDir = await mkdtemp(join(scratchRoot, 'perf-gate-'));
  return openRecordBackend({
    kind: 'git-branch',
    repoDir: context.workspace,
    branch: config.baselineBranch,
    workDir,
    ...(context.token ? { token: { value: context.token, serverUrl: github.serverUrl } } : {}),
    ...(context.networkTimeoutMs ? { networkTimeoutMs: context.networkTimeoutMs } : {}),
    ...(context.deadline ? { deadline: context.deadline } : {}),
  });
}

/** The s3 or postgres store the config names (checked complete by config/store-settings.ts). */
function serviceBackend(context: StoreContext): Promise<RecordBackend> {
  const { config } = context;
  // The stores retry for 120 s by default; the publish phase's bound (PERF_GATE_PUBLISH_TIMEOUT)
  // caps that, so an unreachable store costs no more than a stuck GitHub would.
  const retryFor =
    context.publishTimeoutMs !== undefined
      ? { deadlineMs: Math.min(STORE_RETRY_MS, context.publishTimeoutMs) }
      : {};
  if (config.baselineStore === 's3') {
    const s3 = config.baselineS3;
    if (!s3) throw usageError("baseline-store 's3' needs baseline-s3-bucket");
    // An S3-compatible service (MinIO, the tests' server) rarely has per-bucket host names.
    return openRecordBackend({
      kind: 's3',
      ...s3,
      ...(s3.endpoint ? { forcePathStyle: true } : {}),
      ...retryFor,
      ...(context.networkTimeoutMs ? { requestTimeoutMs: context.networkTimeoutMs } : {}),
    });
  }
  const connectionString = config.baselinePostgresUrl;
  if (!connectionString) throw usageError("baseline-store 'postgres' needs baseline-postgres-url");
  return openRecordBackend({ kind: 'postgres', connectionString, ...retryFor });
}

/** A store of records (any RecordBackend): the baseline, the history, and the writer. */
export function recordStore(context: StoreContext, backend: RecordBackend): ConfiguredStore {
  const { config, github } = context;
  const serverUrl = github.serverUrl.replace(/\/$/, '');
  const repository = `${github.repository.owner}/${github.repository.repo}`;
  // The data branch is named as before (its runs' logs and the docs say "perf-gate-data").
  const where = config.baselineStore === 'git-branch' ? config.baselineBranch : backend.description;
  const store = new RecordBaselineStore(backend, {
    gateKey: context.gateKey,
    window: config.baselineWindow,
    acceptAfter: config.acceptAfter,
    ...(context.baselineBranch ? { defaultBranch: context.baselineBranch } : {}),
    match: config.baselineMatch,
    label: where,
    ...(github.repository.owner
      ? { commitUrl: (sha: string) => `${serverUrl}/${repository}/commit/${sha}` }
      : {}),
  });
  return {
    store,
    history: backend,
    description: backend.description,
    holdOut: (paths, by) => store.holdOut(paths, by),
    compareWithCurrentLevel: (levels) => store.compareWithCurrentLevel(levels),
    writer: {
      appendRecords: async (records) => {
        const stored = await backend.appendRecords(records, { keep: config.baselineKeep });
        return [appendMessage(where, stored), ...(await tidied(backend, context.gateKey))].join(
          '\n',
        );
      },
    },
    ...(backend.close ? { close: () => backend.close!() } : {}),
  };
}

/** The store's tidying after a write, as log lines; a failure is told, never thrown. */
async function tidied(backend: RecordBackend, gateKey: string): Promise<string[]> {
  if (!backend.tidy) return [];
  try {
    return [await backend.tidy(gateKey)];
  } catch (error) {
    return [
      `the records are stored, but tidying ${backend.description} failed (${errorMessage(error)}); the next stored run tries again`,
    ];
  }
}

/** "3 record(s) added to perf-gate-data @ abc1234 (1 attempt(s), 2 old record(s) pruned)". */
export function appendMessage(where: string, result: AppendResult): string {
  const at = result.commit ? ` @ ${result.commit.slice(0, 7)}` : '';
  const pruned = result.pruned.length > 0 ? `, ${result.pruned.length} old record(s) pruned` : '';
  return `${result.added.length} record(s) added to ${where}${at} (${result.attempts} attempt(s)${pruned})`;
}

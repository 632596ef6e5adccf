// The loopback GitHub API for the tests of one file: a fresh API and log for each test, a
// client of the gate's own kind talking to it, and after each test a check that every request
// fitted GitHub's OpenAPI description.
import { afterEach, beforeEach, expect } from 'vitest';
import {
  createGitHubClient,
  type GitHubClient,
  type GitHubClientOptions,
} from '../../src/github/client.js';
import { MemoryLogger } from '../../src/log.js';
import { startGitHubApi, type GitHubApi, type StartOptions } from './github-api.js';

export type TestClientOptions = Partial<Omit<GitHubClientOptions, 'baseUrl' | 'log'>>;

export interface GitHubTestOptions extends StartOptions {
  /** Settings of the file's clients, over the defaults: writes unpaced, a second lasts 1 ms. */
  client?: TestClientOptions;
}

export interface GitHubTest {
  /** The current test's API. */
  readonly api: GitHubApi;
  /** The current test's client, made on first use with the file's settings. */
  readonly octokit: GitHubClient;
  /** What the current test's clients logged. */
  readonly log: MemoryLogger;
  /** Another client of the current test's API and log, with these settings over the file's. */
  client(options?: TestClientOptions): GitHubClient;
}

/** Checks that every request `api` took fitted GitHub's OpenAPI description, and closes it. */
export async function checkAndClose(api: GitHubApi): Promise<void> {
  try {
    expect(api.violations).toEqual([]);
  } finally {
    await api.close();
  }
}

/** Registers the beforeEach and afterEach that start, check and close the API. */
export function useGitHubApi(options: GitHubTestOptions = {}): GitHubTest {
  const { client: clientOptions, ...startOptions } = options;
  let api: GitHubApi | undefined;
  let log = new MemoryLogger();
  let octokit: GitHubClient | undefined;

  beforeEach(async () => {
    api = await startGitHubApi(startOptions);
    log = new MemoryLogger();
    octokit = undefined;
  });

  afterEach(async () => {
    const finished = api;
    api = undefined;
    if (finished) await checkAndClose(finished);
  });

  const current = (): GitHubApi => {
    if (!api) throw new Error('the loopback GitHub API runs only inside a test');
    return api;
  };
  const client = (overrides: TestClientOptions = {}): GitHubClient =>
    createGitHubClient({
      token: 'ghs_test',
      waitUnitMs: 1,
      paceWrites: false,
      ...clientOptions,
      ...overrides,
      baseUrl: current().url,
      log,
    });

  return {
    get api() {
      return current();
    },
    get octokit() {
      return (octokit ??= client());
    },
    get log() {
      return log;
    },
    client,
  };
}

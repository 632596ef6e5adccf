// The artifact baseline store against the loopback GitHub API: runs and their
// `perf-gate-baseline` artifacts are seeded, and the store finds the right one through real
// octokit requests (runs listing, artifact listing, the zip behind the 302).
import { describe, expect, it } from 'vitest';
import {
  ArtifactBaselineStore,
  BASELINE_ARTIFACT_FILE,
  BASELINE_ARTIFACT_NAME,
  baselineArtifactFiles,
} from '../../src/baseline/artifact-store.js';
import type { BenchmarkResult } from '../../src/model.js';
import type { GitHubApi } from '../support/github-api.js';
import { useGitHubApi } from '../support/github-test.js';

const github = useGitHubApi({ owner: 'octo-org', repo: 'inf2-bench' });
/** The job's own run, still in progress. */
let currentRunId: number;

function result(name: string, throughput: number[]): BenchmarkResult {
  return {
    name,
    format: 'vllm-bench-serve',
    metrics: [
      { id: 'throughput', unit: 'tok/s', direction: 'higher-is-better', values: throughput },
    ],
    runs: throughput.map((_, i) => ({
      index: i + 1,
      kind: 'clean',
      ok: true,
      durationMs: 60_000,
      exitCode: 0,
      timedOut: false,
    })),
  };
}

/** A finished run of perf.yml; with `throughput`, it uploaded a baseline artifact. */
function seedRun(
  fields: Parameters<GitHubApi['state']['addWorkflowRun']>[0] = {},
  throughput?: number[],
  createdAt = new Date('2026-03-01T03:00:00Z'),
) {
  const run = github.api.state.addWorkflowRun({ event: 'schedule', ...fields });
  if (throughput) {
    github.api.state.addArtifact({
      runId: run.id,
      name: BASELINE_ARTIFACT_NAME,
      files: baselineArtifactFiles([result('llama3-8b-tp2', throughput)], createdAt),
    });
  }
  return run;
}

function seedCurrentRun(event = 'pull_request', headBranch = 'faster-decode') {
  currentRunId = github.api.state.addWorkflowRun({ event, headBranch, status: 'in_progress' }).id;
}

function load(window = 1) {
  return new ArtifactBaselineStore({
    octokit: github.octokit,
    owner: 'octo-org',
    repo: 'inf2-bench',
    runId: currentRunId,
    defaultBranch: 'main',
    window,
    fallbackName: 'benchmark',
    log: github.log,
  }).load();
}

function throughputOf(benchmarks: BenchmarkResult[] | undefined): number[] | undefined {
  return benchmarks?.find((b) => b.name === 'llama3-8b-tp2')?.metrics[0]?.values;
}

describe('ArtifactBaselineStore', () => {
  it("takes the newest successful default-branch run's artifact", async () => {
    seedRun({ event: 'push' }, [1400], new Date('2026-02-27T03:00:00Z'));
    const newest = seedRun({ event: 'schedule' }, [1500], new Date('2026-02-28T03:00:00Z'));
    // Newer, but not usable: failed, another branch, a pull request from a branch called
    // main (a fork's), another workflow.
    seedRun({ conclusion: 'failure' }, [1]);
    seedRun({ event: 'push', headBranch: 'faster-decode' }, [2]);
    seedRun({ event: 'pull_request', headBranch: 'main' }, [3]);
    seedRun({ workflow: 'nightly-other.yml' }, [4]);
    seedCurrentRun();

    const baseline = await load();

    expect(throughputOf(baseline?.benchmarks)).toEqual([1500]);
    expect(baseline?.source).toContain(`artifact perf-gate-baseline of run ${newest.id}`);
    expect(baseline?.source).toContain(newest.headSha.slice(0, 7));
    const runsListing = github.api.requests.find(
      (r) => r.path.endsWith('/runs') && r.method === 'GET',
    );
    expect(runsListing?.query.get('branch')).toBe('main');
    expect(runsListing?.query.get('status')).toBe('success');
  });

  it('skips runs without the artifact, or with an expired one', async () => {
    const withBaseline = seedRun({ event: 'push' }, [1450]);
    const expired = seedRun({ event: 'push' });
    github.api.state.addArtifact({
      runId: expired.id,
      name: BASELINE_ARTIFACT_NAME,
      files: baselineArtifactFiles([result('llama3-8b-tp2', [9])]),
      expired: true,
    });
    const profileOnly = seedRun({ event: 'push' });
    github.api.state.addArtifact({
      runId: profileOnly.id,
      name: 'perf-gate-llama3-8b-tp2',
      files: { 'a.ntff': 'x' },
    });
    seedRun({ event: 'schedule' });
    seedCurrentRun('schedule', 'main');

    const baseline = await load();

    expect(throughputOf(baseline?.benchmarks)).toEqual([1450]);
    expect(baseline?.source).toContain(String(withBaseline.id));
    // The expired artifact's zip was never asked for.
    expect(github.api.requests.filter((r) => r.path.endsWith('/zip'))).toHaveLength(1);
  });

  it("never takes the current run's own artifact", async () => {
    seedRun({ event: 'push' }, [1300]);
    const current = seedRun({ event: 'push' }, [1999]);
    currentRunId = current.id;

    expect(throughputOf((await load())?.benchmarks)).toEqual([1300]);
  });

  it('pools the newest `window` artifacts, newest first', async () => {
    seedRun({ event: 'push' }, [1300], new Date('2026-02-26T03:00:00Z'));
    seedRun({ event: 'push' }, [1400], new Date('2026-02-27T03:00:00Z'));
    seedRun({ event: 'push' }, [1500], new Date('2026-02-28T03:00:00Z'));
    seedCurrentRun();

    const baseline = await load(2);

    expect(throughputOf(baseline?.benchmarks)).toEqual([1500, 1400]);
    expect(baseline?.source).toMatch(
      /^artifact perf-gate-baseline of runs \d+ \(\w{7}\), \d+ \(\w{7}\)$/,
    );
  });

  it('skips a damaged artifact, with a warning, and takes an older one', async () => {
    seedRun({ event: 'push' }, [1350]);
    const damaged = seedRun({ event: 'push' });
    github.api.state.addArtifact({
      runId: damaged.id,
      name: BASELINE_ARTIFACT_NAME,
      files: { 'other.json': '{}' },
    });
    const invalid = seedRun({ event: 'push' });
    github.api.state.addArtifact({
      runId: invalid.id,
      name: BASELINE_ARTIFACT_NAME,
      files: {
        [BASELINE_ARTIFACT_FILE]: '{"kind": "neuron-perf-gate-baseline", "schemaVersion": 1}',
      },
    });
    seedCurrentRun();

    const baseline = await load();

    expect(throughputOf(baseline?.benchmarks)).toEqual([1350]);
    const warnings = github.log.lines.filter((l) => l.startsWith('warning:')).join('\n');
    expect(warnings).toContain(`run ${damaged.id} has no baseline.json`);
    expect(warnings).toContain(`The baseline of run ${invalid.id} is skipped`);
  });

  it('returns undefined, saying so, when no run has a baseline artifact', async () => {
    seedRun({ event: 'push' });
    seedRun({ event: 'push', headBranch: 'faster-decode' }, [2]);
    seedCurrentRun();

    expect(await load()).toBeUndefined();
    expect(github.log.lines.join('\n')).toContain('No readable "perf-gate-baseline" artifact');
  });

  it('looks at a bounded number of runs', async () => {
    seedRun({ event: 'push' }, [1000]);
    for (let i = 0; i < 25; i++) seedRun({ event: 'push' });
    seedCurrentRun();

    expect(await load()).toBeUndefined();
    const artifactListings = github.api.requests.filter((r) => r.path.endsWith('/artifacts'));
    expect(artifactListings).toHaveLength(20);
  });

  it('says the job needs actions: read when the token may not read runs', async () => {
    seedRun({ event: 'push' }, [1500]);
    seedCurrentRun();
    github.api.failNext('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}', [
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);

    await expect(load()).rejects.toThrow(/permissions: actions: read/);
  });

  it('says the job needs actions: read when listing artifacts is refused', async () => {
    seedRun({ event: 'push' }, [1500]);
    seedCurrentRun();
    github.api.failNext('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', [
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);

    await expect(load()).rejects.toThrow(/permissions: actions: read/);
  });
});

describe('baselineArtifactFiles', () => {
  it('writes one baseline.json in the baseline file format', () => {
    const files = baselineArtifactFiles([result('a', [1, 2])], new Date('2026-03-01T00:00:00Z'));
    expect(Object.keys(files)).toEqual(['baseline.json']);
    expect(JSON.parse(files['baseline.json'])).toMatchObject({
      kind: 'neuron-perf-gate-baseline',
      schemaVersion: 1,
      createdAt: '2026-03-01T00:00:00.000Z',
      benchmarks: [{ name: 'a', metrics: [{ id: 'throughput', values: [1, 2] }] }],
    });
  });
});

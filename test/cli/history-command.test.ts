import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderRecordStore } from '../../src/baseline/folder-store.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { cli } from '../support/cli-run.js';
import { makeRepos } from '../baseline/git/support.js';
import { allNights, nightRecords } from '../history/night-records.js';
import { NOISY, outvotedRecords } from '../history/one-noisy-series.js';

describe('neuron-perf-gate history', () => {
  it('prints the change point of an SDK upgrade read from a real data branch', async () => {
    const repos = await makeRepos();
    const options = {
      benchmarks: ['reranker'],
      nights: 40,
      slowdown: (_: string, n: number) => (n >= 30 ? 1.12 : 1),
      environment: (n: number) => ({ neuronSdkVersion: n >= 30 ? '2.27.0' : '2.26.0' }),
    };
    const store = new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await mkdtemp(join(repos.root, 'seed-')),
    });
    await store.appendRecords(allNights(options));
    const firstBad = pathOfRecord(nightRecords(options, 30)[0]!);

    const text = await cli(['history', '--metric', 'latency_p50'], repos.checkout);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'nightly · reranker · latency_p50 (ms, inf2.xlarge/2 cores/config cafe123): 40 nights, 120 runs',
    );
    expect(text.stdout).toMatch(
      /regression step \+1[12]\.\d%, 95% interval \+1\d\.\d% to \+1\d\.\d%/,
    );
    expect(text.stdout).toContain('environment: Neuron SDK 2.26.0 → 2.27.0');
    expect(text.stdout).toMatch(
      /open +nightly@1030-1: first bad 2026-03-31 abc01e0 \(run 1030-1\)/,
    );

    const json = await cli(
      ['history', '--remote', repos.origin, '--json', '--gate', 'nightly'],
      repos.root,
    );
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.series).toHaveLength(2);
    expect(parsed.series[0].points[0].values).toHaveLength(3);
    expect(parsed.regressions).toHaveLength(1);
    expect(parsed.regressions[0].firstBad.path).toBe(firstBad);
    expect(parsed.regressions[0].changes.map((c: { metric: string }) => c.metric).sort()).toEqual([
      'latency_p50',
      'throughput',
    ]);
  });

  it('names in --json the commit most series agree on, with where each series put it', async () => {
    // 18 of 19 benchmarks slow down on night 30; one noisy benchmark reads it on night 29.
    const dir = await mkdtemp(join((await makeRepos()).root, 'records-'));
    const store = new FolderRecordStore(dir);
    for (const record of outvotedRecords()) await store.writeRecord(record);
    const result = await cli(['history', '--dir', '.', '--metric', 'latency_p50', '--json'], dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [regression] = JSON.parse(result.stdout).regressions;
    const agreed = 'abc01e'.padEnd(40, '0');
    expect(regression.firstBad.commit).toBe(agreed);
    expect(regression.consensus).toMatchObject({
      commit: agreed,
      runId: '1030-1',
      series: 19,
      agreeing: 18,
    });
    const locations: { benchmark: string; commit: string; share: number; agreedShare: number }[] =
      regression.consensus.locations;
    expect(locations).toHaveLength(19);
    const noisy = locations.filter((l) => l.commit !== agreed);
    expect(noisy).toEqual([
      expect.objectContaining({ benchmark: NOISY, commit: 'abc01d'.padEnd(40, '0') }),
    ]);
    expect(noisy[0]!.share).toBeGreaterThan(noisy[0]!.agreedShare);
    for (const location of locations.filter((l) => l.commit === agreed)) {
      expect(location.share).toBeGreaterThan(0.99);
    }
    const text = await cli(['history', '--dir', '.', '--metric', 'latency_p50'], dir);
    expect(text.stdout).toMatch(
      /open +nightly@1030-1: first bad 2026-03-31 abc01e0 \(run 1030-1\) \(18 of 19 series agree on it\)/,
    );
  });

  it('says what to do outside a clone', async () => {
    const dir = await mkdtemp(join((await makeRepos()).root, 'plain-'));
    const result = await cli(['history'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a git clone with an 'origin' remote.*--remote URL/);
  });
});

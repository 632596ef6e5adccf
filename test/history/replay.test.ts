// A 90-night replay: each night the gate's history is read and analysed as the nightly
// job does, and the regression issues are synced against the loopback GitHub API. Three
// regressions are injected, one an SDK upgrade that slows every benchmark at once.
import { describe, expect, it } from 'vitest';
import { withRecordPaths } from '../../src/history/series.js';
import { useGitHubApi } from '../support/github-test.js';
import { replayNightlyJob } from '../support/nightly-replay.js';
import { allNights } from './night-records.js';

const github = useGitHubApi({ owner: 'octo', repo: 'inf2' });

const BENCHMARKS = ['a', 'b', 'c'];
const slowdown = (benchmark: string, night: number) =>
  (benchmark === 'a' && night >= 25 ? 1.1 : 1) *
  (night >= 50 ? 1.08 : 1) *
  (benchmark === 'c' && night >= 70 ? 1.12 : 1);

describe('a 90-night replay with 3 injected regressions', () => {
  it('opens exactly 3 issues, each naming its first bad record, and absorbs none', async () => {
    const records = allNights({
      benchmarks: BENCHMARKS,
      nights: 90,
      slowdown,
      environment: (night) => ({ neuronSdkVersion: night >= 50 ? '2.27.0' : '2.26.0' }),
    });
    const { last } = await replayNightlyJob(github, records, {
      perNight: BENCHMARKS.length,
      first: 15,
      last: 90,
    });
    const issues = github.api.state.issues.filter((i) =>
      i.labels.includes('performance-regression'),
    );
    expect(issues.map((i) => i.state)).toEqual(['open', 'open', 'open']);
    const markers = issues.map((i) => /regression:nightly@(\S+) -->/.exec(i.body ?? '')?.[1]);
    expect(markers).toEqual(['1025-1', '1050-1', '1070-1']);
    expect(issues[1]!.body).toMatch(/2\.26\.0.*2\.27\.0/);
    // None absorbed: every record from each first bad night on is kept out of the baseline.
    const held = last.heldOut;
    const firstBad = (benchmark: string) =>
      Math.min(...[25, 50, 70].filter((n) => slowdown(benchmark, n) > slowdown(benchmark, n - 1)));
    for (const benchmark of BENCHMARKS) {
      const paths = withRecordPaths(records)
        .filter((r) => r.record.benchmark === benchmark)
        .map((r) => r.path);
      expect([...(held.get(benchmark) ?? [])].sort()).toEqual(
        paths.slice(firstBad(benchmark)).sort(),
      );
    }
  }, 120_000);
});

// A regression that lasts a few nights and is then fixed: the history must still report
// it (an issue opened once it has shown on two nights), and the change point that brings
// the level back must close it, saying so. One awful night on its own opens nothing.
import { describe, expect, it } from 'vitest';
import { useGitHubApi } from '../support/github-test.js';
import { replayNightlyJob } from '../support/nightly-replay.js';
import { allNights, type NightsOptions } from './night-records.js';

const github = useGitHubApi({ owner: 'octo', repo: 'inf2' });

/** Replays the nights from `first` on as the nightly job does; the issues and comments. */
async function replay(options: NightsOptions, first = 15) {
  const { opened } = await replayNightlyJob(github, allNights(options), {
    perNight: options.benchmarks.length,
    first,
    last: options.nights,
  });
  const issues = github.api.state.issues.filter((i) => i.labels.includes('performance-regression'));
  return {
    issues,
    opened,
    comments: (n: number) => github.api.state.commentsOn(n).map((c) => c.body),
  };
}

describe('a short regression, fixed after a few nights', () => {
  for (const bad of [3, 5]) {
    it(`is reported and closed by the change point that restores it (${bad} bad nights)`, async () => {
      const { issues, opened, comments } = await replay({
        benchmarks: ['a'],
        nights: 60,
        slowdown: (_, night) => (night >= 40 && night < 40 + bad ? 1.1 : 1),
      });
      expect(issues).toHaveLength(1);
      const [issue] = issues;
      expect(/regression:nightly@(\S+) -->/.exec(issue!.body ?? '')?.[1]).toBe('1040-1');
      // Opened once two nightly analyses in a row found it, each with the newest two
      // nights slow: the records of nights 40–41, then 40–42.
      expect(opened).toEqual([43]);
      expect(issue!.state).toBe('closed');
      expect(comments(issue!.number)).toEqual([
        expect.stringContaining('a later change point brought the level back'),
      ]);
    });
  }

  it('opens no issue for one awful night among normal ones', async () => {
    for (const at of [30, 45]) {
      const { issues } = await replay({
        benchmarks: ['a', 'b'],
        nights: 55,
        slowdown: (_, night) => (night === at ? 1.3 : 1),
        seed: `awful-${at}`,
      });
      expect(issues).toEqual([]);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { readGitHubSettings } from '../../src/action/settings.js';

function settingsFrom(inputs: Record<string, string>) {
  return readGitHubSettings((name) => inputs[name] ?? '');
}

describe('readGitHubSettings', () => {
  it('fills the defaults of action.yml when inputs are empty', () => {
    expect(settingsFrom({})).toEqual({
      mode: 'gate',
      comment: 'always',
      nightlyIssue: true,
      allowForkPrs: false,
      otherEvents: 'compare',
      isolation: 'auto',
      requireIsolation: 'pull-requests',
      compareWith: 'stored',
      baseEnv: {},
      headEnv: {},
      acceptCurrent: false,
      dashboard: 'off',
      dashboardBranch: 'gh-pages',
      nightlyRuns: 24,
    });
  });

  it('reads every input, in any case, and ignores a null matrix', () => {
    const settings = settingsFrom({
      mode: 'Comment',
      comment: 'on-change',
      'nightly-issue': 'false',
      'allow-fork-prs': 'TRUE',
      'other-events': 'skip',
      isolation: 'Unshare',
      'require-isolation': 'always',
      'compare-with': 'Merge-Base',
      'base-env': 'PATH=/opt/a/bin\n# the candidate\n\nX=1=2',
      'head-env': 'PATH=/opt/b/bin',
      'accept-current': 'true',
      'comment-key': 'inf2/perf',
      dashboard: 'Pages',
      'dashboard-branch': 'Perf/Pages',
      'nightly-runs': '30',
      matrix: 'null',
      'github-token': 'ghs_x',
    });
    expect(settings).toEqual({
      mode: 'comment',
      comment: 'on-change',
      nightlyIssue: false,
      allowForkPrs: true,
      otherEvents: 'skip',
      isolation: 'unshare',
      requireIsolation: 'always',
      compareWith: 'merge-base',
      baseEnv: { PATH: '/opt/a/bin', X: '1=2' },
      headEnv: { PATH: '/opt/b/bin' },
      acceptCurrent: true,
      dashboard: 'pages',
      dashboardBranch: 'Perf/Pages',
      nightlyRuns: 30,
      commentKey: 'inf2/perf',
      token: 'ghs_x',
    });
    expect(settingsFrom({ matrix: '{"runner":"inf2-xlarge"}' }).matrix).toBe(
      '{"runner":"inf2-xlarge"}',
    );
  });

  it('names every bad input with what is allowed', () => {
    expect(() =>
      settingsFrom({ comment: 'sometimes', mode: 'post', 'comment-key': 'has space' }),
    ).toThrow(
      /input 'mode': found "post"; allowed: gate or comment\ninput 'comment': found "sometimes"; allowed: always, on-change or never\ninput 'comment-key': found "has space"/,
    );
    expect(() => settingsFrom({ isolation: 'docker', 'require-isolation': '' })).toThrow(
      /^input 'isolation': found "docker"; allowed: auto, bubblewrap, unshare or none$/,
    );
    expect(() => settingsFrom({ 'compare-with': 'yesterday' })).toThrow(
      /^input 'compare-with': found "yesterday"; allowed: stored, merge-base or environments$/,
    );
    expect(() => settingsFrom({ 'head-env': 'export PATH=/x' })).toThrow(
      /^input 'head-env': found "export PATH=\/x"; allowed: NAME=VALUE lines/,
    );
    expect(() => settingsFrom({ 'require-isolation': 'sometimes' })).toThrow(
      /^input 'require-isolation': found "sometimes"; allowed: pull-requests, always or never$/,
    );
    expect(() => settingsFrom({ dashboard: 'yes', 'dashboard-branch': '--force' })).toThrow(
      /input 'dashboard': found "yes"; allowed: off, artifact or pages\ninput 'dashboard-branch': found "--force"; allowed: a git branch name/,
    );
    for (const bad of ['0', '101', '2.5', 'many']) {
      expect(() => settingsFrom({ 'nightly-runs': bad })).toThrow(
        `input 'nightly-runs': found "${bad}"; allowed: an integer from 1 to 100`,
      );
    }
    expect(settingsFrom({}).nightlyRuns).toBe(24);
  });
});

// Action inputs that only make sense on GitHub (comments, issues, events, forks). The
// benchmark and baseline settings are read by src/config/ and may also come from the file.

import * as core from '@actions/core';
import { z } from 'zod';
import { isUsableBranchName } from '../config/branch-name.js';
import { DEFAULTS, LIMITS } from '../config/defaults.js';
import type { DashboardSetting } from '../config/types.js';
import { usageError } from '../errors.js';

export type CommentPolicy = 'always' | 'on-change' | 'never';
export type ActionMode = 'gate' | 'comment';
export type OtherEvents = 'compare' | 'skip';
/** Which sandbox pull-request code runs in (runner/sandbox.ts). */
export type IsolationSetting = 'auto' | 'bubblewrap' | 'unshare' | 'none';
export type CompareWith = 'stored' | 'merge-base' | 'environments';

/** On which events the gate refuses to run pull-request code without isolation. */
export type RequireIsolation = 'pull-requests' | 'always' | 'never';

export interface GitHubSettings {
  /** `gate` runs the benchmarks; `comment` posts the report of a triggering workflow_run. */
  mode: ActionMode;
  comment: CommentPolicy;
  /** Replaces the derived key of the comment marker, the records folder and the nightly issue. */
  commentKey?: string;
  /** The job's matrix as JSON, so that matrix jobs keep a comment and history each. */
  matrix?: string;
  nightlyIssue: boolean;
  allowForkPrs: boolean;
  otherEvents: OtherEvents;
  isolation: IsolationSetting;
  requireIsolation: RequireIsolation;
  /**
   * What a pull request is compared with: the stored baseline of its base branch, or its
   * merge base measured on this runner in the same job (A/B mode, src/ab/).
   */
  compareWith: CompareWith;
  /** `compare-with: environments`: the variables of each side. */
  baseEnv: Record<string, string>;
  headEnv: Record<string, string>;
  /** `compare-with: environments`: a config file of each side's own (two stacks). */
  baseConfig?: string;
  headConfig?: string;
  acceptCurrent: boolean;
  /** After the run: upload the dashboard page as an artifact, or publish it to a branch. */
  dashboard: DashboardSetting;
  /** The branch `dashboard: pages` publishes to. */
  dashboardBranch: string;
  /** Clean runs per benchmark on a scheduled run (at least each benchmark's own runs). */
  nightlyRuns: number;
  token?: string;
}

const booleanInput = z.enum(['true', 'false']).transform((value) => value === 'true');

const INPUTS = {
  mode: { schema: z.enum(['gate', 'comment']), fallback: 'gate', allowed: 'gate or comment' },
  comment: {
    schema: z.enum(['always', 'on-change', 'never']),
    fallback: 'always',
    allowed: 'always, on-change or never',
  },
  'nightly-issue': { schema: booleanInput, fallback: 'true', allowed: 'true or false' },
  'allow-fork-prs': { schema: booleanInput, fallback: 'false', allowed: 'true or false' },
  'other-events': {
    schema: z.enum(['compare', 'skip']),
    fallback: 'compare',
    allowed: 'compare or skip',
  },
  isolation: {
    schema: z.enum(['auto', 'bubblewrap', 'unshare', 'none']),
    fallback: 'auto',
    allowed: 'auto, bubblewrap, unshare or none',
  },
  'require-isolation': {
    schema: z.enum(['pull-requests', 'always', 'never']),
    fallback: 'pull-requests',
    allowed: 'pull-requests, always or never',
  },
  'compare-with': {
    schema: z.enum(['stored', 'merge-base', 'environments']),
    fallback: 'stored',
    allowed: 'stored, merge-base or environments',
  },
  'accept-current': { schema: booleanInput, fallback: 'false', allowed: 'true or false' },
  dashboard: {
    schema: z.enum(['off', 'artifact', 'pages']),
    fallback: DEFAULTS.dashboard,
    allowed: 'off, artifact or pages',
  },
} as const;

/** Reads and checks the GitHub inputs; a bad value is a usage error naming the input. */
export function readGitHubSettings(
  input: (name: string) => string = (name) => core.getInput(name),
): GitHubSettings {
  const problems: string[] = [];
  const read = <K extends keyof typeof INPUTS>(name: K): z.output<(typeof INPUTS)[K]['schema']> => {
    const spec = INPUTS[name];
    const given = input(name).trim();
    const parsed = spec.schema.safeParse((given || spec.fallback).toLowerCase());
    if (parsed.success) return parsed.data as z.output<(typeof INPUTS)[K]['schema']>;
    problems.push(`input '${name}': found ${JSON.stringify(given)}; allowed: ${spec.allowed}`);
    return spec.schema.parse(spec.fallback) as z.output<(typeof INPUTS)[K]['schema']>;
  };
  const settings: GitHubSettings = {
    mode: read('mode'),
    comment: read('comment'),
    nightlyIssue: read('nightly-issue'),
    allowForkPrs: read('allow-fork-prs'),
    otherEvents: read('other-events'),
    isolation: read('isolation'),
    requireIsolation: read('require-isolation'),
    compareWith: read('compare-with'),
    baseEnv: envInput('base-env', input, problems),
    headEnv: envInput('head-env', input, problems),
    acceptCurrent: read('accept-current'),
    dashboard: read('dashboard'),
    dashboardBranch: DEFAULTS.dashboardBranch,
    nightlyRuns: DEFAULTS.nightlyRuns,
  };
  const nightlyRuns = input('nightly-runs').trim();
  if (nightlyRuns) {
    const value = Number(nightlyRuns);
    const { min, max } = LIMITS.runs;
    if (!/^\d+$/.test(nightlyRuns) || value < min || value > max) {
      problems.push(
        `input 'nightly-runs': found ${JSON.stringify(nightlyRuns)}; allowed: an integer from ${min} to ${max}`,
      );
    } else settings.nightlyRuns = value;
  }
  // Branch names keep their case: read apart from the lower-cased choices above.
  const dashboardBranch = input('dashboard-branch').trim();
  if (dashboardBranch) {
    if (!isUsableBranchName(dashboardBranch)) {
      problems.push(
        `input 'dashboard-branch': found ${JSON.stringify(dashboardBranch)}; allowed: a git branch name (letters, digits, '.', '_', '-' and '/'), such as gh-pages`,
      );
    } else settings.dashboardBranch = dashboardBranch;
  }
  const commentKey = input('comment-key').trim();
  if (commentKey) {
    if (!/^[A-Za-z0-9._/-]{1,100}$/.test(commentKey)) {
      problems.push(
        `input 'comment-key': found ${JSON.stringify(commentKey)}; allowed: 1 to 100 letters, digits, '.', '_', '-' and '/'`,
      );
    } else settings.commentKey = commentKey;
  }
  for (const [name, key] of [
    ['base-config', 'baseConfig'],
    ['head-config', 'headConfig'],
  ] as const) {
    const file = input(name).trim();
    if (file) settings[key] = file;
  }
  const matrix = input('matrix').trim();
  if (matrix && matrix !== 'null') settings.matrix = matrix;
  const token = input('github-token').trim();
  if (token) settings.token = token;
  if (problems.length > 0) throw usageError(problems.join('\n'));
  return settings;
}

/** A multiline input of NAME=VALUE lines (blank lines and # comments skipped). */
function envInput(
  name: 'base-env' | 'head-env',
  input: (name: string) => string,
  problems: string[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of input(name).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) {
      problems.push(
        `input '${name}': found ${JSON.stringify(line)}; allowed: NAME=VALUE lines, e.g. PATH=/opt/venv-2.27/bin:/usr/bin`,
      );
      continue;
    }
    env[match[1]!] = match[2]!;
  }
  return env;
}

// action.yml is what GitHub (and the Marketplace page) shows users: its descriptions must
// name what the gate accepts, and the defaults it shows must be the ones the gate applies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { AUTO_FORMAT, FORMATS } from '../../src/formats/index.js';
import { ROOT } from '../support/bundled.js';

const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  name: string;
  author: string;
  inputs: Record<string, { description: string; default?: string }>;
};

/** The built-in default of each input that has a fixed one, as action.yml writes it. */
const BUILT_IN: Record<string, string> = {
  format: DEFAULTS.format,
  runs: String(DEFAULTS.runs),
  'nightly-runs': String(DEFAULTS.nightlyRuns),
  'confirm-runs': String(DEFAULTS.confirmRuns),
  profile: DEFAULTS.profile,
  'profile-mode': DEFAULTS.profileMode,
  'upload-profiles': String(DEFAULTS.uploadProfiles),
  'artifact-retention-days': String(DEFAULTS.artifactRetentionDays),
  'artifact-compression-level': String(DEFAULTS.artifactCompressionLevel),
  'baseline-window': String(DEFAULTS.baselineWindow),
  'fail-on-regression': String(DEFAULTS.failOnRegression),
  'fail-on-inconclusive': String(DEFAULTS.failOnInconclusive),
  confidence: `${Math.round(DEFAULTS.confidence * 100)}%`,
  'timeout-minutes': String(DEFAULTS.timeoutMinutes),
  'out-dir': DEFAULTS.outDir,
  'baseline-branch': DEFAULTS.baselineBranch,
  'baseline-match': DEFAULTS.baselineMatch,
  'accept-after': String(DEFAULTS.acceptAfter),
  'update-baseline': DEFAULTS.updateBaseline,
  'baseline-keep': String(DEFAULTS.baselineKeep),
  dashboard: DEFAULTS.dashboard,
  'dashboard-branch': DEFAULTS.dashboardBranch,
};

describe('action.yml', () => {
  it('the format description lists auto and every format the gate reads', () => {
    const description = ACTION.inputs.format!.description;
    for (const id of [AUTO_FORMAT, ...FORMATS.map((format) => format.id)]) {
      expect(description).toMatch(new RegExp(`(^|[\\s,(])${id}([\\s,.)]|$)`));
    }
  });

  it.each(Object.entries(BUILT_IN))('shows the default of %s: %s', (input, value) => {
    expect(ACTION.inputs[input]?.default).toBe(value);
  });

  it('leaves the default blank only where it depends on something else', () => {
    const blank = Object.entries(ACTION.inputs)
      .filter(([, input]) => (input.default ?? '') === '')
      .map(([name]) => name)
      .sort();
    // Each of these has no fixed default: it is found, derived or off unless given.
    expect(blank).toEqual(
      [
        'base-env',
        'baseline-path',
        'baseline-store',
        'head-env',
        'command',
        'comment-key',
        'config',
        'environment-probe',
        'name',
        'profiler-path',
        'save-baseline',
        'thresholds',
        'working-directory',
      ].sort(),
    );
  });

  it('names a real author, not the action again', () => {
    expect(ACTION.author).not.toBe(ACTION.name);
    expect(ACTION.author).toMatch(/\S/);
  });
});

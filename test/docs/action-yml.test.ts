// action.yml is what GitHub (and the Marketplace page) shows users: its descriptions must
// name what the gate accepts, and the defaults it shows must be the ones the gate applies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG_FILES, DEFAULTS } from '../../src/config/defaults.js';
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
  'missing-after': String(DEFAULTS.missingAfter),
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
        'base-config',
        'baseline-path',
        'baseline-postgres-url',
        'baseline-s3-bucket',
        'baseline-s3-endpoint',
        'baseline-s3-region',
        'baseline-store',
        'head-env',
        'head-config',
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

/** Each row of the table under `## <heading>` (or the first table after it): name → default cell. */
function defaultCells(markdown: string, heading: string): [string, string][] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown
    .slice(start, next < 0 ? undefined : next)
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      return [cells[1]!.replace(/`/g, ''), cells[2]!];
    });
}

/**
 * The default a page should show for an input: action.yml's, or for an input whose
 * action.yml default is blank, the gate's built-in one (`name`: `benchmark`, `config`: the
 * first file looked for).
 */
function shownDefault(input: string): string | undefined {
  if (input === 'config') return DEFAULT_CONFIG_FILES[0];
  const declared = ACTION.inputs[input]?.default ?? '';
  if (declared !== '') return declared;
  const key = input.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
  const builtIn = (DEFAULTS as Record<string, unknown>)[key];
  return builtIn === undefined ? undefined : String(builtIn);
}

describe.each([
  ['README.md', 'Key inputs'],
  ['docs/inputs.md', 'Inputs'],
])('%s, table %s', (page, heading) => {
  const rows = defaultCells(readFileSync(join(ROOT, page), 'utf8'), heading);

  it('has rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(5);
  });

  it.each(rows.filter(([, cell]) => cell.startsWith('`')))(
    '%s: the default it shows first is the one the gate applies (%s)',
    (input, cell) => {
      const shown = /^`([^`]*)`/.exec(cell)![1];
      const expected = shownDefault(input);
      if (expected !== undefined) expect(shown).toBe(expected);
      else expect(ACTION.inputs[input], `${input} is not an input`).toBeDefined();
    },
  );
});

// The comments of the examples (the workflows, examples/vllm-serve/perf-gate.yml and the
// README's config) explain the settings around them: each input, setting, branch, artifact
// or label a comment names is one the action has; each file it names is in the repository;
// each value it gives a setting (`nightly-runs (24)`, `confirm-runs 10`, `3 runs +`) is the
// one the example gets, from its own inputs, its config or the default; and each total it
// works out for a job's timeout-minutes (`... = 225`) is the gate's worst case for that job.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BASELINE_ARTIFACT_NAME } from '../../src/baseline/artifact-store.js';
import { benchmarkEntrySchema, configFileSchema } from '../../src/config/schema.js';
import { REGRESSION_LABEL } from '../../src/github/nightly-issue.js';
import { REPORT_ARTIFACT_NAME } from '../../src/github/report-artifact.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { TOOL_NAME } from '../../src/version.js';
import { ROOT } from '../support/bundled.js';
import { configOfExample, readmeConfigText, worstMinutes } from '../support/example-budget.js';
import { EXAMPLES_DIR, gateStepInputs, loadWorkflowExample } from '../support/workflow-example.js';

const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};
const INPUTS = Object.keys(ACTION.inputs);
const FILE_KEYS = [
  ...Object.keys(configFileSchema.shape),
  ...Object.keys(benchmarkEntrySchema.shape),
];
const WORKFLOWS = readdirSync(EXAMPLES_DIR)
  .filter((name) => name.endsWith('.yml'))
  .sort();

/** Names of the action's own things that comments speak of. */
const ACTION_NAMES = [
  TOOL_NAME,
  DEFAULTS.baselineBranch,
  REPORT_ARTIFACT_NAME,
  BASELINE_ARTIFACT_NAME,
  REGRESSION_LABEL,
];
/**
 * Hyphenated words of the comments that are no setting: the placeholder owner, the name
 * of the fork-safe pair (its files are fork-safe-*.yml) and plain English.
 */
const PROSE = ['your-org', 'fork-safe', 'self-hosted', 'read-only'];

interface Commented {
  /** Where the text is: a file, or README.md's config block. */
  source: string;
  /** The folder a file name in the comments is relative to. */
  folder: string;
  /** The example workflow whose inputs and config the comments speak of. */
  workflow?: string;
  text: string;
}

const SOURCES: Commented[] = [
  ...WORKFLOWS.map((file) => ({
    source: `examples/workflows/${file}`,
    folder: EXAMPLES_DIR,
    workflow: file,
    text: readFileSync(join(EXAMPLES_DIR, file), 'utf8'),
  })),
  {
    source: 'examples/vllm-serve/perf-gate.yml',
    folder: join(ROOT, 'examples', 'vllm-serve'),
    workflow: 'vllm-serve.yml',
    text: readFileSync(join(ROOT, 'examples', 'vllm-serve', 'perf-gate.yml'), 'utf8'),
  },
  {
    source: "README.md's # .github/perf-gate.yml",
    folder: ROOT,
    workflow: 'pull-request.yml',
    text: readmeConfigText(),
  },
];

interface Comment {
  /** The comment lines, `#` removed, joined by spaces. */
  text: string;
  /** The index of the line after the comment. */
  next: number;
}

/** The comments of a YAML text: each run of `#` lines, or a `#` after a value on its line. */
function commentsOf(yaml: string): Comment[] {
  const lines = yaml.split('\n');
  const comments: Comment[] = [];
  let run: string[] = [];
  lines.forEach((line, index) => {
    const whole = /^\s*#\s?(.*)$/.exec(line);
    if (whole) {
      run.push(whole[1]!);
      return;
    }
    if (run.length > 0) comments.push({ text: run.join(' '), next: index });
    run = [];
    const trailing = /\s#\s(.*)$/.exec(line);
    if (trailing) comments.push({ text: trailing[1]!, next: index + 1 });
  });
  if (run.length > 0) comments.push({ text: run.join(' '), next: lines.length });
  return comments;
}

/** A word that names a file or folder: has a `/` or a file extension. */
const FILE_NAME = /^[\w.~-]*\/[\w./-]*$|^[\w.-]+\.(ya?ml|sh|json|md|py)$/;

/** The words of a comment, outer punctuation and backticks removed. */
function wordsOf(text: string): string[] {
  return text
    .split(/\s+/)
    .map((word) => word.replace(/^[(`'"]+|[)`'",.:;!?]+$/g, ''))
    .filter((word) => word !== '');
}

/** The hyphenated lower-case words of a comment that are not file names. */
function namesIn(text: string): string[] {
  return wordsOf(text).filter((word) => /^[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(word));
}

/** Whether a file name of a comment is in the repository (a `.`/`/` path is the user's). */
function fileExists(name: string, folder: string): boolean {
  if (name.startsWith('.') || name.startsWith('/')) return true;
  return [folder, EXAMPLES_DIR, ROOT].some((base) => existsSync(join(base, name)));
}

/** Settings whose value a comment may give, longest first so `confirm-runs` wins over `runs`. */
const SETTINGS = [...new Set([...INPUTS, ...FILE_KEYS])].sort((a, b) => b.length - a.length);
const SETTING = `(?<![\\w-])(${SETTINGS.join('|')})(?![\\w-])`;
/** `nightly-runs (24)`, `confirm-runs 10`, and `10 confirm-runs` as a term: `+`, `)`, `,` next. */
const VALUE_PATTERNS = [
  new RegExp(`${SETTING} \\((\\d+)\\)`, 'g'),
  new RegExp(`${SETTING} (\\d+)(?![\\d.%])`, 'g'),
  new RegExp(`(?<![\\w.])(\\d+) ${SETTING}(?=\\s*[+),]|\\s*$)`, 'g'),
];

/** Each setting a comment gives a value, with that value. */
function statedValues(text: string): [string, number][] {
  return VALUE_PATTERNS.flatMap((pattern, index) =>
    [...text.matchAll(pattern)].map((m): [string, number] =>
      index === 2 ? [m[2]!, Number(m[1])] : [m[1]!, Number(m[2])],
    ),
  );
}

/**
 * The value the example's gate gets for a setting: an input one of its gate steps gives,
 * else its config's first benchmark's, else the config's top level, else action.yml's.
 */
function valueIn(workflow: string, setting: string): number | undefined {
  const example = loadWorkflowExample(workflow);
  for (const jobId of Object.keys(example.jobs)) {
    const given = gateStepInputs(workflow, jobId)[setting];
    if (given !== undefined) return Number(given);
  }
  const config = configOfExample(workflow) as unknown as Record<string, unknown> & {
    benchmarks: Record<string, unknown>[];
  };
  const value =
    config.benchmarks[0]?.[setting] ?? config[setting] ?? ACTION.inputs[setting]?.default;
  return value === undefined || value === '' ? undefined : Number(value);
}

/** Each `timeout-minutes:` of a job of a workflow, with the job and the comment above it. */
function jobTimeoutComments(file: string): { jobId: string; comment: string }[] {
  const lines = readFileSync(join(EXAMPLES_DIR, file), 'utf8').split('\n');
  const found: { jobId: string; comment: string }[] = [];
  let jobId: string | undefined;
  let inJobs = false;
  lines.forEach((line, index) => {
    if (/^jobs:\s*$/.test(line)) inJobs = true;
    else if (/^\S/.test(line)) inJobs = false;
    const job = inJobs ? /^ {2}([\w-]+):\s*$/.exec(line) : null;
    if (job) jobId = job[1]!;
    if (!jobId || !/^ {4}timeout-minutes:/.test(line)) return;
    const above: string[] = [];
    for (let i = index - 1; i >= 0 && /^\s*#/.test(lines[i]!); i -= 1) {
      above.unshift(lines[i]!.replace(/^\s*#\s?/, ''));
    }
    found.push({ jobId, comment: above.join(' ') });
  });
  return found;
}

/**
 * Each total (`= 225`) a timeout comment works out, with the config file it names since the
 * total before (`with examples/vllm-serve/perf-gate.yml, ... = 795`), if any.
 */
function totalsOf(comment: string): { total: number; config?: string }[] {
  const totals: { total: number; config?: string }[] = [];
  let from = 0;
  for (const m of comment.matchAll(/=\s*(\d+)/g)) {
    const before = comment.slice(from, m.index);
    const config = /\bexamples\/(?!workflows\/)[\w./-]+\.ya?ml\b/.exec(before)?.[0];
    totals.push({ total: Number(m[1]), ...(config ? { config } : {}) });
    from = m.index + m[0].length;
  }
  return totals;
}

describe('comments of the examples', () => {
  it('are read: every workflow, the vLLM config and the README config', () => {
    expect(SOURCES.length).toBe(WORKFLOWS.length + 2);
    for (const { source, text } of SOURCES)
      expect(commentsOf(text).length, source).toBeGreaterThan(0);
  });

  it.each(SOURCES.map((s) => [s.source, s] as const))(
    '%s: each hyphenated name is an input, a config key, a job or a name the action uses',
    (source, { text, workflow }) => {
      const ownJobs = source.startsWith('examples/workflows/') && workflow !== undefined;
      const jobs = ownJobs ? Object.keys(loadWorkflowExample(workflow).jobs) : [];
      const known = new Set([...INPUTS, ...FILE_KEYS, ...ACTION_NAMES, ...PROSE, ...jobs]);
      const unknown = commentsOf(text)
        .flatMap((comment) => namesIn(comment.text))
        .filter((name) => !known.has(name));
      expect(unknown).toEqual([]);
    },
  );

  it.each(SOURCES.map((s) => [s.source, s] as const))(
    '%s: each file a comment names is in the repository',
    (_source, { text, folder }) => {
      const missing = commentsOf(text)
        .flatMap((comment) => wordsOf(comment.text))
        .filter((word) => FILE_NAME.test(word) && !fileExists(word, folder));
      expect(missing).toEqual([]);
    },
  );

  it.each(SOURCES.map((s) => [s.source, s] as const))(
    '%s: each value a comment gives a setting is the one the example gets',
    (_source, { text, workflow }) => {
      const stated = commentsOf(text).flatMap((comment) => statedValues(comment.text));
      const wrong = stated
        .map(([setting, value]) => ({ setting, stated: value, gets: valueIn(workflow!, setting) }))
        .filter((v) => v.gets !== v.stated);
      expect(wrong).toEqual([]);
    },
  );

  it('state values of settings: the check is not vacuous', () => {
    const stated = SOURCES.flatMap((s) => commentsOf(s.text)).flatMap((c) => statedValues(c.text));
    const names = new Set(stated.map(([setting]) => setting));
    for (const name of ['runs', 'confirm-runs', 'nightly-runs', 'timeout-minutes']) {
      expect(names, name).toContain(name);
    }
  });

  const TOTALS = WORKFLOWS.flatMap((file) =>
    jobTimeoutComments(file).flatMap(({ jobId, comment }) =>
      totalsOf(comment).map((t) => ({ file, jobId, ...t })),
    ),
  );

  it('give the worst case above the timeout-minutes of a job in most workflows', () => {
    expect(new Set(TOTALS.map((t) => t.file)).size).toBeGreaterThanOrEqual(5);
  });

  it.each(TOTALS.map((t) => [t.file, t.jobId, t.config ?? 'its config', t] as const))(
    '%s job %s: the total its comment works out with %s is the gate worst case',
    (_file, _job, _config, { file, jobId, total, config }) => {
      const text = config ? readFileSync(join(ROOT, config), 'utf8') : undefined;
      expect(total).toBe(worstMinutes(file, jobId, ...(text ? [parse(text)] : [])));
    },
  );
});

describe('the parts of the check', () => {
  it('read a value before, after or in parentheses after a setting, not a block of 4 runs', () => {
    expect(
      statedValues(
        'nightly-runs (24) runs, (24 + 1 profiled + 10 confirm-runs) x 15; (runs 3, timeout-minutes 15): ' +
          '3 blocks of 4 runs of each; 2 x 15',
      ),
    ).toEqual([
      ['nightly-runs', 24],
      ['runs', 3],
      ['timeout-minutes', 15],
      ['confirm-runs', 10],
    ]);
  });

  it('read each total of a timeout comment with the config named before it', () => {
    expect(
      totalsOf(
        "with the README's config 14 x 15 + 15 = 225; with examples/vllm-serve/perf-gate.yml, " +
          '5 x 4 + 15 = 35, then 3 = 3',
      ),
    ).toEqual([
      { total: 225 },
      { total: 35, config: 'examples/vllm-serve/perf-gate.yml' },
      { total: 3 },
    ]);
  });

  it('find comments on their own lines and after a value, and the file names in them', () => {
    const comments = commentsOf('# one\n# two\nkey: 1 # three\n\n  # four\n');
    expect(comments.map((c) => c.text)).toEqual(['one two', 'three', 'four']);
    expect(
      wordsOf('see (docs/running.md), serve-and-bench.sh.').filter((w) => FILE_NAME.test(w)),
    ).toEqual(['docs/running.md', 'serve-and-bench.sh']);
    expect(fileExists('docs/no-such-page.md', ROOT)).toBe(false);
    expect(fileExists('.github/perf-gate.yml', ROOT)).toBe(true);
  });
});

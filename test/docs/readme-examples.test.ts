// The README and the docs/ pages show the example workflows as they are, and both speak the
// action's inputs: a user who copies a block from them gets the file the tests run, and no
// example passes an input that action.yml does not declare (GitHub only warns about those).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { GITHUB_JOB_TIMEOUT_MINUTES, worstMinutes } from '../support/example-budget.js';
import { EXAMPLES_DIR, gateStepInputs, loadWorkflowExample } from '../support/workflow-example.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DOCS_DIR = join(ROOT, 'docs');
/** Each docs/ page by its path from the root, e.g. `docs/forks.md`. */
const DOCS = new Map(
  readdirSync(DOCS_DIR)
    .filter((name) => name.endsWith('.md'))
    .map((name) => [`docs/${name}`, readFileSync(join(DOCS_DIR, name), 'utf8')] as const),
);
const INPUTS_PAGE = DOCS.get('docs/inputs.md') ?? '';
const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, unknown>;
};
const DECLARED_INPUTS = Object.keys(ACTION.inputs);
/** What a reader sees of the README before scrolling, in lines of its source. */
const FIRST_SCREEN_LINES = 20;
const EXAMPLE_FILES = readdirSync(EXAMPLES_DIR)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();

interface ShownExample {
  path: string;
  /** The fenced block's content, or undefined when no block follows the marker. */
  block: string | undefined;
  line: number;
}

/** Each `<!-- example: path -->` marker and the fenced block after it (blank lines between). */
function shownExamples(markdown: string): ShownExample[] {
  const lines = markdown.split('\n');
  const shown: ShownExample[] = [];
  lines.forEach((text, index) => {
    const marker = /^<!-- example: (\S+) -->$/.exec(text.trim());
    if (!marker) return;
    let at = index + 1;
    while (at < lines.length && lines[at]!.trim() === '') at += 1;
    const fence = /^(`{3,})\w*$/.exec(lines[at] ?? '');
    let block: string | undefined;
    if (fence) {
      const end = lines.findIndex((line, i) => i > at && line === fence[1]);
      if (end > at) block = lines.slice(at + 1, end).join('\n') + '\n';
    }
    shown.push({ path: marker[1]!, block, line: index + 1 });
  });
  return shown;
}

/** The first column of the table under `## <heading>`, without backticks. */
function tableNames(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/inputs.md has no "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2) // header and separator
    .map((line) => line.split('|')[1]!.trim().replace(/`/g, ''));
}

/** Link targets of a page, as paths from the repository root (a docs page links `../x`). */
function linkTargets(markdown: string, page: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => posix.normalize(posix.join(posix.dirname(page), target)).replace(/\/$/, ''));
}

/** Link targets and marker paths in the README and the docs/ pages. */
function referencedPaths(): Set<string> {
  const pages: [string, string][] = [['README.md', README], ...DOCS];
  return new Set(
    pages.flatMap(([page, text]) => [
      ...linkTargets(text, page),
      ...shownExamples(text).map((shown) => shown.path),
    ]),
  );
}

/** Every example block of the README and the docs pages, labelled with where it is. */
function allShown(): (ShownExample & { page: string })[] {
  const pages: [string, string][] = [['README.md', README], ...DOCS];
  return pages.flatMap(([page, text]) => shownExamples(text).map((s) => ({ ...s, page })));
}

describe('README and docs example blocks', () => {
  const shown = allShown();

  it('the README shows the serving config and minimal.yml, docs/forks.md the fork-safe pair', () => {
    expect(shownExamples(README).map((s) => s.path)).toEqual(
      expect.arrayContaining([
        'examples/vllm-serve/perf-gate.yml',
        'examples/workflows/minimal.yml',
      ]),
    );
    expect(shownExamples(DOCS.get('docs/forks.md') ?? '').map((s) => s.path)).toEqual(
      expect.arrayContaining([
        'examples/workflows/fork-safe-pr.yml',
        'examples/workflows/fork-safe-comment.yml',
      ]),
    );
  });

  it.each(shown.map((s) => [`${s.path} (${s.page} line ${s.line})`, s] as const))(
    '%s is followed by a block equal to the file, byte for byte',
    (_label, example) => {
      expect(example.block, 'no fenced block follows the marker').toBeDefined();
      expect(example.block).toBe(readFileSync(join(ROOT, example.path), 'utf8'));
    },
  );
});

describe('example workflows', () => {
  it('are there', () => {
    expect(EXAMPLE_FILES).toEqual([
      'fork-safe-comment.yml',
      'fork-safe-pr.yml',
      'matrix.yml',
      'minimal.yml',
      'nightly.yml',
      'nxdi-to-vllm-neuron.yml',
      'pull-request.yml',
      'sdk-upgrade.yml',
      'vllm-serve.yml',
    ]);
  });

  it('the SDK-upgrade recipe compares two environments sharing one compile cache', () => {
    const inputs = gateStepInputs('sdk-upgrade.yml');
    expect(inputs['compare-with']).toBe('environments');
    // One cache, which the base warms for the head, emptied by the step before, so both
    // sides compile cold and their compile times are compared (docs/ab.md, "The compile cache").
    const cache = (env: string) => /^NEURON_COMPILE_CACHE_URL=(.+)$/m.exec(env)?.[1];
    expect(cache(inputs['base-env']!)).toBe(cache(inputs['head-env']!));
    const steps = loadWorkflowExample('sdk-upgrade.yml').jobs.compare!.steps!;
    expect(steps.map((step) => step.run)).toContain(`rm -rf ${cache(inputs['base-env']!)}`);
    expect(inputs['base-env']).not.toBe(inputs['head-env']);
    expect(inputs['comment-key']).not.toBe(gateStepInputs('nightly.yml')['comment-key']);
  });

  it("the SDK-upgrade recipe gives each side its venv as VIRTUAL_ENV and first on PATH, for a command's activate", () => {
    const inputs = gateStepInputs('sdk-upgrade.yml');
    for (const env of [inputs['base-env']!, inputs['head-env']!]) {
      const venv = /^VIRTUAL_ENV=(.+)$/m.exec(env)?.[1];
      expect(venv).toBeDefined();
      expect(/^PATH=(.+)$/m.exec(env)?.[1]).toMatch(new RegExp(`^${escapeRegExp(venv!)}/bin:`));
    }
    expect(/^VIRTUAL_ENV=(.+)$/m.exec(inputs['base-env']!)?.[1]).not.toBe(
      /^VIRTUAL_ENV=(.+)$/m.exec(inputs['head-env']!)?.[1],
    );
  });

  const referenced = referencedPaths();

  it.each(EXAMPLE_FILES)('%s is shown or linked in the README or docs/', (file) => {
    expect([...referenced]).toContain(`examples/workflows/${file}`);
  });

  it.each(EXAMPLE_FILES)('%s starts with a comment saying what it is for', (file) => {
    const first = readFileSync(join(EXAMPLES_DIR, file), 'utf8').split('\n')[0]!;
    expect(first).toMatch(/^# \S.{20,}/);
  });

  it.each(EXAMPLE_FILES)('%s passes only inputs that action.yml declares', (file) => {
    const example = loadWorkflowExample(file);
    for (const jobId of Object.keys(example.jobs)) {
      const inputs = gateStepInputs(file, jobId);
      for (const key of Object.keys(inputs)) expect(DECLARED_INPUTS, `${file}`).toContain(key);
    }
  });

  it.each(EXAMPLE_FILES)('%s has a name, an on: and permissions: for its token', (file) => {
    const example = loadWorkflowExample(file);
    expect(example.name).not.toBe('');
    expect(example.on).toBeDefined();
    expect(example.permissions).toBeTypeOf('object');
  });

  it('gateStepInputs gives the with: values as strings, expressions as written', () => {
    expect(gateStepInputs('pull-request.yml', 'pull-request')).toEqual({
      config: '.github/perf-gate.yml',
      'comment-key': 'inf2-perf',
      comment: 'never',
    });
    expect(gateStepInputs('pull-request.yml', 'main')).toEqual({
      config: '.github/perf-gate.yml',
      'comment-key': 'inf2-perf',
    });
    expect(gateStepInputs('pull-request.yml', 'comment')).toEqual({ mode: 'comment' });
    expect(gateStepInputs('nightly.yml')).toEqual({
      config: '.github/perf-gate.yml',
      'comment-key': 'inf2-perf',
      'nightly-issue': 'true',
      'accept-current': '${{ inputs.accept-current }}',
    });
    expect(gateStepInputs('examples/workflows/fork-safe-comment.yml', 'comment')).toEqual({
      mode: 'comment',
    });
    expect(() => gateStepInputs('pull-request.yml', 'nope')).toThrow(/no job 'nope'/);
  });

  it('the self-hosted examples run on inf2 and check out the code before the gate', () => {
    for (const file of ['pull-request.yml', 'nightly.yml', 'fork-safe-pr.yml', 'matrix.yml']) {
      const job = Object.values(loadWorkflowExample(file).jobs)[0]!;
      expect(JSON.stringify(job['runs-on']), file).toMatch(/self-hosted/);
      const uses = (job.steps ?? []).map((step) => step.uses ?? '');
      expect(uses[0], file).toBe('actions/checkout@v5');
      expect(uses[1], file).toContain('neuron-perf-gate');
    }
  });

  it('the minimal example gates pull requests and pushes in one job whose token writes nothing', () => {
    const example = loadWorkflowExample('minimal.yml');
    expect(example.permissions).toEqual({ contents: 'read', actions: 'read' });
    expect(example.on).toEqual({ pull_request: {}, push: { branches: ['main'] } });
    // No token that may push: the baseline is an artifact of each push (actions: read to
    // find it), and the pull request gets no comment (the check and the job summary).
    expect(gateStepInputs('minimal.yml')).toEqual({
      'baseline-store': 'artifact',
      comment: 'never',
    });
  });

  it('stage 2 of the fork-safe pair follows stage 1 by name and checks out nothing', () => {
    const stage1 = loadWorkflowExample('fork-safe-pr.yml');
    const stage2 = loadWorkflowExample('fork-safe-comment.yml');
    expect(stage1.permissions).toEqual({ contents: 'read', issues: 'read' });
    expect(stage2.on).toEqual({
      workflow_run: { workflows: [stage1.name], types: ['completed'] },
    });
    expect(stage2.permissions).toEqual({
      actions: 'read',
      'pull-requests': 'write',
      statuses: 'write',
    });
    const steps = Object.values(stage2.jobs).flatMap((job) => job.steps ?? []);
    expect(steps.some((step) => step.uses?.startsWith('actions/checkout'))).toBe(false);
    expect(gateStepInputs('fork-safe-pr.yml')['comment-key']).toBe(
      gateStepInputs('nightly.yml')['comment-key'],
    );
  });

  it.each(['pull-request.yml', 'matrix.yml'])(
    '%s comments from a job after the gate job that checks out nothing, also after a regression',
    (file) => {
      const example = loadWorkflowExample(file);
      const comment = example.jobs.comment!;
      expect(comment.needs).toBe('pull-request');
      // A regression fails the gate job: the comment job still runs, unless cancelled.
      expect(comment.if).toMatch(
        /^\$\{\{ !cancelled\(\) && github\.event_name == 'pull_request' \}\}$/,
      );
      expect(JSON.stringify(comment['runs-on'])).not.toMatch(/self-hosted/);
      expect((comment.steps ?? []).map((step) => step.uses ?? '')).toEqual([
        'your-org/neuron-perf-gate@v0',
      ]);
      expect(gateStepInputs(file, 'comment')).toEqual({ mode: 'comment' });
      expect(gateStepInputs(file, 'pull-request').comment).toBe('never');
    },
  );

  it('the matrix example runs each entry on its own runner label', () => {
    for (const id of ['pull-request', 'main']) {
      const job = loadWorkflowExample('matrix.yml').jobs[id]!;
      expect(job['runs-on']).toEqual(['self-hosted', '${{ matrix.runner }}']);
      expect(job.strategy).toMatchObject({ matrix: { runner: ['inf2-xlarge', 'inf2-8xlarge'] } });
      // One key per size, the same in the pull request's job and main's: a key without the
      // size would put both sizes in one history, one per job would part PRs from main.
      expect(gateStepInputs('matrix.yml', id)['comment-key']).toBe(
        'inf2-perf-${{ matrix.runner }}',
      );
    }
  });
});

describe('README and docs/ links', () => {
  it.each([...referencedPaths()].filter((path) => !path.startsWith('..')))('%s exists', (path) => {
    expect(existsSync(join(ROOT, path))).toBe(true);
  });

  it('the README leads with serving: its first screen links the serving workflow and the SDK upgrade, then shows the vllm serve config', () => {
    const firstScreen = README.split('\n').slice(0, FIRST_SCREEN_LINES).join('\n');
    const links = linkTargets(firstScreen, 'README.md');
    expect(links).toEqual(
      expect.arrayContaining([
        'examples/vllm-serve/perf-gate.yml',
        'examples/workflows/vllm-serve.yml',
        'examples/workflows/sdk-upgrade.yml',
      ]),
    );
    // The reranker stays the demo that needs no install.
    expect(firstScreen).toContain('node scripts/demo.mjs');
    const serving = shownExamples(README).find(
      (s) => s.path === 'examples/vllm-serve/perf-gate.yml',
    );
    expect(serving?.line).toBeLessThanOrEqual(FIRST_SCREEN_LINES);
    expect(serving?.block).toMatch(/^\s+vllm serve /m);
  });

  it('the README stays short: at most 250 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('the README shows the PR comment screenshot, and the file is a PNG', () => {
    const image = /!\[[^\]]+\]\((docs\/images\/[^)]+\.png)\)/.exec(README);
    expect(image).not.toBeNull();
    const bytes = readFileSync(join(ROOT, image![1]!));
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});

describe('docs/inputs.md Inputs table', () => {
  const names = tableNames(INPUTS_PAGE, 'Inputs');

  it.each(DECLARED_INPUTS)('lists the input %s', (input) => {
    expect(names).toContain(input);
  });

  it('lists no input that action.yml does not declare', () => {
    expect(names.filter((name) => !DECLARED_INPUTS.includes(name))).toEqual([]);
  });

  it('lists every output of action.yml', () => {
    const outputs = Object.keys(
      (parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { outputs: object }).outputs,
    );
    expect(tableNames(INPUTS_PAGE, 'Outputs').sort()).toEqual(outputs.sort());
  });
});

describe('the README config and pull-request.yml together', () => {
  const GATE_JOBS = EXAMPLE_FILES.flatMap((file) =>
    Object.keys(loadWorkflowExample(file).jobs).map((jobId) => [file, jobId] as const),
  ).filter(([file, jobId]) => worstMinutes(file, jobId) !== undefined);

  it('find a gate job that runs benchmarks in every example but the comment-only one', () => {
    expect(new Set(GATE_JOBS.map(([file]) => file)).size).toBe(EXAMPLE_FILES.length - 1);
  });

  it.each(GATE_JOBS)(
    "%s job %s leaves the gate's worst case time, so GitHub never kills it before the report",
    (file, jobId) => {
      const job = loadWorkflowExample(file).jobs[jobId]!;
      // Without timeout-minutes, GitHub gives a job 360 minutes.
      const timeout = Number(job['timeout-minutes'] ?? GITHUB_JOB_TIMEOUT_MINUTES);
      expect(timeout).toBeGreaterThanOrEqual(worstMinutes(file, jobId)!);
    },
  );

  it('share one history between pull requests and nightly runs', () => {
    expect(gateStepInputs('pull-request.yml', 'pull-request')['comment-key']).toBe(
      gateStepInputs('nightly.yml')['comment-key'],
    );
  });

  it('cancel only pull request runs, and give each push to main a group of its own', () => {
    const workflow = parse(readFileSync(join(EXAMPLES_DIR, 'pull-request.yml'), 'utf8')) as {
      concurrency: { group: string; 'cancel-in-progress': string };
    };
    expect(workflow.concurrency['cancel-in-progress']).toBe(
      "${{ github.event_name == 'pull_request' }}",
    );
    // A shared group would drop all but the newest pending push: each push has its commit's.
    expect(workflow.concurrency.group).toMatch(/github\.sha/);
    expect(workflow.concurrency.group).toMatch(/event_name == 'pull_request' && github\.ref/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// scripts/release.mjs with real git, on a copy of this repository's committed HEAD in a bare
// "GitHub" repository: it tags vX.Y.Z and moves vX, pushes both, refuses what it must
// (a version tagged already, uncommitted changes, a dist/ that fails its check), and moves vX
// on the next release of the major. Then every `uses:` of the action that the examples, the
// README and docs/ show resolves in that released repository to a commit that holds the
// action, and the commands docs/release.md gives (pin a SHA, mirror into an organisation) do
// what it says, run as written against local repositories.
// The steps run in order, each on the repositories the one before left.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { shellBlocks } from '../support/shell-blocks.js';
import { EXAMPLES_DIR, loadWorkflowExample } from '../support/workflow-example.js';

const exec = promisify(execFile);
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const [MAJOR, MINOR, PATCH] = VERSION.split('.').map(Number) as [number, number, number];
const TAG = `v${VERSION}`;
const MAJOR_TAG = `v${MAJOR}`;
const NEXT_VERSION = `${MAJOR}.${MINOR}.${PATCH + 1}`;
const NEXT_TAG = `v${NEXT_VERSION}`;
const OWNER = 'your-org';
const RELEASE_DOC = readFileSync(join(ROOT, 'docs', 'release.md'), 'utf8');

// git with a test identity, no signing, and nothing of an enclosing git process (a hook's
// GIT_DIR would send every command to the wrong repository).
const ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_'))),
  GIT_AUTHOR_NAME: 'Release Test',
  GIT_AUTHOR_EMAIL: 'release@example.com',
  GIT_COMMITTER_NAME: 'Release Test',
  GIT_COMMITTER_EMAIL: 'release@example.com',
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'tag.gpgSign',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'commit.gpgSign',
  GIT_CONFIG_VALUE_1: 'false',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  return gitWith({}, cwd, ...args);
}

async function gitWith(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): Promise<string> {
  return (await exec('git', args, { cwd, env: { ...ENV, ...env } })).stdout.trim();
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(file: string, args: string[], cwd: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await exec(file, args, { cwd, env: ENV });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function release(cwd: string, ...args: string[]): Promise<Outcome> {
  return run(process.execPath, ['scripts/release.mjs', ...args], cwd);
}

/** Every tag of a repository and the object it names: `refs/tags/v0 <tag object>`. */
function tags(repo: string): Promise<string> {
  return git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/tags');
}

/** The commit a tag names, or undefined when the repository has no such tag. */
async function tagged(repo: string, tag: string): Promise<string | undefined> {
  const out = await run(
    'git',
    ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`],
    repo,
  );
  return out.code === 0 ? out.stdout.trim() : undefined;
}

/**
 * The commit a `uses:` ref names in `repo`, as GitHub looks it up, but only in what a release
 * makes: a tag (vX, vX.Y.Z) or a full commit SHA. A branch is not a release.
 */
async function resolveRef(repo: string, ref: string): Promise<string | undefined> {
  if (/^[0-9a-f]{40}$/.test(ref)) {
    const out = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repo);
    return out.code === 0 ? out.stdout.trim() : undefined;
  }
  return tagged(repo, ref);
}

/** Fails unless the commit holds the action: action.yml, and the dist/index.js it runs. */
async function actionAt(repo: string, commit: string): Promise<void> {
  const action = parse(await git(repo, 'show', `${commit}:action.yml`)) as {
    runs?: { main?: string };
  };
  const main = action.runs?.main;
  expect(main, `action.yml at ${commit} has no runs.main`).toBe('dist/index.js');
  await git(repo, 'cat-file', '-e', `${commit}:${main}`);
}

/** The one sh block of docs/release.md with every one of `marks`. */
function releaseDocBlock(...marks: string[]): string {
  const found = shellBlocks(RELEASE_DOC)
    .map((block) => block.text)
    .filter((text) => marks.every((m) => text.includes(m)));
  if (found.length !== 1) {
    throw new Error(`docs/release.md: ${found.length} sh blocks with ${marks.join(' and ')}`);
  }
  return found[0]!;
}

function bash(script: string, cwd: string): Promise<Outcome> {
  return run('bash', ['-euo', 'pipefail', '-c', script], cwd);
}

// ---- Where the examples name the action ----

interface Use {
  file: string;
  line: number;
  owner: string;
  ref: string;
}

/** The README, the docs/ pages, and every .yml and .md file under examples/. */
function pagesAndExamples(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return under(path);
      return /\.(ya?ml|md)$/.test(name) ? [path] : [];
    });
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name));
  return [join(ROOT, 'README.md'), ...docs, ...under(join(ROOT, 'examples'))].map((path) =>
    relative(ROOT, path),
  );
}

/**
 * Each `<owner>/neuron-perf-gate@<ref>` in the file, in a workflow, a fenced block or the text.
 * A ref that is a shell substitution (`@$(git rev-parse ...)`) is docs/release.md's pin
 * command, run by its own test below.
 */
function usesIn(file: string): Use[] {
  const uses: Use[] = [];
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      for (const m of text.matchAll(/([\w.-]*)\/neuron-perf-gate@([^\s`'"#)\]]*)/g)) {
        if (m[2]!.startsWith('$(')) continue;
        uses.push({ file, line: index + 1, owner: m[1]!, ref: m[2]! });
      }
    });
  return uses;
}

const FILES_WITH_USES = pagesAndExamples().filter((file) => usesIn(file).length > 0);
const EXAMPLE_WORKFLOWS = readdirSync(EXAMPLES_DIR)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();

// ---- The repositories ----

let dir: string;
/** The bare repository standing for GitHub's copy, where the release pushes its tags. */
let hub: string;
/** The maintainer's clone of it, where scripts/release.mjs runs. */
let maintainer: string;
let released: string;
let firstRelease: Outcome;

beforeAll(async () => {
  dir = await tempDir('perf-gate-release-script-');
  // GitHub's copy: one commit with the tree of this repository's committed HEAD (no tags,
  // no history, so that the mirror commands below copy megabytes, not every commit), except
  // scripts/release.mjs, which is the one on disk: the script under test, edited or not.
  const seed = join(dir, 'seed.git');
  await git(dir, 'clone', '--quiet', '--bare', '--no-tags', '--single-branch', ROOT, seed);
  const head = await git(seed, 'rev-parse', 'HEAD');
  const script = 'scripts/release.mjs';
  const mode = (await git(seed, 'ls-tree', 'HEAD', script)).split(' ')[0];
  const blob = await git(seed, 'hash-object', '-w', join(ROOT, script));
  const index = { GIT_INDEX_FILE: join(dir, 'snapshot-index') };
  await gitWith(index, seed, 'read-tree', 'HEAD');
  await gitWith(index, seed, 'update-index', '--cacheinfo', `${mode},${blob},${script}`);
  const tree = await gitWith(index, seed, 'write-tree');
  const snapshot = await git(seed, 'commit-tree', tree, '-m', `The tree of ${head}`);
  hub = join(dir, 'upstream', 'neuron-perf-gate.git');
  await git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', hub);
  await git(seed, 'push', '--quiet', hub, `${snapshot}:refs/heads/main`);
  maintainer = join(dir, 'maintainer');
  await git(dir, 'clone', '--quiet', hub, maintainer);
  released = await git(maintainer, 'rev-parse', 'HEAD');
  // dist/ against a fresh bundle of src/ is `npm run check:dist`, which `npm test` runs on this
  // same commit; rebuilding the bundle here would take minutes. The step that calls it is
  // tested below with a stand-in.
  firstRelease = await release(maintainer, VERSION, '--push', 'origin', '--skip-dist-check');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('scripts/release.mjs, then the examples against what it made', () => {
  it(`tags HEAD ${TAG} and ${MAJOR_TAG}, both annotated, and pushes them`, async () => {
    expect(firstRelease.code, firstRelease.stderr).toBe(0);
    expect(firstRelease.stdout).toContain(`as ${TAG} and moved ${MAJOR_TAG} to it`);
    for (const repo of [maintainer, hub]) {
      expect(await tagged(repo, TAG)).toBe(released);
      expect(await tagged(repo, MAJOR_TAG)).toBe(released);
      for (const tag of [TAG, MAJOR_TAG]) {
        expect(await git(repo, 'cat-file', '-t', `refs/tags/${tag}`)).toBe('tag');
      }
    }
    expect(await tags(hub)).toBe(await tags(maintainer));
  });

  it('finds the action named in the README, docs/ and every example workflow', () => {
    expect(FILES_WITH_USES).toContain('README.md');
    for (const file of EXAMPLE_WORKFLOWS) {
      const path = `examples/workflows/${file}`;
      // The text scan finds each step that uses the action, as GitHub reads the workflow.
      const steps = Object.values(loadWorkflowExample(file).jobs)
        .flatMap((job) => job.steps ?? [])
        .filter((step) => step.uses?.includes('neuron-perf-gate'));
      expect(steps.length, path).toBeGreaterThan(0);
      expect(usesIn(path).length, path).toBe(steps.length);
    }
  });

  it.each(FILES_WITH_USES)(
    `%s: each uses: names ${OWNER}/neuron-perf-gate at a ref the release made, holding the action`,
    async (file) => {
      for (const use of usesIn(file)) {
        const where = `${use.file}:${use.line} (${use.owner}/neuron-perf-gate@${use.ref})`;
        // One placeholder everywhere, the one docs/release.md says to replace.
        expect(use.owner, where).toBe(OWNER);
        const commit = await resolveRef(hub, use.ref);
        expect(
          commit,
          `${where}: no tag or commit '${use.ref}' in a repository released as ${TAG} (tags ` +
            `${TAG}, ${MAJOR_TAG}); examples use @${MAJOR_TAG}`,
        ).toBe(released);
        await actionAt(hub, commit!);
      }
    },
  );

  it.each(EXAMPLE_WORKFLOWS)(
    `%s says on its first step with the action that ${OWNER} is to be replaced (docs/release.md)`,
    (file) => {
      const lines = readFileSync(join(EXAMPLES_DIR, file), 'utf8').split('\n');
      const first = lines.findIndex((line) =>
        /^\s*-?\s*uses: [\w.-]+\/neuron-perf-gate@/.test(line),
      );
      expect(first, file).toBeGreaterThan(0);
      expect(lines[first - 1], file).toMatch(/^\s*# your-org: .*\(docs\/release\.md\)/);
    },
  );

  it(`refuses to tag ${VERSION} again: a release tag is never moved`, async () => {
    const before = await tags(maintainer);
    const again = await release(maintainer, VERSION, '--push', 'origin', '--skip-dist-check');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`tag ${TAG} exists already; releases are never moved`);
    expect(await tags(maintainer)).toBe(before);
    expect(await tags(hub)).toBe(before);
  });

  it('refuses a working tree with uncommitted changes, staged or not, and tags nothing', async () => {
    await bumpVersion(maintainer, NEXT_VERSION);
    const before = await tags(maintainer);
    const readme = join(maintainer, 'README.md');
    const original = await readFile(readme, 'utf8');
    await writeFile(readme, `${original}\nAn edit not committed.\n`);
    for (const stage of [false, true]) {
      if (stage) await git(maintainer, 'add', 'README.md');
      const dirty = await release(maintainer, NEXT_VERSION, '--skip-dist-check');
      expect(dirty.code, `staged: ${stage}`).toBe(1);
      expect(dirty.stderr).toContain(
        'release: the working tree has uncommitted changes: commit or stash them, then release.',
      );
      expect(await tags(maintainer)).toBe(before);
    }
    await git(maintainer, 'reset', '--quiet', '--hard');
  });

  it('checks dist/ before it tags: the committed mode of dist/cli.js, and npm run check:dist', async () => {
    // A scratch clone at the next version, so that nothing else stops the release.
    const scratch = join(dir, 'scratch');
    await git(dir, 'clone', '--quiet', maintainer, scratch);
    await chmod(join(scratch, 'dist', 'cli.js'), 0o644);
    await git(scratch, 'update-index', '--chmod=-x', 'dist/cli.js');
    await git(scratch, 'commit', '--quiet', '-m', 'dist/cli.js not executable');
    const mode = await release(scratch, NEXT_VERSION, '--skip-dist-check');
    expect(mode.code).toBe(1);
    expect(mode.stderr).toContain('dist/cli.js is committed with mode 100644, not 100755');
    await git(scratch, 'reset', '--quiet', '--hard', 'HEAD~1');

    // check:dist rebuilds the bundle (minutes); a stand-in with its exit code shows the
    // release runs it, and tags nothing when it fails. The release looks for the dev
    // dependencies first: this repository's, linked in.
    await symlink(join(ROOT, 'node_modules'), join(scratch, 'node_modules'));
    const pkgPath = join(scratch, 'package.json');
    const pkg = JSON.parse(await readFile(pkgPath, 'utf8'));
    for (const [code, says] of [
      [1, 'stand-in: dist/ is out of date'],
      [0, 'stand-in: dist/ matches'],
    ] as const) {
      pkg.scripts['check:dist'] = `node -e "console.error('${says}'); process.exit(${code})"`;
      await writeFile(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
      await git(scratch, 'commit', '--quiet', '-am', `check:dist exits ${code}`);
      const checked = await release(scratch, NEXT_VERSION);
      expect(checked.stderr).toContain(says);
      expect(checked.code).toBe(code);
      expect(await tagged(scratch, NEXT_TAG)).toBe(
        code === 0 ? await git(scratch, 'rev-parse', 'HEAD') : undefined,
      );
    }
  });

  it('without node_modules, says to run npm ci instead of failing with a stack trace, and tags nothing', async () => {
    // The maintainer's clone is fresh: no npm ci, so no rollup to rebuild dist/ with.
    const before = await tags(maintainer);
    const fresh = await release(maintainer, NEXT_VERSION);
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toContain(
      'release: dist/ cannot be checked against src/ without the dev dependencies',
    );
    expect(fresh.stderr).toMatch(/Install them first: npm ci/);
    expect(fresh.stderr).not.toMatch(/^\s+at /m);
    expect(await tags(maintainer)).toBe(before);
  });

  it('names the git command that failed, outside a git repository, without a stack trace', async () => {
    const outside = join(dir, 'not-a-repository');
    await mkdir(join(outside, 'scripts'), { recursive: true });
    await writeFile(join(outside, 'package.json'), JSON.stringify({ version: VERSION }));
    await copyFile(join(ROOT, 'scripts', 'release.mjs'), join(outside, 'scripts', 'release.mjs'));
    const result = await run(process.execPath, ['scripts/release.mjs', VERSION], outside);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^release: git status --porcelain --untracked-files=no failed: /);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it("docs/release.md's mirror commands copy the release into an organisation's repository", async () => {
    const org = await mirrorOnce();
    expect(await tags(org)).toBe(await tags(hub));
    expect(await tagged(org, MAJOR_TAG)).toBe(released);
  });

  it(`the next release, ${NEXT_VERSION}, moves ${MAJOR_TAG} (a forced push of that tag alone) and leaves ${TAG}`, async () => {
    const first = await git(hub, 'rev-parse', `refs/tags/${TAG}`);
    const next = await release(maintainer, NEXT_VERSION, '--push', 'origin', '--skip-dist-check');
    expect(next.code, next.stderr).toBe(0);
    const head = await git(maintainer, 'rev-parse', 'HEAD');
    expect(head).not.toBe(released);
    for (const repo of [maintainer, hub]) {
      expect(await tagged(repo, NEXT_TAG)).toBe(head);
      expect(await tagged(repo, MAJOR_TAG)).toBe(head);
      expect(await tagged(repo, TAG)).toBe(released);
      expect(await git(repo, 'rev-parse', `refs/tags/${TAG}`)).toBe(first);
    }
    // No branch was pushed, only the tags.
    expect(await git(hub, 'rev-parse', 'HEAD')).toBe(released);
  });

  it(`docs/release.md's commands for a later release bring the mirror ${NEXT_TAG} and the moved ${MAJOR_TAG}`, async () => {
    const org = await mirrorLater();
    expect(await tags(org)).toBe(await tags(hub));
    expect(await tagged(org, MAJOR_TAG)).toBe(await tagged(hub, NEXT_TAG));
    expect(await tagged(org, TAG)).toBe(released);
  });

  it("docs/release.md's pin command prints a full-SHA uses: line of the newest release that resolves", async () => {
    // A team's clone of its mirror, made before the next release: its v0 is the old one.
    const printed = await bash(releaseDocBlock('rev-parse', 'uses:'), teamClone);
    expect(printed.code, printed.stderr).toBe(0);
    const line = printed.stdout.trim();
    const m = /^- uses: ([\w.-]+)\/neuron-perf-gate@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$/.exec(line);
    expect(m, line).not.toBeNull();
    const [, owner, sha, comment] = m!;
    expect(owner).toBe(OWNER);
    expect(comment).toBe(NEXT_TAG);
    expect(sha).toBe(await tagged(hub, NEXT_TAG));
    expect(await resolveRef(orgMirror, sha!)).toBe(sha);
    await actionAt(orgMirror, sha!);
  });
});

async function bumpVersion(repo: string, version: string): Promise<void> {
  const path = join(repo, 'package.json');
  const text = await readFile(path, 'utf8');
  const bumped = text.replace(`"version": "${VERSION}"`, `"version": "${version}"`);
  expect(bumped).not.toBe(text);
  await writeFile(path, bumped);
  await git(repo, 'commit', '--quiet', '-am', `Version ${version}`);
}

// The organisation's repository and the copy the commands work in, as docs/release.md names
// them: https://github.com/<upstream-owner>/... is the hub, https://github.com/your-org/... the
// organisation's (bare) repository.
let orgMirror: string;
let mirrorWork: string;
let teamClone: string;

function asRun(block: string): string {
  return block
    .replaceAll('https://github.com/<upstream-owner>/neuron-perf-gate.git', `file://${hub}`)
    .replaceAll(`https://github.com/${OWNER}/neuron-perf-gate.git`, `file://${orgMirror}`);
}

async function mirrorOnce(): Promise<string> {
  orgMirror = join(dir, 'org', 'neuron-perf-gate.git');
  mirrorWork = join(dir, 'mirror-work');
  const branch = await git(hub, 'symbolic-ref', '--short', 'HEAD');
  await git(dir, 'init', '--quiet', '--bare', `--initial-branch=${branch}`, orgMirror);
  await mkdir(mirrorWork);
  const block = releaseDocBlock('clone --bare', 'push --mirror');
  expect(block).toContain('https://github.com/<upstream-owner>/neuron-perf-gate.git');
  expect(block).toContain(`https://github.com/${OWNER}/neuron-perf-gate.git`);
  const once = await bash(asRun(block), mirrorWork);
  expect(once.code, once.stderr).toBe(0);
  teamClone = join(dir, 'team');
  await git(dir, 'clone', '--quiet', orgMirror, teamClone);
  return orgMirror;
}

async function mirrorLater(): Promise<string> {
  const block = releaseDocBlock('fetch --tags', 'push --tags');
  expect(block).toContain(`https://github.com/${OWNER}/neuron-perf-gate.git`);
  const later = await bash(asRun(block), mirrorWork);
  expect(later.code, later.stderr).toBe(0);
  return orgMirror;
}

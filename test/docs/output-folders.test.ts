// What the CLI writes lands where git does not see it: each default output folder a command
// of the CLI has (read from its source, so a new command with a folder of its own fails
// here until the docs name it) is in docs/cli.md's `.gitignore` snippet, named in the
// README's "Outside GitHub", and ignored by this repository's own .gitignore; and each file
// or folder the README's commands write in a clone is ignored there, so that the test
// command's formatting check still passes after them.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { shellBlocks } from '../support/shell-blocks.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/**
 * The folder each CLI command writes into when `--out` is not given, from the source:
 * `single(args, 'out') ?? X` with X a string, a constant's `outDir`, or '' (the config's
 * `out-dir`, whose default is in src/config/defaults.ts).
 */
function defaultOutputFolders(source: (path: string) => string = read): Map<string, string> {
  const configDefault = /\boutDir: '([^']+)'/.exec(source('src/config/defaults.ts'))?.[1];
  if (!configDefault) throw new Error('src/config/defaults.ts names no outDir');
  const folders = new Map<string, string>();
  const files = readdirSync(join(ROOT, 'src', 'cli')).filter((f) => f.endsWith('-command.ts'));
  for (const file of files) {
    const text = source(`src/cli/${file}`);
    const command = file.replace(/-command\.ts$/, '');
    for (const m of text.matchAll(/single\(args, 'out'\)\s*\?\?\s*([^,;)\s]+)/g)) {
      const fallback = m[1]!;
      const literal = /^'([^']*)'$/.exec(fallback)?.[1];
      const constant = /^[A-Z_]+\.outDir$/.test(fallback)
        ? /\boutDir: '([^']+)'/.exec(text)?.[1]
        : undefined;
      const folder = literal === '' ? configDefault : (literal ?? constant);
      if (folder === undefined) {
        throw new Error(`src/cli/${file}: cannot read the default of --out from '${fallback}'`);
      }
      folders.set(command, folder);
    }
  }
  return folders;
}

/** The lines of docs/cli.md's ```gitignore block, comments dropped. */
function gitignoreSnippet(): string[] {
  const block = /```gitignore\n([\s\S]*?)```/.exec(read('docs/cli.md'))?.[1];
  if (block === undefined) throw new Error('docs/cli.md has no ```gitignore block');
  return block.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

/** The README's section from `## heading` to the next. */
function readmeSection(heading: string): string {
  const readme = read('README.md');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** Whether git ignores `path` (a folder when it ends in /) in this repository. */
function ignored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

const FOLDERS = defaultOutputFolders();

describe('the folders the CLI writes by default', () => {
  it('are read from the source: run, calibrate, ab and bisect each have one', () => {
    expect(Object.fromEntries(FOLDERS)).toEqual({
      ab: 'perf-gate-ab',
      bisect: 'perf-gate-bisect',
      calibrate: 'perf-gate-output',
      run: 'perf-gate-output',
    });
  });

  it('the reading sees a new command with a folder of its own, and one it cannot read', () => {
    const withNew = (path: string) =>
      path === 'src/cli/ab-command.ts'
        ? read(path).replace("?? 'perf-gate-ab'", "?? 'perf-gate-new'")
        : read(path);
    expect(defaultOutputFolders(withNew).get('ab')).toBe('perf-gate-new');
    const unreadable = (path: string) =>
      path === 'src/cli/run-command.ts'
        ? read(path).replace("single(args, 'out') ?? ''", "single(args, 'out') ?? outFolder()")
        : read(path);
    expect(() => defaultOutputFolders(unreadable)).toThrow(/run-command\.ts: cannot read/);
  });

  it.each([...new Set(FOLDERS.values())])(
    '%s is in the .gitignore snippet of docs/cli.md, in the README and in this repository’s .gitignore',
    (folder) => {
      expect(gitignoreSnippet()).toContain(`/${folder}/`);
      expect(readmeSection('Outside GitHub')).toContain(`\`/${folder}/\``);
      expect(ignored(`${folder}/report.json`)).toBe(true);
    },
  );

  it('the snippet names no folder the CLI does not write', () => {
    const known = new Set([...FOLDERS.values()].map((folder) => `/${folder}/`));
    expect(gitignoreSnippet().filter((line) => !known.has(line))).toEqual([]);
  });
});

/** Flags whose value the command writes. */
const OUTPUT_FLAGS = new Set(['--out', '--save-baseline']);

/** What a CLI command of a README block writes in the clone: its output flags, else its default folder. */
function writtenBy(words: string[]): string[] {
  const at = words.findIndex((word) => /(^|\/)dist\/cli\.js$/.test(word));
  if (at < 0) return [];
  const args = words.slice(at + 1);
  const written = args.flatMap((word, i) =>
    OUTPUT_FLAGS.has(args[i - 1] ?? '') ? [word.replace(/^\.\//, '')] : [],
  );
  const folder = FOLDERS.get(args[0] ?? '');
  if (folder !== undefined && !args.includes('--out')) written.push(`${folder}/`);
  return written;
}

describe("what the README's commands write in a clone", () => {
  const written = shellBlocks(read('README.md')).flatMap((block) =>
    block.commands.flatMap((command) => [...writtenBy(command.words), ...command.writes]),
  );

  it('is found: the Outside GitHub block saves a baseline and writes a report folder', () => {
    expect(written).toEqual(expect.arrayContaining(['perf-gate-output/']));
    expect(written.some((path) => path.endsWith('baseline.json'))).toBe(true);
  });

  it.each(written)('%s is ignored by git (and so by prettier)', (path) => {
    expect(ignored(path.endsWith('/') ? `${path}report.json` : path)).toBe(true);
  });

  it('the check sees a folder that is not ignored', () => {
    expect(writtenBy(['node', 'dist/cli.js', 'run', '--out', 'perf-out'])).toEqual(['perf-out']);
    expect(ignored('perf-out/report.json')).toBe(false);
    expect(writtenBy(['node', 'dist/cli.js', 'bisect', '--good', 'a'])).toEqual([
      'perf-gate-bisect/',
    ]);
  });
});

describe('no page tells to run the CLI through npx', () => {
  const PAGES = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];

  it('the package is private, so npx neuron-perf-gate finds nothing', () => {
    expect(JSON.parse(read('package.json')).private).toBe(true);
  });

  it.each(PAGES)('%s: no code block runs npx neuron-perf-gate', (page) => {
    const blocks = [...read(page).matchAll(/```[\w-]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.filter((block) => /\bnpx neuron-perf-gate\b/.test(block))).toEqual([]);
  });
});

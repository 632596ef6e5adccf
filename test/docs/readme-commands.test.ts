// The commands the README and the docs pages give are commands the repository has: each CLI
// invocation names a subcommand and flags that the CLI's own parser takes, each `npm run`
// a script of package.json, each `node` script a file that is there. The README's blocks
// also run as written in a fresh clone: every file they read is in the repository or was
// written by a command before, and a `--command` they give is on the PATH they set.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { ROOT } from '../support/bundled.js';
import { commandsOf, shellBlocks, type ShellCommand } from '../support/shell-blocks.js';

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'examples'))
    .filter((name) => existsSync(join(ROOT, 'examples', name, 'README.md')))
    .map((name) => `examples/${name}/README.md`),
];
const text = (page: string) => readFileSync(join(ROOT, page), 'utf8');

interface PageCommand extends ShellCommand {
  page: string;
}

const COMMANDS: PageCommand[] = PAGES.flatMap((page) =>
  shellBlocks(text(page)).flatMap((block) => block.commands.map((c) => ({ ...c, page }))),
);

const label = (c: PageCommand) => `${c.page}:${c.line} ${c.text}`;

/** The CLI's arguments when the command runs it: `node [clone/]dist/cli.js`, `neuron-perf-gate`. */
function cliArgs(words: string[]): string[] | undefined {
  const [first = '', second = ''] = words;
  if (first === 'node' && /(^|\/)dist\/cli\.js$/.test(second)) return words.slice(2);
  if (first === 'neuron-perf-gate' || /(^|\/)dist\/cli\.js$/.test(first)) return words.slice(1);
  return undefined;
}

/** The script of `npm run X` / `npm test`, or undefined for other commands. */
function npmScript(words: string[]): string | undefined {
  if (words[0] !== 'npm') return undefined;
  if (words[1] === 'run' || words[1] === 'run-script') return words[2];
  if (words[1] === 'test' || words[1] === 't') return 'test';
  return undefined;
}

/** The script `node X` runs, when it is not the CLI. */
function nodeScript(words: string[]): string | undefined {
  if (words[0] !== 'node' || cliArgs(words) !== undefined) return undefined;
  return words.slice(1).find((word) => !word.startsWith('-'));
}

/** A flag no command has: the parser stops there, after reading every word before it. */
const END = '--docs-check-end-of-arguments';

/**
 * What the CLI's own parser says about the arguments (undefined: nothing). The arguments
 * get END appended, so every command stops at its parser with "unknown option END" when
 * the words before it are all right, and runs nothing; a `--help` is run as it is.
 */
async function parserProblem(args: string[]): Promise<string | undefined> {
  let stderr = '';
  const help = args.includes('--help') || args.includes('-h');
  const code = await runCli(help ? args : [...args, END], {
    cwd: ROOT,
    env: {},
    stdout: () => undefined,
    stderr: (t) => {
      stderr += t;
    },
  });
  if (help) return code === 0 ? undefined : stderr || `exit code ${code}`;
  if (code === 2 && stderr.includes(`unknown option '${END}'`)) return undefined;
  return stderr || `exit code ${code}`;
}

const CLI_COMMANDS = COMMANDS.filter((c) => cliArgs(c.words) !== undefined);
const NPM_COMMANDS = COMMANDS.filter((c) => npmScript(c.words) !== undefined);
const NODE_COMMANDS = COMMANDS.filter((c) => nodeScript(c.words) !== undefined);

describe('shell commands of the README, docs/ and the examples', () => {
  it('are found: the README runs the CLI, npm scripts are named, node runs scripts', () => {
    expect(CLI_COMMANDS.filter((c) => c.page === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(CLI_COMMANDS.length).toBeGreaterThanOrEqual(15);
    expect(NPM_COMMANDS.length).toBeGreaterThanOrEqual(2);
    expect(NODE_COMMANDS.map((c) => c.page)).toContain('README.md');
  });

  it.each(CLI_COMMANDS.map((c) => [label(c), c] as const))(
    '%s: the CLI takes this command and these flags',
    async (_label, command) => {
      expect(await parserProblem(cliArgs(command.words)!)).toBeUndefined();
    },
  );

  it.each(NPM_COMMANDS.map((c) => [label(c), c] as const))(
    '%s: the script is in package.json',
    (_label, command) => {
      expect(Object.keys(PACKAGE.scripts)).toContain(npmScript(command.words));
    },
  );

  it.each(NODE_COMMANDS.map((c) => [label(c), c] as const))(
    '%s: the script is in the repository',
    (_label, command) => {
      expect(existsSync(join(ROOT, nodeScript(command.words)!))).toBe(true);
    },
  );

  it.each(PAGES)('%s: every `npm run X` it mentions, also in prose, is a script', (page) => {
    const named = [...text(page).matchAll(/\bnpm run ([a-z][\w:.-]*)/g)].map((m) => m[1]!);
    expect(named.filter((script) => !(script in PACKAGE.scripts))).toEqual([]);
  });
});

/** Flags whose value is a file or folder the command writes. */
const OUTPUT_FLAGS = new Set(['out', 'save-baseline', 'output-file']);

/** A word that names a file or folder of the clone (not a URL, an option or NAME=value). */
function isPath(word: string): boolean {
  if (word.startsWith('-') || word.includes('=') || /^[a-z]+:\/\//.test(word)) return false;
  return word.includes('/') || /\.(json|ya?ml|mjs|js)$/.test(word);
}

/** `$PWD/x` is the clone's x; a path from `/` or `~` is outside it and is not checked. */
function inClone(word: string): string | undefined {
  const path = word.replace(/^\$PWD\//, '').replace(/^\.\//, '');
  return path.startsWith('/') || path.startsWith('~') || path.includes('$') ? undefined : path;
}

/** Whether `path` (relative to the clone, `*` for any name) names something that exists. */
function existsInClone(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const folder = posix.dirname(path);
  const pattern = new RegExp(`^${posix.basename(path).split('*').map(escape).join('.*')}$`);
  return (
    existsSync(join(ROOT, folder)) &&
    readdirSync(join(ROOT, folder)).some((name) => pattern.test(name))
  );
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What is wrong with running the block's commands in order in a fresh clone: files read
 * that are neither in the repository nor written by a command before, and `--command`
 * executables not in a folder the block put on PATH.
 */
function cloneProblems(commands: ShellCommand[]): string[] {
  const problems: string[] = [];
  const written: string[] = [];
  const pathFolders: string[] = [];
  const readable = (path: string) =>
    existsInClone(path) || written.some((w) => path === w || path.startsWith(`${w}/`));
  for (const command of commands) {
    const { words } = command;
    const pathValue = words[0] === 'export' ? undefined : command.assignments.PATH;
    for (const assignment of [
      ...(words[0] === 'export' ? words.slice(1) : []),
      ...(pathValue !== undefined ? [`PATH=${pathValue}`] : []),
    ]) {
      const [name, value = ''] = assignment.split(/=(.*)/s);
      if (name !== 'PATH') continue;
      for (const folder of value.split(':').map(inClone)) {
        if (folder === undefined) continue;
        if (!existsInClone(folder)) problems.push(`${command.text}: no folder ${folder}`);
        pathFolders.push(folder);
      }
    }
    const cli = cliArgs(words);
    const script = nodeScript(words);
    if (script !== undefined && !existsInClone(script)) problems.push(`no script ${script}`);
    if (cli !== undefined) {
      if (words[0] === 'node' && !existsInClone(inClone(words[1]!) ?? '')) {
        problems.push(`no CLI at ${words[1]}`);
      }
      let flag: string | undefined;
      // `--flag=value` is `--flag value`.
      const args = cli.flatMap((word) =>
        /^--[^=]+=/.test(word) ? word.split(/=(.*)/s, 2) : [word],
      );
      for (const word of args) {
        if (word.startsWith('--')) {
          flag = word.slice(2).split('=')[0];
          continue;
        }
        if (flag === 'command') {
          const program = word.trim().split(/\s+/)[0]!;
          const found = pathFolders.some((folder) => existsSync(join(ROOT, folder, program)));
          if (pathFolders.length > 0 && !found) {
            problems.push(`--command ${program}: not in ${pathFolders.join(', ')}`);
          }
          continue;
        }
        if (flag !== undefined && OUTPUT_FLAGS.has(flag)) {
          written.push((inClone(word) ?? word).replace(/\/$/, ''));
          continue;
        }
        const path = isPath(word) ? inClone(word) : undefined;
        if (path !== undefined && !readable(path))
          problems.push(`${flag ? `--${flag} ` : ''}${word}: not in a clone`);
      }
    }
    written.push(...command.writes.map((w) => inClone(w) ?? w));
  }
  return problems;
}

describe("the README's commands in a fresh clone", () => {
  const blocks = shellBlocks(text('README.md'));

  it('has blocks to check, one of them running the gate on the simulator', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const all = blocks.flatMap((block) => block.commands.map((c) => c.text)).join('\n');
    expect(all).toMatch(/examples\/simulated-inf2\/bin/);
    expect(all).toMatch(/--save-baseline/);
  });

  it.each(blocks.map((block) => [block.line, block] as const))(
    'the block at line %i reads only what the clone has or an earlier command wrote',
    (_line, block) => {
      expect(cloneProblems(block.commands)).toEqual([]);
    },
  );

  it('the check sees a missing file, a file not yet written and a --command not on PATH', () => {
    expect(
      cloneProblems(
        commandsOf([
          'node dist/cli.js run --config .github/perf-gate.yml',
          'node dist/cli.js compare --baseline perf/b.json --current old/*.json',
          'node dist/cli.js run --save-baseline perf/b.json --out out',
          'node dist/cli.js compare --baseline perf/b.json --current out/report.json',
          'export PATH="$PWD/examples/simulated-inf2/bin:$PATH"',
          "node dist/cli.js run --command 'no-such-benchmark --flag'",
          'node scripts/no-such.mjs',
        ]),
      ),
    ).toEqual([
      '--config .github/perf-gate.yml: not in a clone',
      '--baseline perf/b.json: not in a clone',
      '--current old/*.json: not in a clone',
      '--command no-such-benchmark: not in examples/simulated-inf2/bin',
      'no script scripts/no-such.mjs',
    ]);
  });

  it('the parser check sees an unknown command, an unknown flag and a missing value', async () => {
    expect(await parserProblem(['run', '--config', 'x.yml'])).toBeUndefined();
    expect(await parserProblem(['baseline', 'show', 'a/b.json', '--json'])).toBeUndefined();
    expect(await parserProblem(['rerun'])).toMatch(/unknown command 'rerun'/);
    expect(await parserProblem(['compare', '--baselines', 'a.json'])).toMatch(
      /unknown option '--baselines'/,
    );
    expect(await parserProblem(['run', '--out'])).toMatch(/'--out' needs a value/);
    expect(await parserProblem(['baseline', 'list', '--gate'])).toMatch(/needs a value/);
  });
});

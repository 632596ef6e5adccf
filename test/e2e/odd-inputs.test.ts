// Odd inputs and attacks against the bundled CLI and action (issue 13, item 7): each case
// is one a user or an attacker can produce, and each got a hang, a stack trace, a wrong
// verdict or a foreign link before it was fixed. Real processes, real files, real git
// and a loopback GitHub API.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

function cli(args: string[], cwd: string, env: Record<string, string> = {}) {
  return runNode('dist/cli.js', args, { cwd, env: simulatorEnv(env) });
}

/** github-action-benchmark custom JSON: one entry per metric. */
function customResult(metrics: Record<string, number>): string {
  return JSON.stringify(
    Object.entries(metrics).map(([name, value]) => ({ name, value, unit: 'ms' })),
  );
}

/** The cells of the table row of `metric` in a markdown report, the name cell left out. */
function rowCells(markdown: string, metric: string): string[] | undefined {
  const row = markdown.split('\n').find((line) => line.startsWith(`| ${metric} (`));
  return row
    ?.split('|')
    .slice(2, -1)
    .map((cell) => cell.trim());
}

/** What GitHub's autolink extension turns into a link: a scheme or www. before a domain. */
const AUTOLINK = /(?:https?|ftp):\/\/[A-Za-z0-9_-]|\bwww\.[A-Za-z0-9_-]/i;

describe('metric and benchmark names an attacker chooses (CLI compare)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-odd-names-');
    // Names that are also properties of every JavaScript object, next to a control metric.
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'latency'];
    for (const [file, value] of [
      ['b1', 100],
      ['b2', 101],
      ['b3', 99],
      ['c1', 1000],
      ['c2', 1001],
      ['c3', 999],
    ] as const) {
      await writeFile(
        join(dir, `${file}.json`),
        customResult(Object.fromEntries(names.map((name) => [name, value]))),
      );
    }
  });

  const compare = (extra: string[], out: string) =>
    cli(
      [
        'compare',
        '--baseline',
        'b1.json',
        'b2.json',
        'b3.json',
        '--current',
        'c1.json',
        'c2.json',
        'c3.json',
        '--format',
        'custom-smaller-is-better',
        '--out',
        out,
        ...extra,
      ],
      dir,
    );

  it('judges a metric named constructor or toString like any other metric', async () => {
    // Gated by the built-in default: a 900% slowdown is a regression for every one.
    const gated = await compare([], 'gated');
    expect(gated.code, gated.stderr).toBe(1);
    // Only latency is gated: the others are shown, not gated, not "within NaN%".
    const onlyLatency = await compare(
      ['--threshold', 'default=off', '--threshold', 'latency=5%'],
      'only-latency',
    );
    expect(onlyLatency.code, onlyLatency.stderr).toBe(1);
    for (const [run, out] of [
      [gated, 'gated'],
      [onlyLatency, 'only-latency'],
    ] as const) {
      const markdown = await readFile(join(dir, out, 'comment.md'), 'utf8');
      expect(markdown).not.toContain('NaN');
      expect(run.stdout).not.toContain('NaN');
      const control = out === 'gated' ? rowCells(markdown, 'latency') : undefined;
      for (const id of ['constructor', 'to_string', 'has_own_property', 'value_of']) {
        const cells = rowCells(markdown, id);
        expect(cells, `${out}: ${id}`).toBeDefined();
        if (control) expect(cells, id).toEqual(control);
        else expect(cells!.slice(-2), id).toEqual(['—', 'not gated']);
      }
    }
  }, 60_000);

  it('writes no link from a benchmark name into the report', async () => {
    const name = 'see https://evil.example/login and www.evil.example or ftp://evil.example';
    const result = await compare(['--name', name], 'named');
    expect(result.code, result.stderr).toBe(1);
    const markdown = await readFile(join(dir, 'named', 'comment.md'), 'utf8');
    // The name is there, readable, but no autolink starts in it.
    expect(markdown.replaceAll('\u200B', '')).toContain('https://evil.example/login');
    for (const line of markdown.split('\n')) expect(line).not.toMatch(AUTOLINK);
  }, 60_000);
});

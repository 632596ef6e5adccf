// The job summary the action writes (GITHUB_STEP_SUMMARY): the report and, under it, the
// notes on what could not be done on GitHub. Those notes quote error messages that carry
// benchmark names and servers' answers, so they must not inject markdown or HTML.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishToActions, withNotes } from '../../src/publish/action.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { benchmark, expectWellFormed, outsideCode, reportOf } from '../report/support.js';

const HOSTILE =
  '<img src=x onerror=alert(1)> [login](https://evil.example/x) @octo/admins #1 ' +
  '![p](https://evil.example/p.png) `code` *bold* | cell\n\n# Heading\n<details open>';

describe('job summary notes', () => {
  let dir: string;
  const saved = { ...process.env };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perf-gate-summary-'));
    process.env.GITHUB_STEP_SUMMARY = join(dir, 'summary.md');
    process.env.GITHUB_OUTPUT = join(dir, 'output.txt');
    await writeFile(process.env.GITHUB_STEP_SUMMARY, '');
    await writeFile(process.env.GITHUB_OUTPUT, '');
  });
  afterEach(async () => {
    process.env = { ...saved };
    process.exitCode = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('escapes an attacker-named benchmark and hostile notes in the summary it writes', async () => {
    const report = reportOf([benchmark(HOSTILE, { throughput: -0.2 })]);
    const notes = [
      `the comment on pull request #7 failed: benchmark ${HOSTILE} is too long`,
      `baseline not stored: git answered ${HOSTILE}`,
    ];
    await publishToActions(
      report,
      {
        report: join(dir, 'report.json'),
        comment: join(dir, 'comment.md'),
        summary: join(dir, 'summary-file.md'),
        markdown: renderMarkdown(report),
        commentMarkdown: '',
      },
      { failOnRegression: false, notes },
    );
    const summary = await readFile(process.env.GITHUB_STEP_SUMMARY!, 'utf8');
    expect(summary).toContain('**Notes**');
    const text = outsideCode(summary);
    // Nothing of the payload is live: no tag, no link or image, no ping, no heading.
    expect(text).not.toMatch(/<img|<details open/);
    expect(text).not.toMatch(/\]\(https:\/\/evil/);
    expect(text).not.toMatch(/@octo\/admins|(^|\s)#1\b/);
    expect(text).not.toMatch(/^# Heading/m);
    expect(text).not.toContain('https://evil');
    expectWellFormed(summary);
    // Each note stays one bullet, and readable.
    const bullets = summary
      .slice(summary.indexOf('**Notes**'))
      .split('\n')
      .filter((l) => l.startsWith('- '));
    expect(bullets).toHaveLength(2);
    expect(bullets[1]).toMatch(
      /^- baseline not stored: git answered &lt;img src=x onerror=alert\(1\)&gt; /,
    );
  });

  it('leaves the summary as it is when there are no notes', () => {
    expect(withNotes('# report\n', [])).toBe('# report\n');
  });
});

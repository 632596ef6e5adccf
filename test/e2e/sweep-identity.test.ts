// A vllm bench serve sweep appended to one file (muma378/vllm-benchmark's run.sh shape),
// compared from one night to the next as a user meets it: a warm-up line less, one tag
// more, a baseline saved before benchmarks were named by all their settings, and an A/B
// of one sweep on two KV-cache backends. Identical data passes, benchmark by benchmark.
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, runNode } from '../support/bundled.js';
import { compareTexts, failingIds } from '../support/compare-files.js';
import { tempDir } from '../support/offline-result.js';

const SWEEP = readFileSync(
  join(ROOT, 'test/fixtures/formats/vllm-bench-serve/append-sweep-warmup.jsonl'),
  'utf8',
);
const LINES = SWEEP.split('\n').filter((line) => line.trim() !== '');
const NAMES = [100, 1000].map(
  (len) => `prompts=20,concurrency=16,chunksize=256,input_len=${len},kvcache=cpu`,
);

type Line = Record<string, unknown>;
/** The sweep's lines (warm-up first) with `edit` applied to each measured one. */
function sweepWith(edit: (line: Line) => Line, lines = LINES): string {
  return lines
    .map((text) => JSON.parse(text) as Line)
    .map((line) => (line.type === 'warmup' ? line : edit(line)))
    .map((line) => JSON.stringify(line))
    .join('\n');
}

/** A line with its TTFTs (seconds, per request, and the summary keys) `factor` times slower. */
function ttftSlower(line: Line, factor: number): Line {
  const slower: Line = { ...line, ttfts: (line.ttfts as number[]).map((t) => t * factor) };
  for (const key of Object.keys(line)) {
    if (/_ttft_ms$/.test(key)) slower[key] = (line[key] as number) * factor;
  }
  return slower;
}

const verdicts = (report: { benchmarks: { name: string; verdict: string }[] }) =>
  report.benchmarks.map((b) => [b.name, b.verdict]);

describe('one sweep file compared with the next night’s', () => {
  it('passes the same data without its warm-up line, benchmark by benchmark', async () => {
    const result = await compareTexts(SWEEP, LINES.slice(1).join('\n'), [], 'sweep.jsonl');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(verdicts(result.report)).toEqual(NAMES.map((name) => [name, 'pass']));
  });

  it('passes the same data with one tag more, and says which benchmark it was compared with', async () => {
    const tagged = sweepWith((line) => ({ ...line, disk_size: '400g' }));
    const result = await compareTexts(SWEEP, tagged, [], 'sweep.jsonl');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(verdicts(result.report)).toEqual(
      NAMES.map((name) => [`${name.replace(',input_len', ',disk_size=400g,input_len')}`, 'pass']),
    );
    expect(result.stdout).toContain(
      `compared with baseline "${NAMES[1]}": the settings both name are equal; this run also names disk_size=400g`,
    );
  });

  it('fails the input length whose TTFT alone is 30% slower, on TTFT only', async () => {
    const worse = sweepWith((line) => (line.input_len === '1000' ? ttftSlower(line, 1.3) : line));
    const result = await compareTexts(SWEEP, worse, [], 'sweep.jsonl');
    expect(result.code, result.stdout).toBe(1);
    expect(verdicts(result.report)).toEqual([
      [NAMES[0], 'pass'],
      [NAMES[1], 'regression'],
    ]);
    const failing = failingIds(result.report);
    expect(failing).toContain('ttft_p99');
    expect(
      failing.every((id) => id.startsWith('ttft_')),
      failing.join(),
    ).toBe(true);
  });

  it('compares an A/B of the sweep on two KV-cache backends, naming the setting that differs', async () => {
    const disk = sweepWith((line) => ({ ...line, kvcache: 'disk' }));
    const result = await compareTexts(SWEEP, disk, [], 'sweep.jsonl');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.report.benchmarks).toHaveLength(2);
    expect(result.stdout).toContain(
      `compared with baseline "${NAMES[0]}", the nearest: 4 of 5 settings equal: kvcache cpu → disk`,
    );
    const slowerDisk = sweepWith((line) => ttftSlower({ ...line, kvcache: 'disk' }, 1.3));
    const slower = await compareTexts(SWEEP, slowerDisk, [], 'sweep.jsonl');
    expect(slower.code, slower.stdout).toBe(1);
    expect(verdicts(slower.report).map(([, verdict]) => verdict)).toEqual([
      'regression',
      'regression',
    ]);
  });
});

describe('a baseline saved when benchmarks were named by the settings that differed', () => {
  it('is matched benchmark by benchmark, and the report says how', async () => {
    const dir = await tempDir('perf-gate-sweep-identity-');
    await writeFile(join(dir, 'sweep.jsonl'), SWEEP);
    const run = (args: string[]) =>
      runNode(
        CLI,
        ['run', '--command', 'cp sweep.jsonl "$PERF_GATE_OUTPUT"', '--runs', '1', ...args],
        { cwd: dir, env: { PATH: process.env.PATH } },
      );
    const saved = await run(['--save-baseline', 'baseline.json', '--out', 'first']);
    expect(saved.code, saved.stderr).toBe(0);
    // The names an earlier version wrote: only the setting that differs in the file.
    const text = await readFile(join(dir, 'baseline.json'), 'utf8');
    const old = NAMES.reduce(
      (all, name) =>
        all.replaceAll(JSON.stringify(name), JSON.stringify(name.match(/input_len=\d+/)![0])),
      text,
    );
    expect(old).not.toEqual(text);
    await writeFile(join(dir, 'baseline.json'), old);
    const next = await run(['--baseline', 'baseline.json', '--out', 'second']);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'second', 'report.json'), 'utf8'));
    expect(verdicts(report)).toEqual(NAMES.map((name) => [name, 'pass']));
    expect(next.stdout).toContain(
      'compared with baseline "input_len=1000": the settings both name are equal; this run also names ' +
        'prompts=20, concurrency=16, chunksize=256, kvcache=cpu',
    );
  });
});

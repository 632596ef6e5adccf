// A metric the result file gives as NaN has no value to show, but its row still names
// the unit and direction its format defines for it: the file's own unit for a custom
// entry, ops/s for pytest-benchmark's throughput. (Guessed from the id, the custom
// entry would read as a higher-is-better figure without a unit, and ops/s would be lost.)
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Comparison } from '../../src/model.js';
import { fixturePath } from '../formats/support.js';

/** `compare` of a file (`text`, or a fixture) with itself, in process: report and summary. */
async function compareWithItself(file: { text: string } | { fixture: string }, format = 'auto') {
  const dir = await mkdtemp(join(tmpdir(), 'perf-gate-not-measured-units-'));
  const path = 'text' in file ? join(dir, 'result.json') : fixturePath(file.fixture);
  if ('text' in file) await writeFile(path, file.text);
  let stderr = '';
  const code = await runCli(
    ['compare', '--baseline', path, '--current', path, '--out', 'out', '--format', format],
    {
      cwd: dir,
      env: {},
      stdout: () => {},
      stderr: (chunk) => {
        stderr += chunk;
      },
    },
  );
  expect(code, stderr).toBe(0);
  const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8')) as {
    benchmarks: { name: string; metrics: Comparison[] }[];
  };
  const summary = await readFile(join(dir, 'out', 'summary.md'), 'utf8');
  return { report, summary };
}

describe('not-measured rows take their unit from the format', () => {
  it("shows a custom entry's NaN in the file's unit, lower is better", async () => {
    const text = JSON.stringify([
      { name: 'latency', unit: 'ms', value: 12.5 },
      { name: 'peak memory', unit: 'MB', value: 'NaN' },
    ]).replace('"NaN"', 'NaN');
    const { report, summary } = await compareWithItself({ text }, 'custom-smaller-is-better');
    const row = report.benchmarks[0]!.metrics.find((m) => m.id === 'peak_memory');
    expect(row).toMatchObject({
      unit: 'MB',
      direction: 'lower-is-better',
      verdict: 'missing',
      current: null,
    });
    expect(summary).toMatch(/\| peak_memory \(MB\) +\|.*⚪ not measured \|/);
  });

  it("shows pytest-benchmark's NaN throughput in ops/s", async () => {
    const { report, summary } = await compareWithItself({
      fixture: 'pytest-benchmark/nan-round.json',
    });
    const nan = report.benchmarks.find((b) => b.name.includes('bs4'))!;
    expect(nan.metrics.find((m) => m.id === 'throughput')).toMatchObject({
      unit: 'ops/s',
      direction: 'higher-is-better',
      verdict: 'missing',
    });
    expect(summary).toMatch(/\| throughput \(ops\/s\) +\| +— \|.*⚪ not measured \|/);
  });
});

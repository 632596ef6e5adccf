// `neuron-perf-gate compare` of two result files given as texts, as a user runs it from the
// committed bundle: the exit code, what it printed and the report it wrote.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI, runNode } from './bundled.js';
import { tempDir } from './offline-result.js';

export interface CompareOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  /** report.json, or undefined when the run wrote none (exit 2 before judging). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  report: any;
}

/**
 * Runs `compare` of `before` against `after` (texts) in a new folder; `name` is the file
 * name both are written under (its extension decides JSON or JSON Lines).
 */
export async function compareTexts(
  before: string,
  after: string,
  flags: string[] = [],
  name = 'result.json',
): Promise<CompareOutcome> {
  const dir = await tempDir('perf-gate-formats-one-');
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const [baseline, current] = [`${stem}-before${ext}`, `${stem}-after${ext}`];
  await writeFile(join(dir, baseline), before);
  await writeFile(join(dir, current), after);
  const run = await runNode(
    CLI,
    ['compare', '--baseline', baseline, '--current', current, '--out', 'out', ...flags],
    { cwd: dir, env: { PATH: process.env.PATH } },
  );
  const report = await readFile(join(dir, 'out', 'report.json'), 'utf8').then(
    (text) => JSON.parse(text),
    () => undefined,
  );
  return { ...run, report };
}

/** The ids of every metric the report judged a regression, over all its benchmarks. */
export function failingIds(report: {
  benchmarks: { metrics: { id: string; verdict: string }[] }[];
}): string[] {
  return report.benchmarks.flatMap((b) =>
    b.metrics.filter((m) => m.verdict === 'regression').map((m) => m.id),
  );
}

// docs/running.md's table of job timeouts: for each example workflow and each config it is
// meant to run (the README's command config, the serving recipe's), the sum it shows adds
// up to the worst case it states, that worst case is the gate's (test/support/example-budget.ts,
// the same bound the examples' comments are held to), and the workflow's jobs that run the
// gate have the timeout-minutes the row states, at least that worst case.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { readmeConfigText, worstMinutes, type ExampleConfig } from '../support/example-budget.js';
import { loadWorkflowExample } from '../support/workflow-example.js';

const MARKER = '<!-- job-timeouts: checked by test/docs/job-timeouts.test.ts -->';
const README_CONFIG = "the README's command config";
const SERVING_CONFIG = 'examples/vllm-serve/perf-gate.yml';

interface Row {
  workflow: string;
  config: string;
  sum: string;
  worst: number;
  timeout: number;
}

/** The rows of the table after the marker. */
function tableRows(page: string): Row[] {
  const at = page.indexOf(MARKER);
  if (at < 0) throw new Error(`docs/running.md has no ${MARKER}`);
  const lines = page
    .slice(at + MARKER.length)
    .trimStart()
    .split('\n');
  const table = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('|')),
  );
  return table.slice(2).map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/`/g, ''));
    const [workflow, config, sum, worst, timeout] = cells as [
      string,
      string,
      string,
      string,
      string,
    ];
    return { workflow, config, sum, worst: Number(worst), timeout: Number(timeout) };
  });
}

/** The value of a sum as the docs write it: numbers, +, ×, brackets and words that name them. */
function valueOf(sum: string): number {
  const expression = sum
    .replace(/[a-z]+/g, '')
    .replace(/×/g, '*')
    .trim();
  if (!/^[\d\s+*()]+$/.test(expression)) throw new Error(`not a sum: ${sum}`);
  return Function(`"use strict"; return (${expression});`)() as number;
}

function configOf(name: string): ExampleConfig {
  const text = name === README_CONFIG ? readmeConfigText() : readFileSync(join(ROOT, name), 'utf8');
  return parse(text) as ExampleConfig;
}

/** The jobs of a workflow that run benchmarks, and their timeout-minutes. */
function gateJobs(workflow: string, config: ExampleConfig): [string, number][] {
  const example = loadWorkflowExample(workflow);
  return Object.entries(example.jobs)
    .filter(([jobId]) => worstMinutes(workflow, jobId, config) !== undefined)
    .map(([jobId, job]) => [jobId, Number(job['timeout-minutes'])]);
}

const ROWS = tableRows(readFileSync(join(ROOT, 'docs', 'running.md'), 'utf8'));

describe("docs/running.md's job timeouts", () => {
  it('cover the nightly run and the SDK comparison of the serving config, and the serving workflow', () => {
    const pairs = ROWS.map((row) => `${row.workflow} ${row.config}`);
    expect(pairs).toEqual(
      expect.arrayContaining([
        `pull-request.yml ${README_CONFIG}`,
        `nightly.yml ${README_CONFIG}`,
        `nightly.yml ${SERVING_CONFIG}`,
        `sdk-upgrade.yml ${SERVING_CONFIG}`,
        `vllm-serve.yml ${SERVING_CONFIG}`,
      ]),
    );
  });

  it.each(ROWS.map((row) => [row.workflow, row.config, row] as const))(
    '%s with %s: the sum is the worst case, the gate’s, and the jobs allow it',
    (workflow, config, row) => {
      expect(valueOf(row.sum)).toBe(row.worst);
      const jobs = gateJobs(workflow, configOf(config));
      expect(jobs.length).toBeGreaterThan(0);
      for (const [jobId, timeout] of jobs) {
        expect(worstMinutes(workflow, jobId, configOf(config)), jobId).toBe(row.worst);
        expect(timeout, jobId).toBe(row.timeout);
      }
      expect(row.timeout).toBeGreaterThanOrEqual(row.worst);
    },
  );

  it('the parts of the check read a sum and see a wrong one', () => {
    expect(valueOf('5 rates × (24 + 1 + 1 + 1) × 4 + 12 starts × 20 + 15')).toBe(795);
    expect(valueOf('2 × 4 + 5 rates × 12 × (4 + 20) + 15')).toBe(1463);
    expect(() => valueOf('2 × 4; process.exit(1)')).toThrow(/not a sum/);
  });
});

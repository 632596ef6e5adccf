// Cost per million tokens through the whole gate: a real child process writes a vllm bench
// serve result, the environment probe sees the simulated instance (SIM_INSTANCE_TYPE for
// the simulator's neuron-ls, PERF_GATE_INSTANCE_TYPE for the instance type), and the cost
// metric, report.json and the comment's cost line follow that instance's price.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import type { BenchmarkResult, GateReport } from '../../src/model.js';
import { runGate } from '../../src/pipeline.js';
import { renderComment } from '../../src/report/markdown.js';
import { reportJsonText } from '../../src/report/report-json.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { ROOT, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** request_throughput 0.162 requests/s, output_throughput 20.75 tokens/s. */
const SERVE_RESULT = join(ROOT, 'test/fixtures/formats/vllm-bench-serve/reference.json');

async function workspaceWith(settings: string[] = []): Promise<string> {
  const workspace = await tempDir('perf-gate-cost-');
  workspaces.push(workspace);
  await mkdir(join(workspace, '.github'));
  await writeFile(
    join(workspace, '.github/perf-gate.yml'),
    [
      ...settings,
      'profile: false',
      'benchmarks:',
      '  - name: qwen3-serve',
      `    command: cp "${SERVE_RESULT}" "$PERF_GATE_OUTPUT"`,
      '    runs: 2',
      '    confirm-runs: 0',
    ].join('\n'),
  );
  return workspace;
}

/** One gate run on a simulated instance of `instanceType` (none: the type is unknown). */
async function gateOn(
  workspace: string,
  instanceType: string | undefined,
  baseline?: BenchmarkResult,
): Promise<GateReport> {
  const config = await resolveGateConfig({}, { workspace });
  return runGate(config, {
    runner: createProcessRunner(),
    log: new MemoryLogger(),
    baselineStore: {
      load: async () => (baseline ? { source: 'stored', benchmarks: [baseline] } : undefined),
    },
    env: simulatorEnv(
      instanceType
        ? { SIM_INSTANCE_TYPE: instanceType, PERF_GATE_INSTANCE_TYPE: instanceType }
        : {},
    ),
  });
}

const costLine = (report: GateReport) =>
  renderComment(report)
    .split('\n')
    .find((line) => line.startsWith('**Cost**'));

const costOf = (report: GateReport) =>
  report.benchmarks[0]?.result?.metrics.find((m) => m.id === 'cost_per_million_tokens');

describe('cost per million tokens through the gate', () => {
  it('follows the instance type the probe sees: its price, metric, report.json and comment', async () => {
    const workspace = await workspaceWith();
    const small = await gateOn(workspace, 'inf2.xlarge');
    const large = await gateOn(workspace, 'inf2.48xlarge');

    expect(small.environment).toMatchObject({ instanceType: 'inf2.xlarge', neuronCores: 2 });
    expect(large.environment).toMatchObject({ instanceType: 'inf2.48xlarge', neuronCores: 24 });
    // 0.7582 USD/h over 20.75 output tokens/s, and 12.98127 USD/h over the same.
    expect(costOf(small)?.values).toEqual([
      expect.closeTo(10.14993, 4),
      expect.closeTo(10.14993, 4),
    ]);
    expect(costOf(large)?.values[0]).toBeCloseTo(173.77871, 4);
    expect(
      small.benchmarks[0]?.metrics.find((m) => m.id === 'cost_per_million_tokens'),
    ).toMatchObject({
      unit: 'USD',
      direction: 'lower-is-better',
      // Shown, not gated by default: the output-token rate it inverts is.
      threshold: null,
      verdict: 'new',
    });

    const json = JSON.parse(reportJsonText(large));
    expect(json.cost).toEqual({
      instanceType: 'inf2.48xlarge',
      usdPerHour: 12.98127,
      source: 'table',
      asOf: '2026-08-26',
      region: 'us-east-1, Linux, on-demand',
      url: 'https://instances.vantage.sh/aws/ec2/inf2.48xlarge',
    });
    expect(costLine(small)).toContain('0.7582 USD/h for `inf2.xlarge`');
    expect(costLine(large)).toContain('12.98127 USD/h for `inf2.48xlarge`');
  });

  it('has no cost metric on an unknown instance, and the comment says why in one line', async () => {
    const report = await gateOn(await workspaceWith(), undefined);
    expect(costOf(report)).toBeUndefined();
    expect(report.verdict).toBe('no-baseline');
    expect(report.cost?.note).toContain("the runner's instance type is unknown");
    expect(costLine(report)).toMatch(
      /^\*\*Cost\*\*: not computed: the runner's instance type is unknown/,
    );
  });

  it('takes the config’s price over the table, and does not call a new price a regression', async () => {
    const stored = await gateOn(await workspaceWith(), 'inf2.xlarge');
    const workspace = await workspaceWith([
      'price-per-hour: { inf2.xlarge: 2.5, inf2.9xlarge: 3 }',
    ]);
    const report = await gateOn(workspace, 'inf2.xlarge', stored.benchmarks[0]!.result);

    expect(report.cost).toEqual({ instanceType: 'inf2.xlarge', usdPerHour: 2.5, source: 'config' });
    expect(costOf(report)?.values[0]).toBeCloseTo(33.4672, 4);
    const row = report.benchmarks[0]?.metrics.find((m) => m.id === 'cost_per_million_tokens');
    // The stored 10.15 USD is restated at 2.5 USD/h: the same speed is the same cost.
    expect(row?.baseline).toBeCloseTo(33.4672, 4);
    expect(row?.verdict).toBe('unchanged');
    expect(report.verdict).toBe('pass');
    expect(costLine(report)).toContain(
      '2.5 USD/h for `inf2.xlarge` (`price-per-hour` in the config)',
    );
    expect(report.warnings).toEqual([
      expect.stringMatching(
        /^price-per-hour names inf2\.9xlarge, an instance type the built-in price table does not know/,
      ),
    ]);
  });
});

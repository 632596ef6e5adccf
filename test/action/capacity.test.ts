// A sweep over request rates with an SLO through the whole gate: real child processes
// write vllm bench serve --save-detailed results, the derive stage adds goodput and
// attainment to each variant and the sweep's capacity under the SLO as a benchmark of its
// own, judged against a baseline file the first gate run saved, and report.json and the
// comment carry it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileBaselineStore, writeBaselineFile } from '../../src/baseline/file-store.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import type { BaselineStore } from '../../src/baseline/types.js';
import type { BenchmarkReport, GateReport } from '../../src/model.js';
import { runGate } from '../../src/pipeline.js';
import { renderComment } from '../../src/report/markdown.js';
import { writeReportFiles } from '../../src/publish/files.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';
import { serveResult, type ServeRunOptions } from '../support/serve-result.js';

const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const RATES = [1, 2, 4, 6, 8];
const TOY = resolve(import.meta.dirname, '..', 'fixtures', 'server', 'toy-server.mjs');
const RUNS = 3;

/** Each run copies the file of its side, rate and run, as vllm bench serve would write it. */
const COMMAND =
  'cp "results/$(cat side.txt)-$PERF_GATE_PARAM_REQUEST_RATE-$PERF_GATE_RUN.json" "$PERF_GATE_OUTPUT"';

function configText(name: string, slo: string, rates: number[], runs: number): string {
  return [
    'profile: false',
    'confirm-runs: 0',
    `runs: ${runs}`,
    'benchmarks:',
    `  - name: ${name}`,
    `    command: ${COMMAND}`,
    '    format: vllm-bench-serve',
    `    slo: ${slo}`,
    '    sweep:',
    '      variants:',
    ...rates.map((rate) => `        - { name: rate-${rate}, request_rate: ${rate} }`),
  ].join('\n');
}

/** Result files of one side: a run-to-run factor of ±3% on every latency, seeded. */
async function writeSide(
  workspace: string,
  side: string,
  rates: number[],
  runs: number,
  options: Partial<ServeRunOptions> & { saturation: number },
  plain: (rate: number, run: number) => boolean = () => false,
): Promise<void> {
  await mkdir(join(workspace, 'results'), { recursive: true });
  for (const rate of rates) {
    for (let run = 1; run <= runs; run += 1) {
      const runFactor = 1 + 0.03 * Math.sin(rate * 7 + run * 3 + side.length);
      const result = serveResult({
        rate,
        seed: `${side}-${rate}-${run}`,
        runFactor,
        summaryOnly: plain(rate, run),
        ...options,
      });
      await writeFile(
        join(workspace, `results/${side}-${rate}-${run}.json`),
        JSON.stringify(result),
      );
    }
  }
}

/** Result files of one side, `runs` a rate, each run's latencies scaled by `factorOf(run)`. */
async function writeRuns(
  workspace: string,
  side: string,
  runs: number,
  options: Partial<ServeRunOptions> & { saturation: number },
  factorOf: (run: number) => number,
): Promise<void> {
  await mkdir(join(workspace, 'results'), { recursive: true });
  for (const rate of RATES) {
    for (let run = 1; run <= runs; run += 1) {
      const result = serveResult({
        rate,
        seed: `${side}-${rate}`,
        runFactor: factorOf(run),
        ...options,
      });
      await writeFile(
        join(workspace, `results/${side}-${rate}-${run}.json`),
        JSON.stringify(result),
      );
    }
  }
}

async function gate(workspace: string, side: string, store: BaselineStore): Promise<GateReport> {
  return (await gateWithConfig(workspace, side, store)).report;
}

async function gateWithConfig(workspace: string, side: string, store: BaselineStore) {
  await writeFile(join(workspace, 'side.txt'), side);
  const config = await resolveGateConfig({}, { workspace });
  const report = await runGate(config, {
    runner: createProcessRunner(),
    log: new MemoryLogger(),
    baselineStore: store,
    env: { PATH: process.env.PATH },
  });
  return { report, config };
}

const NO_BASELINE: BaselineStore = { load: async () => undefined };
const named = (report: GateReport, name: string): BenchmarkReport =>
  report.benchmarks.find((b) => b.name === name)!;
const comparison = (benchmark: BenchmarkReport, id: string) =>
  benchmark.metrics.find((m) => m.id === id);

describe('capacity under an SLO through the gate', () => {
  it('fails a candidate whose latency grows faster with load on capacity, not on P50 at low load', async () => {
    const workspace = await tempDir('perf-gate-capacity-');
    workspaces.push(workspace);
    await writeSide(workspace, 'base', RATES, RUNS, { saturation: 10 });
    // Saturating at 9 req/s instead of 10: latency grows faster with load, capacity −10%.
    await writeSide(workspace, 'slower', RATES, RUNS, { saturation: 9 });
    await mkdir(join(workspace, '.github'));
    await writeFile(
      join(workspace, '.github/perf-gate.yml'),
      configText('serve', '{ ttft: 300ms, e2el: { p99: 1500ms } }', RATES, RUNS),
    );

    const first = await gate(workspace, 'base', NO_BASELINE);
    const capacity = named(first, 'serve/capacity');
    expect(first.benchmarks.map((b) => b.name)).toEqual([
      ...RATES.map((rate) => `serve/rate-${rate}`),
      'serve/capacity',
    ]);
    expect(capacity.verdict).toBe('no-baseline');
    expect(capacity.result?.metrics[0]).toMatchObject({ id: 'capacity', unit: 'requests/s' });
    expect(capacity.result?.metrics[0]?.values).toHaveLength(RUNS);
    const rate2 = named(first, 'serve/rate-2');
    expect(comparison(rate2, 'slo_attainment')?.current).toBeGreaterThan(90);
    expect(comparison(rate2, 'goodput')?.current).toBeGreaterThan(1.8);
    expect(comparison(rate2, 'slo_attainment')?.threshold).toBe(0.05);

    const baselineFile = join(workspace, 'baseline.json');
    await writeBaselineFile(
      baselineFile,
      first.benchmarks.map((b) => b.result!),
    );
    const store = new FileBaselineStore([baselineFile], {
      format: 'auto',
      fallbackName: 'benchmark',
      window: 5,
    });

    const again = await gate(workspace, 'base', store);
    expect(named(again, 'serve/capacity').verdict).toBe('pass');

    const { report: slower, config } = await gateWithConfig(workspace, 'slower', store);
    const judged = named(slower, 'serve/capacity');
    const change = comparison(judged, 'capacity')!;
    expect(judged.verdict).toBe('regression');
    expect(change.verdict).toBe('regression');
    expect(change.threshold).toBe(0.05);
    expect(change.change).toBeLessThan(-0.05);
    expect(change.ci![1]).toBeLessThan(0);
    // At the lowest rate the queue hardly differs (1/(1 − 1/9) vs 1/(1 − 1/10): +1.2%).
    expect(comparison(named(slower, 'serve/rate-1'), 'ttft_p50')?.verdict).not.toBe('regression');

    const curve = judged.capacityCurve!;
    expect(curve.series.map((s) => s.metric)).toEqual(['e2el_p99', 'slo_attainment']);
    expect(curve.series[0]!.baseline.map((p) => p.load)).toEqual(RATES);
    expect(curve.capacity.current!.value).toBeLessThan(curve.capacity.baseline!.value);
    // As the action and the CLI publish them: report.json and comment.md on disk.
    const files = await writeReportFiles(join(workspace, 'out'), slower, config);
    const json = JSON.parse(await readFile(files.report, 'utf8'));
    const stored = json.benchmarks.find((b: BenchmarkReport) => b.name === 'serve/capacity');
    expect(stored.capacityCurve).toEqual(JSON.parse(JSON.stringify(curve)));
    expect(JSON.stringify(json)).not.toContain('"requests"');
    const comment = await readFile(files.comment, 'utf8');
    expect(comment).toContain('<details open><summary><b>serve/capacity</b> — ❌ regression');
    expect(comment).toMatch(/^\| serve\/capacity +\| ❌ regression +\| +capacity −\d/m);
    expect(comment).toMatch(/\| capacity \(requests\/s\) \|/);
    // The configuration block says which objectives the variants were held to.
    expect(comment).toContain('ttft ≤ 300 ms per request (90% of requests), e2el P99 ≤ 1500 ms');
  });

  it.each([
    ['without a server', false],
    ['against the one server of the sweep', true],
  ])(
    'takes passes of the whole sweep while the capacity is open, until a look fails it (%s)',
    async (_, served) => {
      const workspace = await tempDir('perf-gate-capacity-passes-');
      workspaces.push(workspace);
      await mkdir(join(workspace, '.github'));
      const port = await freePort();
      // A server the variants' runs do not need: it shows that the passes run while it is up.
      // Its start-up is shown, not gated: server_startup is this host's wall clock (one start
      // a gate run against the baseline's one), and a start 15% slower makes the first
      // variant a regression at its first look, which then takes no confirmation runs of its
      // own and leaves the passes more to run (11 where 12, 1 run in 10 on a busy host).
      const server = [
        '    thresholds: { server_startup: off }',
        '    server:',
        `      command: ${JSON.stringify([process.execPath, TOY, '--port', String(port), '--pids', 'pids'])}`,
        `      ready-url: http://127.0.0.1:${port}/health`,
        '      start-timeout: 60s',
      ];
      await writeFile(join(workspace, 'pids'), '');
      await writeFile(
        join(workspace, '.github/perf-gate.yml'),
        [
          configText('serve', '{ ttft: 300ms, e2el: { p99: 1500ms } }', RATES, RUNS).replace(
            'confirm-runs: 0',
            'confirm-runs: 10',
          ),
          ...(served ? server : []),
        ].join('\n'),
      );
      // The baseline's runs agree closely; the candidate's first 3 runs scatter widely (a
      // busy host), its later ones as closely as the baseline's: 10% less capacity.
      const quiet = (run: number) => 1 + 0.003 * Math.sin(run * 5);
      await writeRuns(workspace, 'base', 3, { saturation: 10 }, quiet);
      const busyFirst = (run: number) => (run <= 3 ? [0.95, 1, 1.06][run - 1]! : quiet(run));
      await writeRuns(workspace, 'slower', 30, { saturation: 9 }, busyFirst);
      const first = await gate(workspace, 'base', NO_BASELINE);
      const baselineFile = join(workspace, 'baseline.json');
      await writeBaselineFile(
        baselineFile,
        first.benchmarks.map((b) => b.result!),
      );
      const store = new FileBaselineStore([baselineFile], {
        format: 'auto',
        fallbackName: 'benchmark',
        window: 5,
      });
      const slower = await gate(workspace, 'slower', store);
      const capacity = named(slower, 'serve/capacity');
      // 5 sweeps at the first look (3 runs, and the confirmation runs every variant had of its
      // own), open; passes after it, in the plan's batches of 2 and 3 (confirm-runs 10): the
      // third look fails it.
      expect(capacity.confirmation).toMatchObject({
        sweepPasses: 5,
        // A variant with runs of its own to spare sits those passes out.
        runs: 12,
        metricsBefore: [{ id: 'capacity', verdict: 'inconclusive' }],
      });
      const change = comparison(capacity, 'capacity')!;
      expect(change.verdict).toBe('regression');
      expect(change.ci![1]).toBeLessThan(-0.05);
      expect(capacity.result?.runs).toHaveLength(10);
      expect(capacity.result?.metrics[0]?.values).toHaveLength(10);
      // The variants' verdicts stand on their own runs; the passes served the capacity.
      expect(named(slower, 'serve/rate-8').result?.runs).toHaveLength(5);
      const comment = renderComment(slower);
      expect(comment).toContain(
        '🔁 **Confirmed** with 5 more pass(es) of the whole sweep (12 more clean runs), judged on all passes together: pass → regression',
      );
      expect(comment).toMatch(/, from 10 pass\(es\) of the sweep \(5 to confirm\)\./);
      if (served) {
        // One start a gate run (the server and its worker) for the variants and the passes.
        expect(named(slower, 'serve/rate-1').server?.starts).toBe(1);
        expect(comparison(named(slower, 'serve/rate-1'), 'server_startup')?.threshold).toBeNull();
        const pids = (await readFile(join(workspace, 'pids'), 'utf8')).split('\n').filter(Boolean);
        expect(pids).toHaveLength(2 * 2);
      }
    },
  );

  it('says "at least", "below the lowest load" and which run lists no requests, the rest intact', async () => {
    const workspace = await tempDir('perf-gate-capacity-edges-');
    workspaces.push(workspace);
    await mkdir(join(workspace, '.github'));
    const rates = [1, 2];
    const sweeps = [
      configText('loose', '{ ttft: { p99: 10s } }', rates, 2),
      configText('tight', '{ ttft: { p99: 10ms } }', rates, 2).split('\n').slice(4).join('\n'),
      configText('detail', '{ ttft: 300ms }', rates, 2).split('\n').slice(4).join('\n'),
    ];
    await writeFile(join(workspace, '.github/perf-gate.yml'), sweeps.join('\n'));
    // Run 2 at rate 2 was run without --save-detailed.
    await writeSide(
      workspace,
      'one',
      rates,
      2,
      { saturation: 10 },
      (rate, run) => rate === 2 && run === 2,
    );

    const report = await gate(workspace, 'one', NO_BASELINE);
    const loose = named(report, 'loose/capacity');
    expect(loose.result?.metrics[0]?.values).toEqual([2, 2]);
    expect(loose.warnings).toContain(
      'capacity is at least 2 requests/s, the highest load of the sweep: the SLO held at every load in run(s) 1, 2; add higher loads to find where it stops',
    );
    const tight = named(report, 'tight/capacity');
    expect(comparison(tight, 'capacity')).toMatchObject({
      verdict: 'missing',
      reason:
        'not measured: the SLO fails at the lowest load of the sweep already (request_rate 1): the capacity is below it; add lower loads to the sweep',
    });
    const variant = named(report, 'detail/rate-2');
    expect(variant.verdict).toBe('no-baseline');
    expect(variant.warnings).toContain(
      "slo_attainment not measured: run 2's result lists no requests one by one, so the per-request objectives cannot be checked (vllm bench serve writes them with --save-detailed)",
    );
    expect(comparison(variant, 'ttft_p99')?.current).toBeGreaterThan(0);
    expect(comparison(named(report, 'detail/rate-1'), 'slo_attainment')?.current).toBeGreaterThan(
      90,
    );
    expect(comparison(named(report, 'detail/capacity'), 'capacity')?.reason).toMatch(
      /^not measured: detail\/rate-2 has no slo_attainment: run 2's result/,
    );
    const comment = renderComment(report);
    expect(comment).toContain('capacity is at least 2 requests/s');
    expect(comment).toContain('the SLO fails at the lowest load of the sweep already');
  });

  it('never pairs the capacity with the one benchmark of a baseline file of another name', async () => {
    const workspace = await tempDir('perf-gate-capacity-single-');
    workspaces.push(workspace);
    await mkdir(join(workspace, '.github'));
    await writeFile(
      join(workspace, '.github/perf-gate.yml'),
      configText('one', '{ ttft: { p99: 10s } }', [1], 2),
    );
    await writeSide(workspace, 'one', [1], 2, { saturation: 10 });
    const first = await gate(workspace, 'one', NO_BASELINE);
    const baselineFile = join(workspace, 'baseline.json');
    // A baseline file of the variant alone, as an older gate without the SLO saved it.
    await writeBaselineFile(baselineFile, [named(first, 'one/rate-1').result!]);
    const store = new FileBaselineStore([baselineFile], {
      format: 'auto',
      fallbackName: 'benchmark',
      window: 5,
    });
    const second = await gate(workspace, 'one', store);
    expect(named(second, 'one/rate-1').verdict).toBe('pass');
    const capacity = named(second, 'one/capacity');
    expect(capacity.verdict).toBe('no-baseline');
    expect(capacity.error).toBeUndefined();
    expect(capacity.warnings.join('\n')).not.toContain('compared current');
    expect(comparison(capacity, 'capacity')?.verdict).toBe('new');
  });
});

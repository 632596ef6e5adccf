// npm run bench:ab-startup: A/B's `benchmark_startup` (src/ab/ab-startup.ts) in-process
// (runAbBenchmarks, as `neuron-perf-gate ab` runs it) on the simulator's offline-benchmark
// with `startup: { ready-log: 'init engine .* took' }`, --runs times: the base's model load
// at SIM_STARTUP_SLOWDOWN 1, the head's at --head-slowdown (1: the same start-up, an A/A
// comparison; 1.5: a load half as long again). SIM_SLEEP (--sleep) makes the simulated
// load real time (~40 s simulated × 0.01 = 0.4 s), so the start-up measured is the host's
// wall clock: process launch, Node's start, the load. One compile cache, warmed before the
// first gate run, so every run is a warm start. Prints how often benchmark_startup failed,
// with Wilson intervals, beside a plain paired t test on the same starts: each side's
// starts paired run for run within their block, one-sided at the benchmark's share of the
// gate's budget (one benchmark: all of it), of "no slower".
//
//   npm run bench:ab-startup -- --runs 20 [--head-slowdown 1.5] [--blocks 3] [--sleep 0.01]

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runAbBenchmarks } from '../src/ab/run-ab.js';
import type { AbSide } from '../src/ab/schedule.js';
import type { PreparedSide } from '../src/ab/sides.js';
import { GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import { resolveGateConfig } from '../src/config/load.js';
import { MemoryLogger } from '../src/log.js';
import type { Metric } from '../src/model.js';
import { createProcessRunner } from '../src/runner/process.js';
import { studentTQuantile } from '../src/stats/distributions.js';
import { sidakLevel } from '../src/stats/multiplicity.js';
import { rateWithInterval, table } from './text.js';

const SIMULATOR_BIN = resolve('examples', 'simulated-inf2', 'bin');
/** One benchmark: the whole of the gate's budget. */
const LEVEL = sidakLevel(GATE_FALSE_ALARM_RATE, 1);

interface Options {
  runs: number;
  headSlowdown: string;
  blocks: number;
  sleep: string;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      'head-slowdown': { type: 'string', default: '1' },
      blocks: { type: 'string', default: '3' },
      sleep: { type: 'string', default: '0.01' },
    },
  });
  const runs = Number(values.runs);
  const blocks = Number(values.blocks);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: ${values.runs}`);
  if (!Number.isInteger(blocks) || blocks < 2) throw new Error(`--blocks: ${values.blocks}`);
  return { runs, headSlowdown: values['head-slowdown'], blocks, sleep: values.sleep };
}

const CONFIG = [
  'benchmarks:',
  '  - name: starts',
  '    command: offline-benchmark --output-file "$PERF_GATE_OUTPUT"',
  '    format: offline-benchmark',
  '    profile: false',
  "    startup: { ready-log: 'init engine .* took' }",
].join('\n');

interface GateRun {
  verdict: string;
  change: number | undefined;
  plainFails: boolean;
  /** Each side's starts, block by block. */
  blocks: Record<AbSide, number[][]>;
}

/** A metric's values grouped by block (index = block). */
function byBlock(metric: Metric | undefined): number[][] {
  const out: number[][] = [];
  metric?.values.forEach((value, i) => {
    const block = metric.blocks?.[i] ?? 0;
    (out[block] ??= []).push(value);
  });
  return out;
}

/** One-sided paired t test of head above base on log starts paired run for run in a block. */
function plainPairedSlower(blocks: Record<AbSide, number[][]>): boolean {
  const differences = blocks.head.flatMap((head, b) =>
    head.flatMap((h, i) => {
      const base = blocks.base[b]?.[i];
      return base === undefined ? [] : [Math.log(h) - Math.log(base)];
    }),
  );
  const n = differences.length;
  if (n < 2) return false;
  const mean = differences.reduce((s, d) => s + d, 0) / n;
  const sd = Math.sqrt(differences.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1));
  if (sd === 0) return mean > 0;
  return mean / (sd / Math.sqrt(n)) > studentTQuantile(1 - LEVEL, n - 1);
}

async function gate(root: string, index: number, opts: Options, cache: string): Promise<GateRun> {
  const env = {
    PATH: `${SIMULATOR_BIN}${delimiter}${dirname(process.execPath)}${delimiter}/usr/bin:/bin`,
    HOME: root,
    NEURON_COMPILE_CACHE_URL: cache,
    SIM_SLEEP: opts.sleep,
    // Queries running well after the ready line: one that came with the exit is no start-up.
    SIM_QUERIES: '100',
    SIM_SEED: String(index),
  };
  const side = (name: AbSide, slowdown: string): PreparedSide => ({
    side: name,
    label: name,
    dir: root,
    outDir: join(root, `out-${index}`, name),
    env: { SIM_STARTUP_SLOWDOWN: slowdown },
  });
  const config = await resolveGateConfig({}, { workspace: root });
  const [measured] = await runAbBenchmarks(
    config,
    { base: side('base', '1'), head: side('head', opts.headSlowdown) },
    root,
    { blocks: opts.blocks, confirmBlocks: 0 },
    { runner: createProcessRunner(), log: new MemoryLogger(), env },
  );
  await rm(join(root, `out-${index}`), { recursive: true, force: true });
  const report = measured!.reports[0]!;
  const startup = report.metrics.find((m) => m.id === 'benchmark_startup');
  const metricOf = (metrics: Metric[] | undefined) =>
    metrics?.find((m) => m.id === 'benchmark_startup');
  const blocks = {
    base: byBlock(metricOf(measured!.base[0]?.metrics)),
    head: byBlock(metricOf(report.result?.metrics)),
  };
  return {
    verdict: startup?.verdict ?? 'not measured',
    change: startup?.change ?? undefined,
    plainFails: plainPairedSlower(blocks),
    blocks,
  };
}

/** Runs the benchmark once so the cache holds its graphs: every gate run's starts are warm. */
function warm(cache: string): Promise<void> {
  return new Promise((done, fail) => {
    const env = { PATH: `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}` };
    const args = ['--output-file', join(dirname(cache), 'warm.json')];
    execFile(
      'offline-benchmark',
      args,
      { env: { ...env, NEURON_COMPILE_CACHE_URL: cache } },
      (e) => (e ? fail(e) : done()),
    );
  });
}

async function main(): Promise<void> {
  const opts = options();
  const root = await mkdtemp(join(tmpdir(), 'perf-gate-bench-ab-startup-'));
  await mkdir(join(root, '.github'));
  await writeFile(join(root, '.github/perf-gate.yml'), CONFIG);
  const cache = join(root, 'compile-cache');
  await warm(cache);
  const runs: GateRun[] = [];
  for (let index = 1; index <= opts.runs; index += 1) {
    const started = Date.now();
    const gated = await gate(root, index, opts, cache);
    runs.push(gated);
    const change = gated.change === undefined ? '—' : `${(gated.change * 100).toFixed(1)}%`;
    const side = (name: AbSide) =>
      gated.blocks[name].map((b) => b.map((v) => v.toFixed(3)).join(' ')).join(' | ');
    console.log(
      `gate run ${index}: benchmark_startup ${gated.verdict} (${change}), plain paired t ` +
        `${gated.plainFails ? 'fails' : 'passes'} (${Math.round((Date.now() - started) / 1000)} s)` +
        `\n  base ${side('base')}\n  head ${side('head')}`,
    );
  }
  await rm(root, { recursive: true, force: true });
  const count = (test: (run: GateRun) => boolean) =>
    rateWithInterval(runs.filter(test).length, runs.length);
  console.log(
    `\nhead SIM_STARTUP_SLOWDOWN ${opts.headSlowdown} against 1, ${opts.blocks} block(s), SIM_SLEEP ${opts.sleep}\n`,
  );
  console.log(
    table(
      ['', 'failed'],
      [
        [
          'benchmark_startup (the gate, paired in blocks)',
          count((r) => r.verdict === 'regression'),
        ],
        [`plain paired t, one-sided at ${(LEVEL * 100).toFixed(2)}%`, count((r) => r.plainFails)],
      ],
    ),
  );
}

await main();

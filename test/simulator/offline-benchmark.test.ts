// The simulated offline_benchmark.py: result file shape, metrics as numpy computes them,
// reproducibility, knobs, flags, failures and speed.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/poll.js';
import type { OfflineResult } from './helpers.js';
import {
  benchmark,
  numpyPercentile,
  REFERENCE_RESULT,
  runTool,
  startTool,
  tempDir,
} from './helpers.js';

const keysOf = (value: object) => Object.keys(value);

describe('offline-benchmark result file', () => {
  it('has exactly the keys of the reference offline_benchmark_result.json, in its order', async () => {
    const reference = JSON.parse(await readFile(REFERENCE_RESULT, 'utf8')) as OfflineResult;
    const { result } = await benchmark({ PERF_GATE_RUN: '1' });
    expect(keysOf(result)).toEqual(keysOf(reference));
    expect(keysOf(result.configuration)).toEqual(keysOf(reference.configuration));
    expect(keysOf(result.metrics)).toEqual(keysOf(reference.metrics));
    // With default flags the configuration is the reference one.
    expect(result.configuration).toEqual(reference.configuration);
    expect(result.raw_times).toHaveLength(10);
    for (const t of result.raw_times) expect(typeof t).toBe('number');
  });

  it('computes the metrics from raw_times as the script does (numpy, Python sum)', async () => {
    const { result } = await benchmark({ PERF_GATE_RUN: '3', SIM_QUERIES: '37' });
    const times = result.raw_times;
    const m = result.metrics;
    let sum = 0;
    for (const t of times) sum += t;
    expect(m.total_queries).toBe(37);
    expect(times).toHaveLength(37);
    expect(m.total_time).toBe(sum);
    expect(m.throughput_queries_per_sec).toBe(37 / sum);
    expect(m.avg_time_per_query).toBeCloseTo(sum / 37, 14);
    expect(m.min_time_per_query).toBe(Math.min(...times));
    expect(m.max_time_per_query).toBe(Math.max(...times));
    expect(m.p50_time).toBe(numpyPercentile(times, 50));
    expect(m.p95_time).toBe(numpyPercentile(times, 95));
    expect(m.p99_time).toBe(numpyPercentile(times, 99));
    // Seconds, not milliseconds.
    expect(m.p50_time).toBeGreaterThan(0.2);
    expect(m.p50_time).toBeLessThan(0.5);
  });

  it('uses a numpy-exact percentile helper (checked against numpy 2.4 output)', () => {
    const times = [0.2961, 0.3012, 0.2987, 0.3071, 0.3105, 0.295, 0.334, 0.3972, 0.312, 0.315];
    expect(numpyPercentile(times, 50)).toBe(0.30879999999999996);
    expect(numpyPercentile(times, 95)).toBe(0.3687599999999999);
    expect(numpyPercentile(times, 99)).toBe(0.391512);
    expect(numpyPercentile(times, 100)).toBe(0.3972);
  });

  it('writes to --output-file when given, even with PERF_GATE_OUTPUT set', async () => {
    const dir = await tempDir();
    const flagFile = join(dir, 'nested', 'flag.json');
    const envFile = join(dir, 'env.json');
    const { code, stdout } = await runTool('offline-benchmark', ['--output-file', flagFile], {
      env: { PERF_GATE_OUTPUT: envFile },
      cwd: dir,
    });
    expect(code).toBe(0);
    expect(existsSync(flagFile)).toBe(true);
    expect(existsSync(envFile)).toBe(false);
    expect(stdout).toContain(`Results saved to ${flagFile}`);
  });

  it('logs like the real script: model load, per-query progress and the summary', async () => {
    const { outcome, result } = await benchmark({ PERF_GATE_RUN: '1' });
    expect(outcome.stdout).toMatch(/^INFO \d\d-\d\d \d\d:\d\d:\d\d \[/m);
    expect(outcome.stdout).toMatch(/Model loaded in \d+\.\d\d s/);
    expect(outcome.stdout).toContain('Processing query 3/10');
    const throughput = result.metrics.throughput_queries_per_sec!.toFixed(4);
    expect(outcome.stdout).toContain(`Throughput: ${throughput} queries/sec`);
    expect(outcome.stdout).toContain(`P95 latency: ${result.metrics.p95_time!.toFixed(4)} s`);
  });
});

describe('offline-benchmark reproducibility and knobs', () => {
  it('gives identical figures for the same seed and run, other figures for another run', async () => {
    const first = await benchmark({ SIM_SEED: '5', PERF_GATE_RUN: '2' });
    const again = await benchmark({ SIM_SEED: '5', PERF_GATE_RUN: '2' });
    const nextRun = await benchmark({ SIM_SEED: '5', PERF_GATE_RUN: '3' });
    const otherSeed = await benchmark({ SIM_SEED: '6', PERF_GATE_RUN: '2' });
    expect(again.result).toEqual(first.result);
    expect(nextRun.result.raw_times).not.toEqual(first.result.raw_times);
    expect(otherSeed.result.raw_times).not.toEqual(first.result.raw_times);
    // Runs differ by noise, not by workload: about 1%, never 10%.
    const ratio = nextRun.result.metrics.total_time! / first.result.metrics.total_time!;
    expect(Math.abs(ratio - 1)).toBeLessThan(0.1);
  });

  it('makes every latency 8% slower with SIM_SLOWDOWN=1.08 for the same seed', async () => {
    const env = { SIM_SEED: '7', PERF_GATE_RUN: '1' };
    const base = await benchmark(env);
    const slow = await benchmark({ ...env, SIM_SLOWDOWN: '1.08' });
    slow.result.raw_times.forEach((t, i) => {
      expect(t / base.result.raw_times[i]!).toBeCloseTo(1.08, 12);
    });
    expect(slow.result.metrics.p50_time! / base.result.metrics.p50_time!).toBeCloseTo(1.08, 12);
    expect(
      base.result.metrics.throughput_queries_per_sec! /
        slow.result.metrics.throughput_queries_per_sec!,
    ).toBeCloseTo(1.08, 12);
  });

  it('repeats runs exactly with SIM_NOISE=0 and SIM_OUTLIERS=0', async () => {
    const quiet = { SIM_NOISE: '0', SIM_OUTLIERS: '0' };
    const a = await benchmark({ ...quiet, PERF_GATE_RUN: '1' });
    const b = await benchmark({ ...quiet, PERF_GATE_RUN: '2', SIM_SEED: '9' });
    expect(b.result.raw_times).toEqual(a.result.raw_times);
  });

  it('runs SIM_QUERIES queries, the first ones being the same queries as in a shorter run', async () => {
    const quiet = { SIM_NOISE: '0', SIM_OUTLIERS: '0' };
    const ten = await benchmark(quiet);
    const twenty = await benchmark({ ...quiet, SIM_QUERIES: '20' });
    expect(twenty.result.metrics.total_queries).toBe(20);
    expect(twenty.result.raw_times.slice(0, 10)).toEqual(ten.result.raw_times);
  });

  it.each([
    ['SIM_SLOWDOWN', 'abc'],
    ['SIM_SLOWDOWN', '0'],
    ['SIM_NOISE', '-0.1'],
    ['SIM_SEED', '1.5'],
    ['SIM_QUERIES', '0'],
    ['SIM_SLEEP', 'soon'],
    ['SIM_FAIL', 'maybe'],
    ['SIM_HANG', 'forever'],
    ['SIM_PROFILE_LAYOUT', 'C'],
    ['SIM_NTFF_BYTES', '-1'],
    ['SIM_INSTANCE_TYPE', 'inf1.xlarge'],
  ])('exits 2 naming %s when it is %s, before writing anything', async (name, value) => {
    const dir = await tempDir();
    const output = join(dir, 'result.json');
    const { code, stderr } = await runTool('offline-benchmark', [], {
      env: { [name]: value, PERF_GATE_OUTPUT: output },
      cwd: dir,
    });
    expect(code).toBe(2);
    expect(stderr).toContain(name);
    expect(stderr).toContain(`"${value}"`);
    expect(existsSync(output)).toBe(false);
  });

  it('exits 2 with the usage for an unknown flag or a bad flag value', async () => {
    for (const args of [['--bogus'], ['--max-num-seqs', 'four'], ['--output-file']]) {
      const { code, stderr } = await runTool('offline-benchmark', args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(/^usage: offline-benchmark/);
    }
  });
});

describe('offline-benchmark flags', () => {
  it('echoes flags into configuration', async () => {
    const { result } = await benchmark({}, [
      '--max-num-seqs',
      '16',
      '--enable-prefix-caching',
      '--no-enable-bucketing',
      '--model=./models/other',
      '--flash-decoding=true',
    ]);
    expect(result.configuration).toMatchObject({
      model: './models/other',
      max_num_seqs: 16,
      enable_prefix_caching: true,
      enable_bucketing: false,
      flash_decoding: true,
    });
  });

  it('costs what the published table says: bucketing off ~3.9x, prefix caching on ~1.35x', async () => {
    const env = { SIM_SEED: '4', PERF_GATE_RUN: '1' };
    const p50 = async (args: string[]) => (await benchmark(env, args)).result.metrics.p50_time!;
    const reference = await p50([]);
    expect((await p50(['--no-enable-bucketing'])) / reference).toBeCloseTo(1.2029 / 0.3071, 1);
    expect((await p50(['--enable-prefix-caching'])) / reference).toBeCloseTo(0.4137 / 0.3071, 1);
    // max_num_seqs 16 gained 3.2% throughput.
    expect((await p50(['--max-num-seqs', '16'])) / reference).toBeCloseTo(1 / 1.032, 3);
  });

  it('fails like the runtime when tensor parallelism needs more NeuronCores than there are', async () => {
    const small = await runTool('offline-benchmark', ['--tensor-parallel-size', '4']);
    expect(small.code).toBe(1);
    expect(small.stderr).toContain('NRT_LOAD_NOT_ENOUGH_NC');
    const big = await runTool('offline-benchmark', ['--tensor-parallel-size', '4'], {
      env: { SIM_INSTANCE_TYPE: 'inf2.24xlarge' },
    });
    expect(big.code).toBe(0);
  });
});

describe('offline-benchmark failures and timing', () => {
  it('crashes with a Neuron runtime error and no result file when SIM_FAIL is set', async () => {
    for (const fail of ['1', 'load']) {
      const dir = await tempDir();
      const output = join(dir, 'result.json');
      const { code, stderr } = await runTool('offline-benchmark', [], {
        env: { SIM_FAIL: fail, PERF_GATE_OUTPUT: output },
        cwd: dir,
      });
      expect(code, fail).toBe(1);
      expect(stderr).toMatch(/ERROR {2}(NRT|TDRV):/);
      expect(stderr).toContain('Traceback (most recent call last):');
      expect(existsSync(output)).toBe(false);
    }
  });

  it('never exits with SIM_HANG: still running after 1 s', async () => {
    const child = startTool('offline-benchmark', { SIM_HANG: '1' }, await tempDir());
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // Started (however long a busy host takes to get there), then 1 s more without an exit.
    await until(() => stdout.includes('Automatically detected platform neuron'));
    await new Promise((done) => setTimeout(done, 1000));
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    expect(stdout).toContain('Automatically detected platform neuron');
    expect(stdout).not.toContain('Processing query');
    child.kill('SIGKILL');
    expect(await exited).toBeNull();
  });

  it('really waits a fraction of the simulated time with SIM_SLEEP', async () => {
    const { outcome, result } = await benchmark({ PERF_GATE_RUN: '1', SIM_SLEEP: '0.01' });
    const load = Number(/Model loaded in (\d+\.\d+) s/.exec(outcome.stdout)![1]);
    // Sleeping is a lower bound: 1% of the simulated load (~42 s) and query time (~3.2 s).
    const simulatedSeconds = load + result.metrics.total_time!;
    expect(outcome.durationMs).toBeGreaterThanOrEqual(simulatedSeconds * 10 - 20);
  });
});

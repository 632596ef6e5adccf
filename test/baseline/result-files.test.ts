import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBaselineFile } from '../../src/baseline/file-store.js';
import { readResultFiles } from '../../src/baseline/result-files.js';
import { withStoredSamples } from '../../src/baseline/stored-samples.js';
import { offlineResult, rawTimes, tempDir, writeJson } from '../support/offline-result.js';

const options = { format: 'auto', fallbackName: 'qwen3-reranker' };

/** A baseline file of one benchmark, 'a', whose one metric is written as given. */
async function baselineFileWith(metric: Record<string, unknown>): Promise<string> {
  return writeJson(await tempDir(), 'baseline.json', {
    kind: 'neuron-perf-gate-baseline',
    schemaVersion: 1,
    createdAt: 'x',
    benchmarks: [{ name: 'a', format: 'f', metrics: [metric] }],
  });
}

describe('readResultFiles', () => {
  it('takes several result files as several runs of one benchmark', async () => {
    const dir = await tempDir();
    const paths = await Promise.all(
      [1, 2, 3].map((run) => writeJson(dir, `run-${run}.json`, offlineResult(rawTimes(1, run)))),
    );
    const [result] = await readResultFiles(paths, options);
    expect(result?.name).toBe('qwen3-reranker');
    expect(result?.format).toBe('offline-benchmark');
    const throughput = result?.metrics.find((m) => m.id === 'throughput');
    expect(throughput?.values).toHaveLength(3);
    const p95 = result?.metrics.find((m) => m.id === 'latency_p95');
    expect(p95?.samples).toHaveLength(3);
    expect(p95?.samples?.[0]).toHaveLength(10);
    expect(result?.runs.map((r) => r.resultFile)).toEqual(paths);
  });

  it('reads back a baseline file it wrote, samples as a stored record keeps them', async () => {
    const dir = await tempDir();
    const source = await writeJson(dir, 'r.json', offlineResult(rawTimes(1, 1)));
    const results = await readResultFiles([source], options);
    const baselinePath = join(dir, 'nested', 'baseline.json');
    await writeBaselineFile(baselinePath, results);
    const again = await readResultFiles([baselinePath], { ...options, fallbackName: 'other' });
    // Each run's samples sorted and rounded to 7 digits, the same set written once.
    const stored = results.map((result) => ({
      ...result,
      metrics: withStoredSamples(result.metrics),
    }));
    expect(again).toEqual(stored);
    expect(again[0]!.metrics.find((m) => m.id === 'latency_p95')?.samples?.[0]).toHaveLength(10);
    const text = await readFile(baselinePath, 'utf8');
    const file = JSON.parse(text);
    expect(file.kind).toBe('neuron-perf-gate-baseline');
    const written = file.benchmarks[0].metrics;
    expect(written.filter((m: { samples?: unknown }) => m.samples)).toHaveLength(1);
    expect(written.find((m: { id: string }) => m.id === 'latency_p99').samplesOf).toBe(
      'latency_p50',
    );
  });

  it('names the metric whose samplesOf points nowhere in a baseline file', async () => {
    const path = await baselineFileWith({
      id: 'latency_p99',
      unit: 'ms',
      direction: 'lower-is-better',
      values: [1],
      samplesOf: 'latency_p50',
    });
    await expect(readResultFiles([path], options)).rejects.toThrow(
      /baseline\.json: benchmarks\[0\]: metric 'latency_p99' takes its samples from 'latency_p50'/,
    );
  });

  it('names the file and the field of a damaged baseline file', async () => {
    const path = await baselineFileWith({
      id: 'throughput',
      unit: 'q/s',
      direction: 'up',
      values: [],
    });
    await expect(readResultFiles([path], options)).rejects.toThrow(
      /baseline\.json: is a neuron-perf-gate baseline file but field 'benchmarks\.0\.metrics\.0\.direction' is invalid/,
    );
  });

  it('refuses to mix formats on one side', async () => {
    const dir = await tempDir();
    const offline = await writeJson(dir, 'offline.json', offlineResult(rawTimes(1, 1)));
    const pytest = await writeJson(dir, 'pytest.json', {
      machine_info: {},
      version: '5.2.3',
      benchmarks: [
        {
          name: 't',
          fullname: 'test_x.py::t',
          stats: { min: 0.1, max: 0.1, mean: 0.1, median: 0.1, ops: 10, rounds: 1, data: [0.1] },
        },
      ],
    });
    await expect(readResultFiles([offline, pytest], options)).rejects.toThrow(
      /pytest\.json: is pytest-benchmark but the files before it are offline-benchmark/,
    );
  });

  it('says which file is not JSON', async () => {
    const dir = await tempDir();
    const path = join(dir, 'broken.json');
    await writeFile(path, '{"metrics": {');
    await expect(readResultFiles([path], options)).rejects.toThrow(/broken\.json/);
  });
});

describe('not-measured notes of a report.json', () => {
  /** A report.json of one benchmark, 'a', whose result carries `notMeasured` as given. */
  async function reportWith(notMeasured: Record<string, unknown>): Promise<string> {
    const metric = { id: 'throughput', unit: 'req/s', direction: 'higher-is-better', values: [3] };
    const result = { name: 'a', format: 'f', metrics: [metric], notMeasured };
    return writeJson(await tempDir(), 'report.json', {
      schemaVersion: 1,
      tool: { name: 'neuron-perf-gate' },
      benchmarks: [{ name: 'a', result }],
    });
  }
  const note = { reason: 'the file has NaN', unit: 'ms', direction: 'lower-is-better' };

  it('keeps notes with their unit and direction, and leaves out bare reasons of earlier versions', async () => {
    const path = await reportWith({
      latency_p99: note,
      ttft_p99: 'the file has NaN',
      x: { reason: 5 },
    });
    const [result] = await readResultFiles([path], options);
    expect(result?.notMeasured).toEqual({ latency_p99: note });
  });

  it('drops notMeasured when no note in it is whole', async () => {
    const [result] = await readResultFiles([await reportWith({ ttft_p99: 'NaN' })], options);
    expect(result).toBeDefined();
    expect(result?.notMeasured).toBeUndefined();
  });
});

describe('baseline window', () => {
  it('pools only the newest records of each benchmark', async () => {
    const dir = await tempDir();
    const source = await writeJson(dir, 'r.json', offlineResult(rawTimes(1, 1)));
    const [result] = await readResultFiles([source], options);
    const paths: string[] = [];
    for (const day of [1, 2, 3]) {
      const path = join(dir, `baseline-${day}.json`);
      const throughput = result!.metrics.find((m) => m.id === 'throughput')!;
      const dated = {
        ...result!,
        metrics: [{ ...throughput, values: [day] }],
      };
      await writeBaselineFile(path, [dated], { now: new Date(`2026-11-0${day}T00:00:00Z`) });
      paths.push(path);
    }
    const [pooled] = await readResultFiles(paths, { ...options, window: 2 });
    // Days 3 and 2 are the newest two; day 1 is left out, whatever the order of the files.
    expect(pooled?.metrics.find((m) => m.id === 'throughput')?.values).toEqual([3, 2]);
    const [all] = await readResultFiles(paths, options);
    expect(all?.metrics.find((m) => m.id === 'throughput')?.values.sort()).toEqual([1, 2, 3]);
  });
});

describe('JSON Lines results', () => {
  it('reads each line of a vllm bench serve --append-result file as a run', async () => {
    const file = join(
      import.meta.dirname,
      '..',
      'fixtures',
      'formats',
      'vllm-bench-serve',
      'append.jsonl',
    );
    const lines = (await readFile(file, 'utf8')).trim().split('\n').length;
    const [result] = await readResultFiles([file], options);
    expect(result?.format).toBe('vllm-bench-serve');
    expect(result?.metrics.find((m) => m.id === 'throughput')?.values).toHaveLength(lines);
    expect(lines).toBeGreaterThan(1);
  });
});

describe('readResultFiles: one vllm bench serve file per request rate', () => {
  // `vllm bench serve --save-result --request-rate 4` and `--request-rate 8`, two runs each:
  // a sweep over two rates, not four runs of one benchmark.
  const line = JSON.parse(
    readFileSync(
      join(import.meta.dirname, '..', 'fixtures', 'formats', 'vllm-bench-serve', 'reference.json'),
      'utf8',
    ),
  ) as Record<string, unknown>;
  const write = async (dir: string, name: string, rate: number, slower = 1) => {
    const data: Record<string, unknown> = { ...line, request_rate: rate };
    for (const [key, value] of Object.entries(line)) {
      if (key.endsWith('_ms') && typeof value === 'number') data[key] = value * slower;
    }
    return writeJson(dir, name, data);
  };

  it('makes one benchmark per rate, with its files as runs', async () => {
    const dir = await tempDir();
    const paths = [
      await write(dir, 'rate4-a.json', 4),
      await write(dir, 'rate8-a.json', 8, 1.3),
      await write(dir, 'rate4-b.json', 4),
      await write(dir, 'rate8-b.json', 8, 1.3),
    ];
    const results = await readResultFiles(paths, { format: 'auto', fallbackName: 'serve' });
    expect(
      results.map((r) => [r.name, r.metrics.find((m) => m.id === 'ttft_p99')!.values.length]),
    ).toEqual([
      ['prompts=2,rate=4,concurrency=4', 2],
      ['prompts=2,rate=8,concurrency=4', 2],
    ]);
    const p99 = (name: string) =>
      results.find((r) => r.name === name)!.metrics.find((m) => m.id === 'ttft_p99')!;
    expect(p99('prompts=2,rate=8,concurrency=4').values[0]).toBeCloseTo(
      p99('prompts=2,rate=4,concurrency=4').values[0]! * 1.3,
      9,
    );
  });
});

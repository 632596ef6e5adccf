// Runs the real pytest-benchmark (Debian's python3-pytest-benchmark) and parses what it
// writes, so the parser is checked against the tool and not only against our fixtures.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResultFile, type ParsedResultFile } from '../../src/formats/index.js';
import type { ParsedBenchmark, ParsedMetric } from '../../src/model.js';

const run = promisify(execFile);
// Debian's packages are installed for the system interpreter, not a pyenv python on PATH.
const SYSTEM_PYTHON = '/usr/bin/python3';

const TINY_TEST = `
import time
import pytest

@pytest.mark.parametrize("n", [10, 200])
def test_sum(benchmark, n):
    benchmark.extra_info["n"] = n
    assert benchmark(sum, range(n)) == n * (n - 1) // 2

def test_sleep_pedantic(benchmark):
    # 7 rounds of 3 calls each: pytest-benchmark divides each round's time by 3.
    benchmark.pedantic(time.sleep, args=(0.002,), rounds=7, iterations=3)
`;

interface RawStats {
  min: number;
  max: number;
  median: number;
  mean: number;
  ops: number;
  rounds: number;
  iterations: number;
  data: number[];
}

function metric(benchmark: ParsedBenchmark | undefined, id: string): ParsedMetric {
  const found = benchmark?.metrics.find((m) => m.id === id);
  if (!found) throw new Error(`metric ${id} missing`);
  return found;
}

async function requirePytestBenchmark(): Promise<void> {
  try {
    await run(SYSTEM_PYTHON, ['-c', 'import pytest, pytest_benchmark']);
  } catch (error) {
    throw new Error(
      `pytest-benchmark is missing for ${SYSTEM_PYTHON}; install it with ` +
        `"apt-get install python3-pytest-benchmark" (CI does). ${String(error)}`,
      { cause: error },
    );
  }
}

describe('a real pytest-benchmark run', () => {
  let directory: string;
  let output: string;
  let rawStats: Map<string, RawStats>;
  let parsed: ParsedResultFile;

  beforeAll(async () => {
    await requirePytestBenchmark();
    directory = await mkdtemp(join(tmpdir(), 'perf-gate-pytest-'));
    output = join(directory, 'OUT.json');
    await writeFile(join(directory, 'test_tiny.py'), TINY_TEST);
    await run(
      SYSTEM_PYTHON,
      [
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        '--benchmark-max-time=0.05',
        // Rounds of at least 0.2 ms make the calibration run a sub-microsecond call many
        // times per round on an idle host.
        '--benchmark-min-time=0.0002',
        '--benchmark-json',
        output,
        'test_tiny.py',
      ],
      { cwd: directory },
    );
    const raw = JSON.parse(await readFile(output, 'utf8')) as {
      benchmarks: { fullname: string; stats: RawStats }[];
    };
    rawStats = new Map(raw.benchmarks.map((b) => [b.fullname, b.stats]));
    parsed = await parseResultFile(output, 'pytest-benchmark');
  });

  afterAll(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('gives one benchmark per test and parameter, named by fullname', () => {
    expect(parsed.format).toBe('pytest-benchmark');
    expect(parsed.benchmarks.map((b) => b.name).sort()).toEqual([
      'test_tiny.py::test_sleep_pedantic',
      'test_tiny.py::test_sum[10]',
      'test_tiny.py::test_sum[200]',
    ]);
  });

  it('is detected as pytest-benchmark and parsed identically with auto', async () => {
    const auto = await parseResultFile(output, 'auto');
    expect(auto.format).toBe('pytest-benchmark');
    expect(auto.benchmarks).toEqual(parsed.benchmarks);
  });

  it('reports ops > 0 equal to what pytest-benchmark wrote (1 / mean)', () => {
    for (const benchmark of parsed.benchmarks) {
      const stats = rawStats.get(benchmark.name!)!;
      const throughput = metric(benchmark, 'throughput');
      expect(throughput.value).toBeGreaterThan(0);
      expect(throughput.value).toBe(stats.ops);
      expect(throughput.value * (metric(benchmark, 'latency_mean').value / 1000)).toBeCloseTo(1, 9);
    }
  });

  it('orders latencies within the range of the data, one sample per round', () => {
    for (const benchmark of parsed.benchmarks) {
      const stats = rawStats.get(benchmark.name!)!;
      const [p50, p95, p99] = ['latency_p50', 'latency_p95', 'latency_p99'].map((id) =>
        metric(benchmark, id),
      );
      expect(p50!.value).toBeGreaterThanOrEqual(stats.min * 1000 * (1 - 1e-12));
      expect(p50!.value).toBeLessThanOrEqual(p95!.value);
      expect(p95!.value).toBeLessThanOrEqual(p99!.value);
      expect(p99!.value).toBeLessThanOrEqual(stats.max * 1000 * (1 + 1e-12));
      // Rounds are not independent requests: no per-round samples are attached.
      expect(p50!.samples).toBeUndefined();
      // pytest-benchmark's own median (statistics.median) is the same P50.
      expect(p50!.value / (stats.median * 1000)).toBeCloseTo(1, 9);
    }
  });

  it('keeps params and extra_info as info', () => {
    const small = parsed.benchmarks.find((b) => b.name === 'test_tiny.py::test_sum[10]');
    expect(small!.info).toEqual({ params: { n: 10 }, extra_info: { n: 10 } });
  });

  it('gets per-iteration times when a round has several iterations', () => {
    // The pedantic benchmark runs 3 calls per round, whatever the host's load (the calibrated
    // ones' iteration count depends on how long the first call took, so it is not asserted):
    // each sample is one 2 ms sleep, not three.
    const sleep = parsed.benchmarks.find((b) => b.name === 'test_tiny.py::test_sleep_pedantic');
    expect(rawStats.get('test_tiny.py::test_sleep_pedantic')!.iterations).toBe(3);
    const p50 = metric(sleep, 'latency_p50').value;
    expect(p50).toBeGreaterThanOrEqual(2);
    expect(p50).toBeLessThan(6);
  });
});

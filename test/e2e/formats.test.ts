// `neuron-perf-gate compare` on every result format, from files alone: a file against
// itself passes, a copy of it 30% slower regresses, and `auto` names the format.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runNode } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'formats');

const CASES: { format: string; file: string; flags?: string[] }[] = [
  { format: 'offline-benchmark', file: 'offline-benchmark/reference.json' },
  { format: 'pytest-benchmark', file: 'pytest-benchmark/reference.json' },
  { format: 'vllm-bench-serve', file: 'vllm-bench-serve/reference.json' },
  { format: 'vllm-bench-throughput', file: 'vllm-bench-throughput/reference.json' },
  { format: 'vllm-bench-latency', file: 'vllm-bench-latency/reference.json' },
  { format: 'nxdi-benchmark-report', file: 'nxdi-benchmark-report/reference.json' },
  { format: 'guidellm', file: 'guidellm/several-benchmarks.json' },
  {
    format: 'custom-smaller-is-better',
    file: 'custom/with-samples.json',
    flags: ['--format', 'custom-smaller-is-better', '--threshold', 'p95_latency_ms=5%'],
  },
];

const SLOWER = 1.3;
const TIME_KEY =
  /(ms|latenc|ttft|tpot|itl|time|^p\d+$|^p50$|mean|median|min|max|data|value|samples|stddev|q1|q3|iqr|total)/i;
const RATE_KEY = /(throughput|per_second|ops)/i;

/** The same result, 30% slower: times scaled up, rates scaled down, counts left alone. */
function slower(value: unknown, key = ''): unknown {
  if (typeof value === 'number') {
    if (RATE_KEY.test(key)) return value / SLOWER;
    if (TIME_KEY.test(key)) return value * SLOWER;
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => slower(item, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        slower(v, RATE_KEY.test(k) || TIME_KEY.test(k) ? k : key),
      ]),
    );
  }
  return value;
}

describe.each(CASES)('compare on $format', ({ format, file, flags = [] }) => {
  it('passes a file against itself and fails a copy 30% slower', async () => {
    const dir = await tempDir('perf-gate-formats-');
    const original = JSON.parse(await readFile(join(FIXTURES, file), 'utf8'));
    await writeFile(join(dir, 'before.json'), JSON.stringify(original));
    await writeFile(join(dir, 'after.json'), JSON.stringify(slower(original)));
    const env = { PATH: process.env.PATH };

    const same = await runNode(
      'dist/cli.js',
      [
        'compare',
        '--baseline',
        'before.json',
        '--current',
        'before.json',
        '--out',
        'same',
        ...flags,
      ],
      { cwd: dir, env },
    );
    expect(same.code, same.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'same', 'report.json'), 'utf8'));
    expect(report.benchmarks[0].format).toBe(format);

    const worse = await runNode(
      'dist/cli.js',
      [
        'compare',
        '--baseline',
        'before.json',
        '--current',
        'after.json',
        '--out',
        'worse',
        ...flags,
      ],
      { cwd: dir, env },
    );
    expect(worse.code, worse.stdout).toBe(1);
  });
});

// `neuron-perf-gate compare` on every result format, from files alone: a file against
// itself passes, a copy of it 30% slower regresses, and `auto` names the format.
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, runNode } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { compareTexts, failingIds } from '../support/compare-files.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'formats');

// Every format, with no config and no threshold: the built-in thresholds must catch it.
// Custom files need --format only because they do not say which way is better.
const CASES: { format: string; file: string; flags?: string[]; biggerIsBetter?: true }[] = [
  { format: 'offline-benchmark', file: 'offline-benchmark/reference.json' },
  { format: 'pytest-benchmark', file: 'pytest-benchmark/reference.json' },
  { format: 'pytest-benchmark', file: 'pytest-benchmark/parametrized.json' },
  { format: 'pytest-benchmark', file: 'pytest-benchmark/nan-round.json' },
  { format: 'pytest-benchmark', file: 'pytest-benchmark/micro.json' },
  { format: 'vllm-bench-serve', file: 'vllm-bench-serve/reference.json' },
  { format: 'vllm-bench-serve', file: 'vllm-bench-serve/keys-default-percentiles.json' },
  { format: 'vllm-bench-serve', file: 'vllm-bench-serve/detailed.json' },
  { format: 'vllm-bench-serve', file: 'vllm-bench-serve/nan-tpot.json' },
  { format: 'vllm-bench-serve', file: 'vllm-bench-serve/append-rate-sweep.jsonl' },
  { format: 'vllm-bench-throughput', file: 'vllm-bench-throughput/reference.json' },
  { format: 'vllm-bench-latency', file: 'vllm-bench-latency/reference.json' },
  { format: 'nxdi-benchmark-report', file: 'nxdi-benchmark-report/reference.json' },
  { format: 'guidellm', file: 'guidellm/several-benchmarks.json' },
  { format: 'guidellm', file: 'guidellm/sweep.json' },
  { format: 'guidellm', file: 'guidellm/null-tpot-itl.json' },
  {
    format: 'custom-smaller-is-better',
    file: 'custom/github-action-benchmark-smaller.json',
    flags: ['--format', 'custom-smaller-is-better'],
  },
  {
    format: 'custom-bigger-is-better',
    file: 'custom/github-action-benchmark-bigger.json',
    flags: ['--format', 'custom-bigger-is-better'],
    biggerIsBetter: true,
  },
  {
    format: 'custom-smaller-is-better',
    file: 'custom/with-samples.json',
    flags: ['--format', 'custom-smaller-is-better'],
  },
  {
    format: 'custom-smaller-is-better',
    file: 'custom/non-ascii-names.json',
    flags: ['--format', 'custom-smaller-is-better'],
  },
];

const SLOWER = 1.3;
const TIME_KEY =
  /(ms|latenc|ttft|tpot|itl|time|^p\d+$|^p50$|mean|median|min|max|data|value|samples|stddev|q1|q3|iqr|total)/i;
const RATE_KEY = /(throughput|per_second|ops)/i;
const SETTING_KEY = /^(max_concurrency|streams|request_rate|rate|num_prompts)$/;

/** The same result, 30% slower: times scaled up, rates scaled down, counts left alone. */
function slower(value: unknown, key = ''): unknown {
  // Settings name a benchmark (rate=inf,concurrency=16; concurrent-4): not measurements.
  if (SETTING_KEY.test(key)) return value;
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
        slower(v, RATE_KEY.test(k) || TIME_KEY.test(k) || SETTING_KEY.test(k) ? k : key),
      ]),
    );
  }
  return value;
}

/** The file's text with every document made 30% worse (one per line for JSON Lines). */
function worseText(text: string, file: string, biggerIsBetter: boolean): string {
  // Python's json.dump writes NaN; keep it as a marker the copy writes back.
  const read = (json: string) => JSON.parse(json.replace(/([:[,]\s*)NaN/g, '$1"NaN"'));
  const write = (data: unknown) => JSON.stringify(data).replace(/"NaN"/g, 'NaN');
  const worse = (data: unknown) =>
    biggerIsBetter
      ? (data as { value: number }[]).map((entry) => ({ ...entry, value: entry.value / SLOWER }))
      : slower(data);
  if (!file.endsWith('.jsonl')) return write(worse(read(text)));
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => write(worse(read(line))))
    .join('\n');
}

describe.each(CASES)('compare on $file', ({ format, file, flags = [], biggerIsBetter }) => {
  it('passes a file against itself and fails a copy 30% worse, with no config', async () => {
    const dir = await tempDir('perf-gate-formats-');
    const text = await readFile(join(FIXTURES, file), 'utf8');
    await writeFile(join(dir, 'before.json'), text);
    await writeFile(join(dir, 'after.json'), worseText(text, file, biggerIsBetter === true));
    const env = { PATH: process.env.PATH };

    // `compare` of before.json with `current`, into the folder `out`: its exit and report.
    const compare = async (current: string, out: string) => {
      const run = await runNode(
        CLI,
        ['compare', '--baseline', 'before.json', '--current', current, '--out', out, ...flags],
        { cwd: dir, env },
      );
      const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
      return { ...run, report };
    };

    const same = await compare('before.json', 'same');
    expect(same.code, same.stderr).toBe(0);
    expect(same.report.benchmarks[0].format).toBe(format);

    const worse = await compare('after.json', 'worse');
    expect(worse.code, worse.stdout).toBe(1);
    const judged = worse.report;
    // Every benchmark of the file regressed, not only one of them.
    for (const benchmark of judged.benchmarks)
      expect(benchmark.verdict, benchmark.name).toBe('regression');
  });
});

/** Runs `compare` of the fixture against itself, writing to out/ in a new folder. */
async function compareWithItself(fixture: string) {
  const dir = await tempDir('perf-gate-formats-itself-');
  const file = join(FIXTURES, fixture);
  const run = await runNode(
    CLI,
    ['compare', '--baseline', file, '--current', file, '--out', 'out'],
    { cwd: dir, env: { PATH: process.env.PATH } },
  );
  return { dir, file, run };
}

describe('NaN in a result file', () => {
  it('shows the NaN metrics as not measured, never as a pass', async () => {
    const { dir, run } = await compareWithItself('pytest-benchmark/nan-round.json');
    expect(run.code, run.stderr).toBe(0);
    const summary = await readFile(join(dir, 'out', 'summary.md'), 'utf8');
    expect(summary).toContain('⚪ not measured');
    expect(summary).toContain('stats.ops is NaN, Infinity or null in the file');
    // A not-measured row shows the threshold that would apply; P95/P99 of a micro-benchmark
    // are not gated at all.
    expect(summary).toMatch(
      /\| latency_p50 \(ms\) +\| +— \| +— \| +— \| +— +\| +5% \| ⚪ not measured \|/,
    );
    expect(summary).toMatch(
      /\| latency_p99 \(ms\) +\| +— \| +— \| +— \| +— +\| +— \| ⚪ not measured \|/,
    );
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    const nan = report.benchmarks.find((b: { name: string }) => b.name.includes('bs4'));
    const byId = Object.fromEntries(
      nan.metrics.map((m: { id: string; verdict: string }) => [m.id, m.verdict]),
    );
    expect(byId).toMatchObject({
      throughput: 'missing',
      latency_p50: 'missing',
      latency_mean: 'missing',
      latency_min: 'unchanged',
    });
  });

  it('exits 2 naming the file when every figure is NaN', async () => {
    const { file, run } = await compareWithItself('offline-benchmark/nan-query.json');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: has no usable metric`);
    expect(run.stderr).toContain('metrics.p99_time is NaN');
  });
});

describe('display units', () => {
  it('shows a sub-microsecond pytest-benchmark in ns, keeping ms in report.json', async () => {
    const { dir, run } = await compareWithItself('pytest-benchmark/micro.json');
    expect(run.code, run.stderr).toBe(0);
    const summary = await readFile(join(dir, 'out', 'summary.md'), 'utf8');
    expect(summary).toMatch(/\| latency_p50 \(ns\) +\| +348\.4 \| +348\.4 \|/);
    expect(summary).toMatch(/\| latency_min \(ns\) +\| +341\.7 \|/);
    expect(summary).toContain('| throughput (ops/s) | 2,866,730 |');
    expect(summary).not.toContain('0.000');
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    const p50 = report.benchmarks[0].metrics.find((m: { id: string }) => m.id === 'latency_p50');
    expect(p50.unit).toBe('ms');
    expect(p50.current).toBeCloseTo(0.0003484, 6);
  });
});

describe('non-ASCII metric names', () => {
  it('keeps CJK, Portuguese and Cyrillic names in the report and matches a saved baseline by them', async () => {
    const dir = await tempDir('perf-gate-formats-names-');
    const file = join(FIXTURES, 'custom/non-ascii-names.json');
    const env = { PATH: process.env.PATH };
    const format = ['--format', 'custom-smaller-is-better'];
    // A baseline saved by a real run, read back through its schema.
    const saved = await runNode(
      CLI,
      [
        'run',
        '--command',
        `cp '${file}' "$PERF_GATE_OUTPUT"`,
        '--runs',
        '1',
        '--save-baseline',
        'baseline.json',
        '--out',
        'first',
        ...format,
      ],
      { cwd: dir, env },
    );
    expect(saved.code, saved.stderr).toBe(0);
    const run = await runNode(
      CLI,
      [
        'compare',
        '--baseline',
        'baseline.json',
        '--current',
        file,
        '--out',
        'out',
        '--threshold',
        '延迟_p99=3%',
        ...format,
      ],
      { cwd: dir, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = await readFile(join(dir, 'out', 'summary.md'), 'utf8');
    expect(summary).toMatch(/\| 延迟_p99 \(ms\) +\| +41\.70 \| +41\.70 \|.*\| +3% \|/);
    expect(summary).toMatch(/\| latência_média \(ms\) +\| +12\.30 \|/);
    expect(summary).toMatch(/\| задержка_p50 \(ms\) +\| +9\.800 \|/);
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    const verdicts = report.benchmarks[0].metrics
      .filter((m: { id: string }) => m.id !== 'mfu')
      .map((m: { id: string; verdict: string }) => `${m.id}:${m.verdict}`);
    expect(verdicts).toEqual([
      '延迟_p99:unchanged',
      'latência_média:unchanged',
      'задержка_p50:unchanged',
    ]);
  });
});

describe('an NxD report whose sections are all null', () => {
  it('says what it found in auto mode, not "unknown format", and exits 2', async () => {
    const { file, run } = await compareWithItself('nxdi-benchmark-report/all-null.json');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${file}: looks like an NxD Inference benchmark_report.json, but every section in it is null ` +
        '(e2e_model, context_encoding_model, token_generation_model all null)',
    );
    expect(run.stderr).toContain('inference_demo ran with --benchmark');
    expect(run.stderr).not.toMatch(/unknown|no known format|does not look like/i);
  });
});

const SERVE = readFileSync(join(FIXTURES, 'vllm-bench-serve/reference.json'), 'utf8');
const SWEEP = readFileSync(join(FIXTURES, 'guidellm/sweep.json'), 'utf8');

/** The vllm bench serve reference with only `metric`'s figures 30% slower. */
function serveSlower(metric: string): string {
  // Only this metric's keys (mean_, median_, pNN_ ..._ms) get slower, and for e2el the
  // per-request `latencies` (seconds) the file holds, which the gate reads first.
  const key = new RegExp(`^(mean|median|p\\d+(\\.\\d+)?)_${metric}_ms$`);
  const data = JSON.parse(SERVE) as Record<string, unknown>;
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(data).map(([k, v]) => [
        k,
        key.test(k)
          ? (v as number) * SLOWER
          : metric === 'e2el' && k === 'latencies'
            ? (v as number[]).map((x) => x * SLOWER)
            : v,
      ]),
    ),
  );
}

/** The vllm bench serve reference with its goodput (under `key`) at `value`. */
function serveGoodput(key: string, value: number): string {
  // Older vLLM wrote the key with a colon; the file has one of the two.
  const rest = Object.entries(JSON.parse(SERVE) as Record<string, unknown>).filter(
    ([k]) => k !== 'request_goodput',
  );
  return JSON.stringify({ ...Object.fromEntries(rest), [key]: value });
}

/** The guidellm sweep 30% slower, its constant rates falling with the measured throughput. */
function sweepSlower(): string {
  const data = slower(JSON.parse(SWEEP)) as {
    benchmarks: {
      config: { strategy: { rate?: number }; profile: { measured_rates: number[] } };
    }[];
  };
  // A sweep derives its constant rates from the measured throughput: they fall too.
  for (const benchmark of data.benchmarks) {
    const { strategy, profile } = benchmark.config;
    if (strategy.rate !== undefined) strategy.rate /= SLOWER;
    profile.measured_rates = profile.measured_rates.map((rate) => rate / SLOWER);
  }
  return JSON.stringify(data);
}

interface WorseCase {
  name: string;
  before: string;
  after: string;
  /** Metric ids that must regress, and a pattern every regressed id must match. */
  failing?: { includes: string[]; only: RegExp };
  /** The benchmarks the report must name, in order; each must regress. */
  benchmarks?: string[];
}

// One part of a file 30% worse and the rest as it was, with no config: exit 1, and the
// regression is that part, not its neighbours.
const WORSE_CASES: WorseCase[] = [
  ...['ttft', 'tpot', 'itl'].map((metric) => ({
    name: `vllm bench serve: ${metric} 30 percent slower alone`,
    before: SERVE,
    after: serveSlower(metric),
    failing: {
      includes: [`${metric}_p50`, `${metric}_p99`, `${metric}_mean`],
      only: new RegExp(`^${metric}_`),
    },
  })),
  {
    name: 'vllm bench serve: e2el 30 percent slower alone',
    before: SERVE,
    after: serveSlower('e2el'),
    // e2el is also shown as latency_* (the name every format shares).
    failing: { includes: ['e2el_p50', 'e2el_p99', 'e2el_mean'], only: /^(e2el|latency)_/ },
  },
  ...['request_goodput', 'request_goodput:'].map((key) => ({
    name: `vllm bench serve: goodput (${key}, with --goodput) 30 percent lower alone`,
    before: serveGoodput(key, 0.15),
    after: serveGoodput(key, 0.15 / SLOWER),
    failing: { includes: ['goodput'], only: /^goodput$/ },
  })),
  {
    // Constant-rate points are matched by position although their measured rates changed.
    name: 'guidellm sweep run again 30% slower',
    before: SWEEP,
    after: sweepSlower(),
    benchmarks: ['synchronous', 'throughput', 'constant#1', 'constant#2'],
  },
];

describe('one part of a result 30% worse, with no config', () => {
  // As [name, case] rows: '%s' prints the whole name, '$name' would cut it short.
  const rows = WORSE_CASES.map((worse) => [worse.name, worse] as const);
  it.each(rows)('%s exits 1', async (_, { before, after, failing, benchmarks }) => {
    const { code, stdout, report } = await compareTexts(before, after);
    expect(code, stdout).toBe(1);
    if (failing) {
      const ids = failingIds(report);
      for (const id of failing.includes) expect(ids).toContain(id);
      expect(
        ids.every((id) => failing.only.test(id)),
        ids.join(),
      ).toBe(true);
    }
    if (benchmarks) {
      expect(report.benchmarks.map((b: { name: string }) => b.name)).toEqual(benchmarks);
      for (const benchmark of report.benchmarks)
        expect(benchmark.verdict, benchmark.name).toBe('regression');
    }
  });
});

describe('run --baseline FILE: names do not decide matching silently', () => {
  const reference = join(FIXTURES, 'offline-benchmark/reference.json');
  const run = (args: string[], cwd: string) =>
    runNode(CLI, ['run', '--runs', '1', '--quiet', ...args], {
      cwd,
      env: { PATH: process.env.PATH },
    });
  const copy = `cp cur.json "$PERF_GATE_OUTPUT"`;

  async function savedNamedBaseline(): Promise<string> {
    const dir = await tempDir('perf-gate-run-names-');
    await writeFile(join(dir, 'cur.json'), await readFile(reference, 'utf8'));
    const saved = await run(
      [
        '--command',
        copy,
        '--name',
        'qwen3-reranker',
        '--save-baseline',
        'named.json',
        '--out',
        'a',
      ],
      dir,
    );
    expect(saved.code, saved.stderr).toBe(0);
    // The next build is 30% slower.
    await writeFile(
      join(dir, 'cur.json'),
      worseText(await readFile(reference, 'utf8'), 'x.json', false),
    );
    return dir;
  }

  it('pairs an unnamed run with a baseline of one benchmark, says so, and fails it', async () => {
    const dir = await savedNamedBaseline();
    const result = await run(['--command', copy, '--baseline', 'named.json', '--out', 'b'], dir);
    expect(result.code, result.stdout).toBe(1);
    expect(result.stdout).toContain(
      'compared current "benchmark" with baseline "qwen3-reranker": the names differ, and each side holds one benchmark',
    );
  });

  it('exits 2 when no benchmark of the baseline file matches a measured one', async () => {
    const dir = await savedNamedBaseline();
    await writeFile(
      join(dir, 'two.yml'),
      ['first', 'second']
        .map(
          (name) =>
            `  - name: ${name}\n    command: ${JSON.stringify(copy)}\n    format: offline-benchmark\n`,
        )
        .join('')
        .replace(/^/, 'benchmarks:\n'),
    );
    const result = await run(
      ['--config', 'two.yml', '--baseline', 'named.json', '--out', 'c'],
      dir,
    );
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toContain(
      'no baseline benchmark ("qwen3-reranker") matches a measured one ("first", "second")',
    );
  });
});

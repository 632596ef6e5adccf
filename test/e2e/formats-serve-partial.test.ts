// `neuron-perf-gate compare`, from the committed bundle, on serving files that say less than
// `vllm bench serve` writes: vllm-ascend's latency keys without request_throughput, completed
// or duration, and SGLang bench_serving 0.3.6's lines without request_throughput. Each is
// detected without --format, its unchanged copy passes with the rates it lacks shown as not
// measured, and a copy worse in one figure fails on that figure's metrics alone.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { compareTexts, failingIds } from '../support/compare-files.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'formats');
const WORSE = 1.3;

type Line = Record<string, unknown>;

interface Shape {
  file: string;
  format: string;
  /** The rates the file lacks: each shown as not measured, with why. */
  notMeasured: Record<string, string>;
  /** A figure made 30% worse: the keys changed, and the prefix of every metric that fails. */
  worse: { what: string; keys: RegExp; factor: number; fails: string }[];
}

const SHAPES: Shape[] = [
  {
    file: 'vllm-bench-serve/latency-keys-only.json',
    format: 'vllm-bench-serve',
    notMeasured: {
      throughput: 'request_throughput is not in the file, nor completed and duration',
      tokens_per_second: 'output_throughput is not in the file',
      total_tokens_per_second: 'total_token_throughput is not in the file',
    },
    worse: [
      { what: 'TTFT 30% slower', keys: /_ttft_ms$/, factor: WORSE, fails: 'ttft_' },
      { what: 'TPOT 30% slower', keys: /_tpot_ms$/, factor: WORSE, fails: 'tpot_' },
      { what: 'ITL 30% slower', keys: /_itl_ms$/, factor: WORSE, fails: 'itl_' },
    ],
  },
  {
    file: 'sglang-bench-serving/v0.3-no-request-throughput.jsonl',
    format: 'sglang-bench-serving',
    notMeasured: { total_tokens_per_second: 'total_throughput is not in the file' },
    worse: [
      { what: 'TTFT 30% slower', keys: /_ttft_ms$/, factor: WORSE, fails: 'ttft_' },
      { what: 'ITL 30% slower', keys: /_itl_ms$/, factor: WORSE, fails: 'itl_' },
      {
        what: 'output throughput 30% lower',
        keys: /^output_throughput$/,
        factor: 1 / WORSE,
        fails: 'tokens_per_second',
      },
      // The request rate is completed ÷ duration: a longer run is a lower rate.
      { what: 'request rate 30% lower', keys: /^duration$/, factor: WORSE, fails: 'throughput' },
    ],
  },
];

/** `text` with `edit` applied to its document, or to each line of a JSON Lines file. */
function edited(text: string, file: string, edit: (line: Line) => Line): string {
  const apply = (json: string) => JSON.stringify(edit(JSON.parse(json) as Line));
  if (!file.endsWith('.jsonl')) return apply(text);
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.map(apply).join('\n') + '\n';
}

/** Every number at a key matching `keys` times `factor`; the rest as it was. */
function scaled(keys: RegExp, factor: number): (line: Line) => Line {
  return (line) =>
    Object.fromEntries(
      Object.entries(line).map(([key, value]) => [
        key,
        typeof value === 'number' && keys.test(key) ? value * factor : value,
      ]),
    );
}

/** report.json's verdict and reason of each metric, over all its benchmarks. */
function verdicts(report: {
  benchmarks: { metrics: { id: string; verdict: string; reason: string }[] }[];
}): Map<string, { verdict: string; reason: string }[]> {
  const byId = new Map<string, { verdict: string; reason: string }[]>();
  for (const metric of report.benchmarks.flatMap((b) => b.metrics)) {
    byId.set(metric.id, [...(byId.get(metric.id) ?? []), metric]);
  }
  return byId;
}

describe.each(SHAPES)('compare on $file', ({ file, format, notMeasured, worse }) => {
  const name = file.endsWith('.jsonl') ? 'result.jsonl' : 'result.json';
  const text = () => readFile(join(FIXTURES, file), 'utf8');

  it('passes the unchanged copy, detected without --format, its lacking rates not measured', async () => {
    const same = await compareTexts(await text(), await text(), [], name);
    expect(same.code, same.stderr).toBe(0);
    for (const benchmark of same.report.benchmarks) expect(benchmark.format).toBe(format);
    expect(failingIds(same.report)).toEqual([]);
    const byId = verdicts(same.report);
    for (const [id, reason] of Object.entries(notMeasured)) {
      for (const metric of byId.get(id) ?? [{ verdict: 'absent', reason: '' }]) {
        expect(metric.verdict, id).toBe('missing');
        expect(metric.reason, id).toMatch(/^not measured: /);
        expect(metric.reason, id).toContain(reason);
      }
    }
  });

  it.each(worse)('fails a copy with $what on those metrics only', async (change) => {
    const before = await text();
    const after = edited(before, file, scaled(change.keys, change.factor));
    const run = await compareTexts(before, after, [], name);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const failing = failingIds(run.report);
    expect(failing.length).toBeGreaterThan(0);
    for (const id of failing) expect(id.startsWith(change.fails), id).toBe(true);
  });
});

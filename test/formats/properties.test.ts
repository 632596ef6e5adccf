// Property-based tests: whatever JSON a benchmark leaves behind, every parser (explicit
// format or auto) either returns well-formed benchmarks or throws a GateError — never a
// TypeError, RangeError or a NaN that would poison the comparison.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METRIC_ID } from '../../src/config/thresholds.js';
import { GateError } from '../../src/errors.js';
import { AUTO_FORMAT, formatIds, parseResultText } from '../../src/formats/index.js';
import { parseJsonText } from '../../src/formats/json.js';
import { fixturePath } from './support.js';

const FORMATS = [AUTO_FORMAT, ...formatIds()];

/** Parses `text` with every format; fails on anything but a GateError or a well-formed result. */
function checkEveryParser(text: string): void {
  for (const format of FORMATS) {
    let result: ReturnType<typeof parseResultText>;
    try {
      result = parseResultText(text, 'prop.json', format);
    } catch (error) {
      if (!(error instanceof GateError)) {
        throw new Error(`${format} threw ${String(error)} for ${text.slice(0, 300)}`, {
          cause: error,
        });
      }
      expect(error.kind).toBe('input');
      expect(error.message.startsWith('prop.json: ')).toBe(true);
      continue;
    }
    expectWellFormed(result, format);
  }
}

function expectWellFormed(result: ReturnType<typeof parseResultText>, format: string): void {
  if (format !== AUTO_FORMAT) expect(result.format).toBe(format);
  expect(result.runs.length).toBeGreaterThan(0);
  expect(result.benchmarks).toBe(result.runs[0]);
  for (const run of result.runs) {
    const names = run.map((benchmark) => benchmark.name ?? '');
    expect(new Set(names).size).toBe(names.length);
    for (const benchmark of run) {
      // A benchmark whose every figure is NaN stays, marked not measured, when others measured.
      const notMeasured = Object.keys(benchmark.notMeasured ?? {});
      expect(benchmark.metrics.length + notMeasured.length).toBeGreaterThan(0);
      for (const id of notMeasured) expect(id).toMatch(METRIC_ID);
      const ids = benchmark.metrics.map((metric) => metric.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const metric of benchmark.metrics) {
        expect(metric.id).toMatch(METRIC_ID);
        expect(typeof metric.unit).toBe('string');
        expect(['higher-is-better', 'lower-is-better']).toContain(metric.direction);
        expect(Number.isFinite(metric.value)).toBe(true);
        // A custom file's ms may be a delta, negative as github-action-benchmark allows.
        const latency = metric.unit === 'ms' && !result.format.startsWith('custom-');
        if (latency) expect(metric.value).toBeGreaterThanOrEqual(0);
        if (metric.percentile !== undefined) {
          expect(metric.percentile).toBeGreaterThanOrEqual(0);
          expect(metric.percentile).toBeLessThanOrEqual(100);
        }
        for (const sample of metric.samples ?? []) {
          expect(Number.isFinite(sample)).toBe(true);
          if (latency) expect(sample).toBeGreaterThanOrEqual(0);
        }
      }
    }
  }
}

/** Every fixture of a format, as its JSON documents (one per line for .jsonl). */
function fixtures(): { name: string; documents: unknown[] }[] {
  const dirs = [
    'offline-benchmark',
    'pytest-benchmark',
    'vllm-bench-serve',
    'vllm-bench-throughput',
    'vllm-bench-latency',
    'nxdi-benchmark-report',
    'guidellm',
    'optimum-neuron-benchmark',
    'custom',
  ];
  return dirs.flatMap((dir) =>
    readdirSync(fixturePath(dir))
      .filter(
        (name) =>
          /\.jsonl?$/.test(name) && !name.includes('truncated') && !name.startsWith('nan-in'),
      )
      .map((name) => {
        const text = readFileSync(fixturePath(`${dir}/${name}`), 'utf8');
        const documents = name.endsWith('.jsonl')
          ? text
              .split('\n')
              .filter((line) => line.trim() !== '')
              .map((line) => JSON.parse(line) as unknown)
          : [parseJsonText(text, name)];
        return { name: `${dir}/${name}`, documents };
      }),
  );
}

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], out);
  }
  return out;
}

/** A copy of `root` with the value at `path` replaced, or deleted when `replacement` is DELETE. */
function mutate(root: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement === DELETE ? {} : replacement;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement !== DELETE) parent[last] = replacement;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

const DELETE = Symbol('delete');

/** Values that break parsers: wrong types, NaN (null), negatives, overflow, empty containers. */
const nasty = fc.oneof(
  fc.constantFrom<unknown>(
    DELETE,
    null,
    -1,
    0,
    1e308,
    5e-324,
    -0,
    'inf',
    '',
    'NaN',
    [],
    {},
    [null],
    [[]],
    true,
    1.5,
  ),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
);

describe('every parser on arbitrary input', () => {
  it('returns well-formed benchmarks or throws a GateError for arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => checkEveryParser(JSON.stringify(value))),
      { numRuns: 400 },
    );
  });

  it('does the same for arbitrary objects with the keys the formats look for', () => {
    const keys = fc.constantFrom(
      'request_throughput',
      'output_throughput',
      'completed',
      'ttfts',
      'itls',
      'latencies',
      'output_lens',
      'errors',
      'requests_per_second',
      'tokens_per_second',
      'avg_latency',
      'percentiles',
      'e2e_model',
      'latency_ms_p50',
      'throughput',
      'benchmarks',
      'metrics',
      'successful',
      'raw_times',
      'stats',
      'name',
      'value',
      'unit',
      'samples',
      'p95_ttft_ms',
      'median_itl_ms',
      'request_goodput:',
      'latency_p50_ms',
      'latency_p99_ms',
      'concurrent_users',
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        tie('object'),
        fc.array(tie('node'), { maxLength: 4 }),
      ),
      object: fc.dictionary(keys, tie('node'), { maxKeys: 6 }),
    }));
    fc.assert(
      fc.property(fc.oneof(tree.object, fc.array(tree.object, { maxLength: 3 })), (value) =>
        checkEveryParser(JSON.stringify(value)),
      ),
      { numRuns: 400 },
    );
  });

  it('returns or throws a GateError for arbitrary text and JSON Lines', () => {
    const line = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(line, { maxLength: 4 }).map((lines) => lines.join('\n')),
        ),
        (text) => checkEveryParser(text),
      ),
      { numRuns: 300 },
    );
  });
});

describe('every parser on mutated fixtures', () => {
  for (const { name, documents } of fixtures()) {
    it(`returns well-formed benchmarks or throws a GateError for mutations of ${name}`, () => {
      const paths = documents.map((document) => pathsOf(document));
      const mutation = fc.record({
        document: fc.nat({ max: documents.length - 1 }),
        pick: fc.nat(),
        value: nasty,
      });
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
          const mutated = [...documents];
          for (const { document, pick, value } of mutations) {
            const options = pathsOf(mutated[document]);
            const path = options[pick % options.length]!;
            mutated[document] = mutate(mutated[document], path, value);
          }
          expect(paths.length).toBe(documents.length);
          checkEveryParser(mutated.map((document) => JSON.stringify(document)).join('\n'));
        }),
        { numRuns: 150 },
      );
    });
  }

  it('parses every fixture unmutated with its own format or auto', () => {
    for (const { documents } of fixtures()) {
      checkEveryParser(documents.map((document) => JSON.stringify(document)).join('\n'));
    }
  });
});

describe('arithmetic on valid fields that overflows', () => {
  it.each([
    [
      'pytest-benchmark',
      '{"machine_info": {}, "benchmarks": [{"fullname": "t", "stats": {"mean": 5e-324, "median": 1}}]}',
      'metric throughput comes out as Infinity',
    ],
    [
      'offline-benchmark',
      '{"metrics": {"total_queries": 1e300, "total_time": 1e-300}, "raw_times": [0.1]}',
      'metric throughput comes out as Infinity',
    ],
    [
      'offline-benchmark',
      '{"metrics": {"throughput_queries_per_sec": 1}, "raw_times": [1e308]}',
      'raw_times[0] is 1e+308',
      'plausible',
    ],
    [
      'guidellm',
      '{"benchmarks": [{"metrics": {"request_latency": {"successful": {"mean": 1e308}}}}]}',
      'request_latency.successful.mean is 1e+308',
    ],
  ])('%s: %s is a GateError', (format, text, ...fragments) => {
    let caught: unknown;
    try {
      parseResultText(text, 'o.json', format);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GateError);
    for (const fragment of fragments) expect((caught as GateError).message).toContain(fragment);
    checkEveryParser(text);
  });
});

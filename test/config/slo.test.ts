// `slo:` in a benchmark entry: vLLM's words (per request as --goodput takes it, percentiles
// as serve_sla's --sla-params), read into objectives; every mistake named with its field.
import { describe, expect, it } from 'vitest';

import { resolveGateConfig } from '../../src/config/load.js';
import { parseTimeMs, sloText } from '../../src/config/slo.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

const entry = (slo: string, extra = '') =>
  `benchmarks:\n  - name: serve\n    command: ./bench.sh\n${extra}    slo:\n${slo}`;

async function configOf(yaml: string) {
  return resolveGateConfig({}, { workspace: await makeWorkspace({ [FILE]: yaml }) });
}

async function errorOf(yaml: string): Promise<string> {
  const error = await rejection(configOf(yaml));
  expect(error.kind).toBe('config');
  return error.message;
}

describe('slo in a benchmark entry', () => {
  it('reads per-request times, percentiles, attainment and load', async () => {
    const config = await configOf(
      entry(
        [
          '      ttft: 500ms',
          '      tpot: 50',
          '      e2el: { p99: 2s, p50: 800ms }',
          '      itl: { p99.9: 0.2s }',
          '      attainment: 95%',
          '      load: max_concurrency',
          '',
        ].join('\n'),
      ),
    );
    expect(config.benchmarks[0]!.slo).toEqual({
      objectives: [
        { metric: 'ttft', limitMs: 500 },
        { metric: 'tpot', limitMs: 50 },
        { metric: 'e2el', limitMs: 2000, percentile: 99 },
        { metric: 'e2el', limitMs: 800, percentile: 50 },
        { metric: 'itl', limitMs: 200, percentile: 99.9 },
      ],
      attainment: 0.95,
      load: 'max_concurrency',
    });
  });

  it('defaults the attainment to 90% and leaves the load to the sweep', async () => {
    const config = await configOf(entry('      ttft: 500ms\n'));
    expect(config.benchmarks[0]!.slo).toEqual({
      objectives: [{ metric: 'ttft', limitMs: 500 }],
      attainment: 0.9,
    });
  });

  it('changes the config hash, so another SLO starts another baseline', async () => {
    const a = await configOf(entry('      ttft: 500ms\n'));
    const b = await configOf(entry('      ttft: 400ms\n'));
    const none = await configOf('benchmarks:\n  - name: serve\n    command: ./bench.sh\n');
    expect(new Set([a, b, none].map((c) => c.benchmarks[0]!.configHash)).size).toBe(3);
  });

  it('refuses a time without a known unit', async () => {
    expect(await errorOf(entry('      ttft: 500us\n'))).toBe(
      '.github/perf-gate.yml:5:13: benchmarks[0].slo.ttft: found "500us"; allowed: a time above 0 such as 500ms or 0.5s (a bare number is milliseconds, as --goodput takes it)',
    );
  });

  it('refuses an unknown metric, saying which one was meant', async () => {
    const message = await errorOf(entry('      ttf: 500ms\n      e2e: 2s\n'));
    expect(message).toContain(
      'benchmarks[0].slo.ttf: found "ttf"; unknown key "ttf" (did you mean "ttft"?); allowed keys: ttft, tpot, itl, e2el, attainment, load, capacity',
    );
    expect(message).toContain(
      'benchmarks[0].slo.e2e: found "e2e"; unknown key "e2e" (did you mean "e2el"?)',
    );
  });

  it('refuses percentiles out of range and keys that are not percentiles', async () => {
    const message = await errorOf(entry('      ttft: { p101: 1s, p0: 1s, max: 2s }\n'));
    for (const key of ['p101', 'p0', 'max']) {
      expect(message).toContain(
        `benchmarks[0].slo.ttft.${key}: found "${key}"; allowed: a percentile key p<P> with 0 < P ≤ 100, such as p50, p99 or p99.9`,
      );
    }
  });

  it('refuses an attainment out of range, or without a per-request objective', async () => {
    expect(await errorOf(entry('      ttft: 1s\n      attainment: 0.9\n'))).toContain(
      'benchmarks[0].slo.attainment: found 0.9; allowed: a percentage above 0% and at most 100%',
    );
    expect(await errorOf(entry('      ttft: { p99: 1s }\n      attainment: 90%\n'))).toContain(
      'attainment is the share of requests meeting the per-request objectives, and there is none',
    );
  });

  it('refuses an unknown load and an empty block', async () => {
    expect(await errorOf(entry('      ttft: 1s\n      load: qps\n'))).toContain(
      'benchmarks[0].slo.load: found "qps"; allowed: request_rate or max_concurrency',
    );
    expect(await errorOf(entry('      {}\n'))).toContain(
      'benchmarks[0].slo: found a mapping; no objective: allowed: a mapping of ttft, tpot, itl, e2el',
    );
  });

  it('says that an slo at the top level belongs in a benchmark entry', async () => {
    expect(await errorOf('slo: { ttft: 1s }\n' + entry('      ttft: 1s\n'))).toContain(
      'unknown key "slo" (an objective of one workload: give it in a benchmark entry (docs/serving.md))',
    );
  });

  it('refuses a sweep variant that would take the capacity benchmark’s name', async () => {
    const sweep = '    sweep:\n      variants:\n        - { name: capacity, request_rate: 1 }\n';
    expect(await errorOf(entry('      ttft: 1s\n', sweep))).toContain(
      'benchmarks[0].sweep: found "capacity"; a variant named capacity would share its name',
    );
  });
});

describe('the SLO in words', () => {
  it('names the per-request objectives with their share, then the percentiles and the load', () => {
    expect(
      sloText({
        objectives: [
          { metric: 'ttft', limitMs: 500 },
          { metric: 'e2el', limitMs: 2000, percentile: 99 },
          { metric: 'tpot', limitMs: 50 },
        ],
        attainment: 0.95,
        load: 'max_concurrency',
      }),
    ).toBe(
      'ttft ≤ 500 ms per request, tpot ≤ 50 ms per request (95% of requests), e2el P99 ≤ 2000 ms; load: max_concurrency',
    );
  });
});

describe('times', () => {
  it.each([
    ['500ms', 500],
    ['0.5s', 500],
    [' 2 s ', 2000],
    [250, 250],
    ['.5s', 500],
  ])('%j is %d ms', (text, ms) => expect(parseTimeMs(text)).toBe(ms));

  it.each(['0ms', -5, '5 min', 'fast', Infinity])('%j is no time', (text) =>
    expect(parseTimeMs(text)).toBeUndefined(),
  );
});

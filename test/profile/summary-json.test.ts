import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { combineGraphs, overallFigures } from '../../src/profile/figures.js';
import { parseSummaryJson } from '../../src/profile/summary-json.js';

const REFERENCE = readFileSync(
  join(import.meta.dirname, '..', 'fixtures', 'profile', 'neuron_profile_summary.json'),
  'utf8',
);

describe('parseSummaryJson', () => {
  it('turns fractions into percents and keeps every key', () => {
    const [graph] = parseSummaryJson(REFERENCE, 'summary.json').graphs;
    expect(graph?.key).toBe('n_fdc71a0b582ee3009711a96e59958af921243921');
    expect(graph?.totalTime).toBe(0.213808050051);
    expect(graph?.mfu).toBeCloseTo(12.9, 10);
    expect(graph?.mbu).toBeCloseTo(8.5, 10);
    expect(graph?.engines.vector).toBeCloseTo(96.453960927013, 10);
    expect(graph?.dma).toBeCloseTo(26.4166187154915, 10);
    expect(graph?.hbmReadBytes).toBe(6582249472);
    expect(graph?.raw.profiler_version).toBe('2.29.18.0%kaena-tools/2.29@d5fe7ba');
  });

  it('reads a negative value as "not available", not as a figure', () => {
    const text = REFERENCE.replace('"mfu_estimated_percent": 0.129', '"mfu_estimated_percent": -1');
    const [graph] = parseSummaryJson(text, 'summary.json').graphs;
    expect(graph?.mfu).toBeUndefined();
    expect(graph?.mbu).toBeCloseTo(8.5, 10);
  });

  it('tolerates NaN from older profilers', () => {
    const text = REFERENCE.replace(
      '"tensor_engine_active_time_percent": 2.2616407562047187e-06',
      '"tensor_engine_active_time_percent": NaN',
    );
    const [graph] = parseSummaryJson(text, 'summary.json').graphs;
    expect(graph?.engines.tensor).toBeUndefined();
    expect(graph?.engines.vector).toBeDefined();
  });

  it('reads every graph whatever its key, and keeps unknown keys', () => {
    const data = JSON.parse(REFERENCE) as Record<string, Record<string, unknown>>;
    const one = Object.values(data)[0]!;
    const text = JSON.stringify({
      n_aaa: { ...one, total_time: 1, mfu_estimated_percent: 0.05, brand_new_metric: 7 },
      weird_key: { ...one, total_time: 3, mfu_estimated_percent: 0.01 },
      not_a_graph: 'ignored',
    });
    const { graphs } = parseSummaryJson(text, 'summary.json');
    expect(graphs.map((g) => g.key)).toEqual(['n_aaa', 'weird_key']);
    expect(graphs[0]?.raw.brand_new_metric).toBe(7);
    // Time-weighted: (1 × 5% + 3 × 1%) / 4 = 2%.
    expect(overallFigures(combineGraphs(graphs)).mfu).toBeCloseTo(2, 10);
  });

  it('reads the JSON after the log lines a profiler prints first, and before trailing ones', () => {
    // The shape of neuron-profile's console output: timestamped log lines on stdout.
    const logged =
      '2026-11-24 09:12:01.442 INFO  [neuron-profile] Reading NEFF file neff_1.neff\n' +
      'INFO: Processing NTFF 1_instid_0_vnc_0.ntff (28.1 MB)\n' +
      '{"progress": "50%"} \n' +
      `${REFERENCE.trim()}\n` +
      'INFO: done in 3.2 s\n';
    const read = parseSummaryJson(logged, '`neuron-profile view ...`');
    expect(read.graphs).toHaveLength(1);
    expect(read.graphs[0]?.mfu).toBeCloseTo(12.9, 10);
  });

  it('names the profiler command and quotes its output when it holds no JSON', () => {
    const source = '`neuron-profile view -n a.neff -s b.ntff --output-format summary-json`';
    const call = () => parseSummaryJson('INFO: starting\nERROR: license check failed\n', source);
    expect(call).toThrow(
      /^`neuron-profile view -n a\.neff -s b\.ntff --output-format summary-json` printed no JSON summary: 43 characters beginning "INFO: starting\\nERROR: license/,
    );
    expect(call).not.toThrow(/ntff: is not valid JSON/);
    expect(() => parseSummaryJson('  \n', source)).toThrow(/printed nothing on stdout/);
  });

  it('lists the graphs with a NaN total_time instead of dropping them silently', () => {
    const data = JSON.parse(REFERENCE) as Record<string, Record<string, unknown>>;
    const one = Object.values(data)[0]!;
    const text = JSON.stringify({
      n_ce: { ...one, total_time: 0.2 },
      n_tg: { ...one, total_time: 'NaN-marker' },
    }).replace('"NaN-marker"', 'NaN');
    const read = parseSummaryJson(text, 'summary.json');
    expect(read.graphs.map((g) => g.key)).toEqual(['n_ce']);
    expect(read.untimed).toEqual(['n_tg']);
  });

  it('says which file is not a summary', () => {
    expect(() => parseSummaryJson('[1, 2]', 'view-output')).toThrow(
      /view-output: expected a JSON object/,
    );
    expect(() => parseSummaryJson('{"x": {"y": 1}}', 'view-output')).toThrow(/no profiled graph/);
  });
});

describe('combineGraphs', () => {
  const graph = (
    key: string,
    time: number,
    mfu: number | undefined,
    flops: number,
    intensity: number,
  ) => ({
    key,
    totalTime: time,
    ...(mfu === undefined ? {} : { mfu }),
    modelFlops: flops,
    arithmeticIntensity: intensity,
    engines: { tensor: 10 },
    hbmReadBytes: 100,
    raw: {},
  });

  it('merges one graph seen on two cores and labels prefill and decode', () => {
    const graphs = combineGraphs([
      graph('n_ce', 0.2, 5, 1e9, 600),
      graph('n_ce', 0.2, 4, 1e9, 600),
      graph('n_tg', 0.3, undefined, 1e8, 20),
    ]);
    const ce = graphs.find((g) => g.key === 'n_ce')!;
    expect(ce.mfu).toBeCloseTo(4.5, 10);
    expect(ce.hbmReadBytes).toBe(200);
    expect(ce.label).toBe('context encoding');
    const tg = graphs.find((g) => g.key === 'n_tg')!;
    expect(tg.label).toBe('token generation');
    // Peak implied by the CE samples: 1e9 / (0.2 × 5%) and 1e9 / (0.2 × 4%) → median 1.125e11.
    expect(tg.mfuDerived).toBe(true);
    expect(tg.mfu).toBeCloseTo((100 * 1e8) / (0.3 * 1.125e11), 8);
  });
});

// docs/thresholds.md lists the built-in threshold of every metric of every format: each
// metric the parsers read from every fixture, and each the gate derives from them (cost),
// must have its row, with the value the gate really uses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtInThreshold, percentileOfId } from '../../src/config/default-thresholds.js';
import { CAPACITY_FORMAT } from '../../src/derive/capacity.js';
import { FORMATS, parseResultFile } from '../../src/formats/index.js';
import { formatThreshold } from '../../src/report/numbers.js';
import { ROOT } from '../support/bundled.js';
import { withCostMetrics } from '../../src/derive/cost.js';
import { DEVICE_MEMORY_KINDS } from '../../src/formats/neuron-monitor.js';
import type { ObservedMemory } from '../../src/model.js';
import { memoryMetrics } from '../../src/observe/memory-figures.js';
import { startupFigures } from '../../src/observe/startup-metrics.js';
import { benchmarkResults, fixturePath } from '../formats/support.js';

const DOC = readFileSync(join(ROOT, 'docs', 'thresholds.md'), 'utf8');

/** `### a, b` section → its rows `metric → threshold text`. */
function tables(): Map<string, Map<string, string>> {
  const byFormat = new Map<string, Map<string, string>>();
  for (const section of DOC.split(/^### /m).slice(1)) {
    const [heading = '', ...lines] = section.split('\n');
    const rows = new Map<string, string>();
    for (const line of lines) {
      const cells = /^\|\s*`?([^`|]+?)`?\s*\|\s*([^|]+?)\s*\|$/.exec(line);
      if (cells) rows.set(cells[1]!, cells[2]!);
    }
    for (const format of heading.split(',').map((name) => name.trim())) {
      byFormat.set(format, rows);
    }
  }
  return byFormat;
}

/** Every metric id each format's fixtures give, the way the gate reads them. */
async function metricIds(formatId: string): Promise<Set<string>> {
  const dir = formatId.startsWith('custom-') ? 'custom' : formatId;
  const ids = new Set<string>();
  for (const name of readdirSync(fixturePath(dir))) {
    let parsed;
    try {
      parsed = await parseResultFile(fixturePath(`${dir}/${name}`), formatId);
    } catch {
      continue; // fixtures of broken files
    }
    for (const benchmark of parsed.runs.flat()) {
      for (const metric of benchmark.metrics) ids.add(metric.id);
    }
    // Derived after parsing: cost per 1M tokens or requests, at whatever price.
    const results = benchmarkResults(parsed, name, 'bench');
    for (const result of withCostMetrics(results, undefined, { usdPerHour: 1 }).results) {
      for (const metric of result.metrics) ids.add(metric.id);
    }
  }
  if (formatId === 'offline-benchmark') ids.add('mfu');
  // From the compile cache around the runs, whatever the format; listed under offline-benchmark.
  if (formatId === 'offline-benchmark') {
    for (const id of ['graphs_compiled', 'graphs_cached', 'compile_time']) ids.add(id);
  }
  // From a benchmark's server, whatever the format; listed under vllm-bench-serve.
  if (formatId === 'vllm-bench-serve') ids.add('server_startup');
  return ids;
}

/** The `<m>_p<P>, a < P ≤ b` row whose band holds the percentile of `id`, if any. */
function percentileBandRow(rows: Map<string, string>, id: string): string | undefined {
  const p = percentileOfId(id);
  if (p === undefined) return undefined;
  for (const [key, value] of rows) {
    const band = /^<m>_p<P>, (?:(\d+(?:\.\d+)?) < )?P (≤|<) (\d+(?:\.\d+)?)$/.exec(key);
    if (!band) continue;
    const above = band[1] === undefined ? -Infinity : Number(band[1]);
    const upTo = Number(band[3]);
    if (p > above && (band[2] === '≤' ? p <= upTo : p < upTo)) return value;
  }
  return undefined;
}

describe('docs/thresholds.md', () => {
  const byFormat = tables();

  it.each(FORMATS.map((format) => format.id))(
    'lists every metric of %s with its built-in threshold',
    async (formatId) => {
      const rows = byFormat.get(formatId);
      expect(rows, `a "### ${formatId}" section`).toBeDefined();
      const ids = await metricIds(formatId);
      expect(ids.size).toBeGreaterThan(0);
      for (const id of ids) {
        const threshold = builtInThreshold(id, formatId);
        expect(threshold, `${formatId} ${id} is gated by default`).not.toBeUndefined();
        const shown = threshold === null ? 'off' : formatThreshold(threshold);
        const row = rows!.get(id) ?? rows!.get('any entry') ?? percentileBandRow(rows!, id);
        expect(row, `${formatId} ${id}`).toBe(shown);
      }
    },
  );

  it('lists the metrics derived from an SLO with their built-in thresholds', () => {
    const rows = byFormat.get('slo');
    const derived = [
      ['slo_attainment', 'vllm-bench-serve'],
      ['goodput', 'vllm-bench-serve'],
      ['capacity', CAPACITY_FORMAT],
    ] as const;
    const listed = [...(rows?.keys() ?? [])].filter(
      (key) => key !== 'Metric' && !key.startsWith('-'),
    );
    expect(listed).toEqual(derived.map(([id]) => id));
    for (const [id, format] of derived) {
      expect(rows!.get(id), id).toBe(formatThreshold(builtInThreshold(id, format)!));
    }
  });

  it('lists the metrics timed with startup: with their built-in thresholds', () => {
    const rows = byFormat.get('startup');
    const run = { index: 1, kind: 'clean', ok: true, exitCode: 0, timedOut: false, durationMs: 1 };
    const timed = startupFigures(
      { cold: true },
      [{ ...run, kind: 'clean', resultPath: '', logPath: '', logTail: [], startup: { ms: 1 } }],
      { seconds: 1, compileSeconds: 1, graphsCompiled: 1, log: '' },
    ).metrics.map((metric) => metric.id);
    const listed = [...(rows?.keys() ?? [])].filter(
      (key) => key !== 'Metric' && !key.startsWith('-'),
    );
    expect(listed).toEqual(timed);
    for (const id of timed) {
      const threshold = builtInThreshold(id, 'offline-benchmark');
      expect(rows!.get(id), id).toBe(threshold === null ? 'off' : formatThreshold(threshold));
    }
  });

  it('lists the metrics watched with monitor: with their built-in thresholds', () => {
    const rows = byFormat.get('monitor');
    // Every figure a run can give, as the gate turns them into metrics.
    const memory: ObservedMemory = {
      monitorSamples: 1,
      devicePeakBytes: 1,
      kindPeakBytes: Object.fromEntries(DEVICE_MEMORY_KINDS.map((kind) => [kind, 1])),
      utilizationMean: 1,
      hostPeakBytes: 1,
      server: { peakBytes: 1 },
      warnings: [],
    };
    const run = { index: 1, kind: 'clean', ok: true, exitCode: 0, timedOut: false, durationMs: 1 };
    const watched = memoryMetrics([
      { ...run, kind: 'clean', resultPath: '', logPath: '', logTail: [], memory },
    ]).metrics.map((metric) => metric.id);
    const listed = [...(rows?.keys() ?? [])].filter(
      (key) => key !== 'Metric' && !key.startsWith('-'),
    );
    expect(listed).toEqual(watched);
    for (const id of watched) {
      const threshold = builtInThreshold(id, 'offline-benchmark');
      expect(rows!.get(id), id).toBe(threshold === null ? 'off' : formatThreshold(threshold));
    }
  });

  it('gates every metric of every format except the ones it says are off', async () => {
    for (const format of FORMATS) {
      for (const id of await metricIds(format.id)) {
        const shown = byFormat.get(format.id)?.get(id);
        if (shown !== 'off') expect(builtInThreshold(id, format.id), id).not.toBeNull();
      }
    }
  });
});

// server_rss_peak among a run's memory figures: one value per clean run of a benchmark with a
// server, none without one, "not measured" (naming the run) when a served run did not see it.
import { describe, expect, it } from 'vitest';
import { builtInThreshold } from '../../src/config/default-thresholds.js';
import { isBuiltInMetricName } from '../../src/config/metric-names.js';
import type { ObservedMemory, RunOutcome } from '../../src/model.js';
import { memoryMetrics } from '../../src/observe/memory-figures.js';

const MIB = 1024 * 1024;

function run(index: number, server?: { peakBytes?: number }): RunOutcome {
  const memory: ObservedMemory = {
    monitorSamples: 2,
    devicePeakBytes: 3000 * MIB,
    hostPeakBytes: 62 * MIB,
    ...(server ? { server } : {}),
    warnings: [],
  };
  return {
    index,
    kind: 'clean',
    ok: true,
    exitCode: 0,
    timedOut: false,
    durationMs: 1,
    resultPath: '',
    logPath: '',
    logTail: [],
    memory,
  };
}

describe('server_rss_peak', () => {
  it("is the server's peak of each clean run in MiB, beside the client's host_rss_peak", () => {
    const result = memoryMetrics([
      run(1, { peakBytes: 1200 * MIB }),
      run(2, { peakBytes: 1210.5 * MIB }),
    ]);
    const metric = (id: string) => result.metrics.find((m) => m.id === id);
    expect(metric('server_rss_peak')).toEqual({
      id: 'server_rss_peak',
      unit: 'MiB',
      direction: 'lower-is-better',
      values: [1200, 1210.5],
    });
    expect(metric('host_rss_peak')!.values).toEqual([62, 62]);
    expect(result.notMeasured).toEqual({});
  });

  it('is absent for a benchmark without a server', () => {
    const result = memoryMetrics([run(1), run(2)]);
    expect(result.metrics.map((m) => m.id)).not.toContain('server_rss_peak');
    expect(result.notMeasured).toEqual({});
  });

  it('is not measured when a served run saw no process of its server, naming the run', () => {
    const result = memoryMetrics([run(1, { peakBytes: 1200 * MIB }), run(2, {})]);
    expect(result.metrics.map((m) => m.id)).not.toContain('server_rss_peak');
    expect(result.notMeasured).toEqual({
      server_rss_peak: {
        reason: 'not measured in clean run 2 (see the warnings)',
        unit: 'MiB',
        direction: 'lower-is-better',
      },
    });
  });

  it('is a built-in metric name with its own threshold, apart from the client’s', () => {
    expect(isBuiltInMetricName('server_rss_peak')).toBe(true);
    expect(builtInThreshold('server_rss_peak', 'vllm-bench-serve')).toBe(0.1);
    expect(builtInThreshold('host_rss_peak', 'vllm-bench-serve')).toBe(0.15);
  });
});

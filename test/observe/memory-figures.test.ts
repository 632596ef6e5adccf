import { describe, expect, it } from 'vitest';
import { memoryMetrics, observedMemory } from '../../src/observe/memory-figures.js';
import type { MonitorSample } from '../../src/formats/neuron-monitor.js';
import type { ObservedMemory, RunOutcome } from '../../src/model.js';

const MIB = 1024 * 1024;
const sample = (line: number, device: number, tensors: number, use?: number): MonitorSample => ({
  line,
  deviceBytes: device * MIB,
  kinds: { tensors: tensors * MIB, constants: 100 * MIB },
  ...(use !== undefined ? { utilization: use } : {}),
});

function run(index: number, memory?: ObservedMemory): RunOutcome {
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
    ...(memory ? { memory } : {}),
  };
}

describe('observedMemory', () => {
  it('takes the highest of each figure over the reports, each kind at its own peak, and the mean use', () => {
    const memory = observedMemory(
      {
        samples: [sample(1, 1000, 10, 40), sample(2, 1200, 5, 60), sample(3, 1100, 30)],
        reports: 3,
        warnings: [],
      },
      { peakBytes: 512 * MIB },
    );
    expect(memory).toEqual({
      monitorSamples: 3,
      devicePeakBytes: 1200 * MIB,
      kindPeakBytes: { tensors: 30 * MIB, constants: 100 * MIB },
      utilizationMean: 50,
      hostPeakBytes: 512 * MIB,
      warnings: [],
    });
  });

  it('says why there is no device figure: no runtime seen, or no report at all', () => {
    expect(observedMemory({ samples: [], reports: 4, warnings: [] }, {}).warnings).toEqual([
      'neuron-monitor wrote 4 report(s) but none saw a Neuron runtime: the benchmark ran no model on the NeuronCores while it was watched',
    ]);
    expect(observedMemory({ samples: [], reports: 0, warnings: [] }, {}).warnings).toEqual([
      'neuron-monitor wrote no report while the run lasted (a run shorter than its period?)',
    ]);
    expect(
      observedMemory({ samples: [], reports: 0, warnings: ['x'] }, {}, ['y']).warnings,
    ).toEqual(['y', 'x']);
  });
});

describe('memoryMetrics', () => {
  const memory = (device: number, host: number, warnings: string[] = []): ObservedMemory => ({
    monitorSamples: 2,
    devicePeakBytes: device * MIB,
    kindPeakBytes: { model_code: 96 * MIB, scratchpad: 256 * MIB },
    utilizationMean: 42,
    hostPeakBytes: host * MIB,
    warnings,
  });

  it('makes one value per clean run of each figure, in MiB, lower is better', () => {
    const result = memoryMetrics([run(1, memory(3000, 500)), run(2, memory(3010, 520))]);
    expect(result.metrics.map((m) => [m.id, m.unit, m.direction, m.values])).toEqual([
      ['device_memory_peak', 'MiB', 'lower-is-better', [3000, 3010]],
      ['device_memory_model_code_peak', 'MiB', 'lower-is-better', [96, 96]],
      ['device_memory_scratchpad_peak', 'MiB', 'lower-is-better', [256, 256]],
      ['neuroncore_utilization_mean', '%', 'lower-is-better', [42, 42]],
      ['host_rss_peak', 'MiB', 'lower-is-better', [500, 520]],
    ]);
    expect(result.notMeasured).toEqual({});
  });

  it('leaves out a figure one run lacks, saying which run, and gives each warning once with its runs', () => {
    const noDevice: ObservedMemory = {
      monitorSamples: 0,
      hostPeakBytes: 400 * MIB,
      warnings: ['not installed'],
    };
    const result = memoryMetrics([
      run(1, { ...noDevice }),
      run(2, memory(3000, 500, ['not installed'])),
      run(3),
    ]);
    expect(result.metrics).toEqual([]);
    expect(result.notMeasured).toEqual({
      device_memory_peak: {
        reason: 'not measured in clean run 1 (see the warnings)',
        unit: 'MiB',
        direction: 'lower-is-better',
      },
      host_rss_peak: {
        reason: 'not measured in clean run 3 (see the warnings)',
        unit: 'MiB',
        direction: 'lower-is-better',
      },
    });
    expect(result.warnings).toEqual(['clean run 1, 2: not installed']);
  });
});

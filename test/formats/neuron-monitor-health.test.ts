// A run's health from neuron-monitor: executions that ended in an error (execution_stats,
// counted per period) and new ECC events (neuron_hw_counters, counters since the driver
// loaded: last report minus first), on the docs' excerpt with the groups the guide names.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { healthProblems } from '../../src/formats/neuron-monitor-health.js';
import { parseNeuronMonitorStream } from '../../src/formats/neuron-monitor.js';

const EXCERPT = JSON.parse(
  readFileSync(new URL('../fixtures/neuron-monitor/excerpt.json', import.meta.url), 'utf8'),
) as Record<string, unknown> & { neuron_runtime_data: Runtime[] };

interface Runtime {
  report: { execution_stats: { execution_summary: Record<string, number> } };
}

/** A report: `errors` failed executions of the runtime, device 1's corrected HBM ECC count. */
function report(errors: number, ecc: number): string {
  const doc = structuredClone(EXCERPT);
  doc.neuron_runtime_data[0]!.report.execution_stats.execution_summary.completed_with_err = errors;
  doc.system_data = {
    neuron_hw_counters: {
      period: 1.0,
      neuron_devices: [
        {
          neuron_device_index: 0,
          mem_ecc_corrected: 4,
          mem_ecc_uncorrected: 0,
          sram_ecc_corrected: 1,
          sram_ecc_uncorrected: 0,
        },
        {
          neuron_device_index: 1,
          mem_ecc_corrected: ecc,
          mem_ecc_uncorrected: 0,
          sram_ecc_corrected: 0,
          sram_ecc_uncorrected: 0,
        },
      ],
      error: '',
    },
  };
  return `${JSON.stringify(doc)}\n`;
}

describe("a run's health from neuron-monitor", () => {
  it('is healthy when nothing failed and no counter grew, however high the counters', () => {
    const stream = parseNeuronMonitorStream(report(0, 9) + report(0, 9), 'm.jsonl');
    expect(stream.health).toEqual({ executionErrors: {}, eccEvents: {} });
    expect(healthProblems(stream.health)).toEqual([]);
  });

  it('adds up failed executions over the reports and counts ECC events since the first', () => {
    const stream = parseNeuronMonitorStream(report(2, 9) + report(0, 9) + report(1, 12), 'm.jsonl');
    expect(stream.health).toEqual({
      executionErrors: { completed_with_err: 3 },
      eccEvents: { mem_ecc_corrected: 3 },
    });
    expect(healthProblems(stream.health)).toEqual([
      '3 execution(s) ended in an error (completed_with_err 3)',
      'new ECC events on the device (mem_ecc_corrected +3)',
    ]);
  });

  it("counts only the run's runtimes' errors", () => {
    const stream = parseNeuronMonitorStream(report(5, 0), 'm.jsonl', () => false);
    expect(stream.health?.executionErrors).toEqual({});
  });
});

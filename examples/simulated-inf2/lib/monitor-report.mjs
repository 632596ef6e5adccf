// The reports of the simulated neuron-monitor, in the shape the Neuron docs' "Neuron
// Monitor User Guide" gives (copy: test/fixtures/neuron-monitor/excerpt.json):
// one runtime (the benchmark's model, tensor-parallel over every NeuronCore of the
// instance) with `neuroncore_counters` and `memory_used` by kind. The breakdown per core is
// the excerpt's core 0; SIM_DEVICE_MEMORY_GROWTH scales every kind of device memory.
import { coreCount } from './instances.mjs';

/** Bytes per NeuronCore of each kind, as the excerpt's core 0 reports them. */
const CORE_MEMORY = Object.freeze({
  constants: 1261766864,
  model_code: 101295008,
  model_shared_scratchpad: 268435456,
  runtime_memory: 43216,
  tensors: 20971520,
});

/** One report: `knobs` from readMonitorKnobs, `random` a seeded generator, `period` seconds. */
export function monitorReport(knobs, random, period) {
  const cores = coreCount(knobs.instanceType);
  const neuroncores = {};
  const memory = {};
  for (let core = 0; core < cores; core += 1) {
    const use = Math.min(100, Math.max(0, knobs.utilization + 3 * random.normal()));
    neuroncores[String(core)] = {
      neuroncore_utilization: Math.round(use * 100) / 100,
      flops: Math.round(use * 1e10),
    };
    memory[String(core)] = Object.fromEntries(
      Object.entries(CORE_MEMORY).map(([kind, bytes]) => [
        kind,
        Math.round(bytes * knobs.memoryGrowth),
      ]),
    );
  }
  const device = Object.values(memory)
    .flatMap((kinds) => Object.values(kinds))
    .reduce((sum, bytes) => sum + bytes, 0);
  return {
    neuron_runtime_data: [
      {
        pid: process.ppid,
        address: '',
        neuron_runtime_tag: 'simulated',
        error: '',
        report: {
          neuroncore_counters: { period, neuroncores_in_use: neuroncores, error: '' },
          memory_used: {
            period,
            neuron_runtime_used_bytes: {
              host: 2605992,
              neuron_device: device,
              usage_breakdown: {
                host: {
                  application_memory: 12328,
                  constants: 0,
                  dma_buffers: 16384,
                  tensors: 2577280,
                },
                neuroncore_memory_usage: memory,
              },
            },
            error: '',
          },
        },
      },
    ],
    system_data: {},
    instance_info: { instance_type: knobs.instanceType },
  };
}

// The reports of the simulated neuron-monitor, in the shape the Neuron docs' "Neuron
// Monitor User Guide" gives (copy: test/fixtures/neuron-monitor/excerpt.json):
// one runtime (the benchmark's model, tensor-parallel over every NeuronCore of the
// instance) with `neuroncore_counters`, `memory_used` by kind and `execution_stats`, and the
// devices' `neuron_hw_counters`. The breakdown per core is the excerpt's core 0;
// SIM_DEVICE_MEMORY_GROWTH scales every kind of device memory. SIM_MONITOR_PID=0 reports the
// runtime's pid as 0 (as some hosts do), SIM_MONITOR_OTHER_RUNTIME adds another job's
// runtime (pid 0, its own tag, four times the memory), SIM_EXECUTION_ERRORS puts that many
// failed executions in the first report, SIM_ECC_EVENTS adds that many corrected HBM ECC
// events to device 0's counter from the second report on.
import { coreCount } from './instances.mjs';

/** Bytes per NeuronCore of each kind, as the excerpt's core 0 reports them. */
const CORE_MEMORY = Object.freeze({
  constants: 1261766864,
  model_code: 101295008,
  model_shared_scratchpad: 268435456,
  runtime_memory: 43216,
  tensors: 20971520,
});

/** ECC counters a device has had since its driver loaded, before the run. */
const ECC_BEFORE = {
  mem_ecc_corrected: 7,
  mem_ecc_uncorrected: 0,
  sram_ecc_corrected: 2,
  sram_ecc_uncorrected: 0,
};

function executionStats(period, errors) {
  return {
    period,
    error_summary: {
      generic: 0,
      numerical: 0,
      transient: 0,
      model: 0,
      runtime: errors,
      hardware: 0,
    },
    execution_summary: {
      completed: 120,
      completed_with_err: errors,
      completed_with_num_err: 0,
      timed_out: 0,
      incorrect_input: 0,
      failed_to_queue: 0,
    },
    error: '',
  };
}

function hardwareCounters(knobs, period, index) {
  const devices = Math.max(1, Math.ceil(coreCount(knobs.instanceType, knobs.lnc) / 2));
  return {
    period,
    neuron_devices: Array.from({ length: devices }, (_, device) => ({
      neuron_device_index: device,
      ...ECC_BEFORE,
      ...(device === 0 && index > 0
        ? { mem_ecc_corrected: ECC_BEFORE.mem_ecc_corrected + knobs.eccEvents }
        : {}),
    })),
    error: '',
  };
}

/** Another job's runtime on the same host: pid 0, its own tag, four times the memory. */
function otherRuntime(runtime) {
  const memory = runtime.report.memory_used.neuron_runtime_used_bytes;
  return {
    ...runtime,
    pid: 0,
    neuron_runtime_tag: 'another-job',
    report: {
      ...runtime.report,
      memory_used: {
        ...runtime.report.memory_used,
        neuron_runtime_used_bytes: { ...memory, neuron_device: memory.neuron_device * 4 },
      },
    },
  };
}

/**
 * Report number `index` (0 first): `knobs` from readMonitorKnobs, `random` a seeded
 * generator, `period` seconds.
 */
export function monitorReport(knobs, random, period, index = 0) {
  const cores = coreCount(knobs.instanceType, knobs.lnc);
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
  const runtime = {
    pid: knobs.pidZero ? 0 : process.ppid,
    address: '',
    neuron_runtime_tag: knobs.tag,
    error: '',
    report: {
      neuroncore_counters: { period, neuroncores_in_use: neuroncores, error: '' },
      execution_stats: executionStats(period, index === 0 ? knobs.executionErrors : 0),
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
  };
  return {
    neuron_runtime_data: knobs.otherRuntime ? [runtime, otherRuntime(runtime)] : [runtime],
    system_data: { neuron_hw_counters: hardwareCounters(knobs, period, index) },
    instance_info: { instance_type: knobs.instanceType },
  };
}

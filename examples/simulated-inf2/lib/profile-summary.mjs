// What `neuron-explorer view --output-format summary-json` prints for one profiled graph,
// computed from the figures the simulated NTFF recorded (device-figures.mjs). The keys,
// their order and their units follow test/fixtures/profile/neuron_profile_summary.json:
// times in seconds, bytes and flops as integers, every `*_percent` a fraction 0..1 and -1
// for "not available".
//
// The NTFF records the figures that matter for the gate (time, flops, HBM bytes, engine
// and DMA busy fractions). The remaining keys are derived from those with the fixed,
// illustrative ratios below, so that they are plausible and consistent with each other.
import { createHash } from 'node:crypto';
import { HBM_BYTES_PER_SECOND_PER_CORE, PEAK_FLOPS_PER_CORE } from './device-figures.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';

/** "Not available", as the profiler reports a figure it cannot estimate. */
export const NOT_AVAILABLE = -1;
/** NeuronCore-v2 clock. */
const CLOCK_HZ = 1.4e9;
/** Launch and semaphore wait per execution: device time that is not execution time. */
const LAUNCH_SECONDS_PER_EXECUTION = 2e-6;
/** Share of the extra (non-model) hardware flops spent on transposes. */
const TRANSPOSE_SHARE = 0.2;
/** Share of HBM reads the graph cannot avoid (weights and inputs read once). */
const MIN_READ_SHARE = 0.7;
/** Bytes per DMA descriptor. */
const DMA_TRANSFER_BYTES = 65536;
/** Mean instruction duration per engine, seconds, and instruction time / active time. */
const INSTRUCTION_SECONDS = {
  tensor: 0.4e-6,
  vector: 0.5e-6,
  scalar: 0.5e-6,
  gpsimd: 0.5e-6,
  sync: 0.05e-6,
};
const INSTRUCTION_OVERLAP = 1.08;
const ENGINES = ['tensor', 'vector', 'scalar', 'gpsimd', 'sync'];

/** The top-level key of a graph: "n_" + 40 hex digits, from its NEFF and NeuronCore. */
export function graphKey(neff, vnc) {
  const digest = createHash('sha1').update(`${neff.neff_id}:${neff.graph}:nc${vnc ?? 0}`);
  return `n_${digest.digest('hex')}`;
}

const ratio = (value, total) => (total > 0 ? value / total : 0);

/**
 * The summary of one graph. `graph` is { ntff: NTFF header, neff: NEFF header, entry:
 * the NTFF's figures of this graph }. Options: `nan` prints the engine percents as NaN
 * (SDKs before 2.25), `extraKeys` adds keys a newer SDK might have.
 */
export function summarizeGraph({ ntff, neff, entry }, { nan = false, extraKeys = false } = {}) {
  const peak = ntff.peak_flops_per_core ?? PEAK_FLOPS_PER_CORE;
  const bandwidth = ntff.hbm_bytes_per_second_per_core ?? HBM_BYTES_PER_SECOND_PER_CORE;
  const time = entry.total_time;
  const executions = entry.executions ?? 1;
  const measurable = entry.mfu_measurable !== false;
  const engine = Object.fromEntries(ENGINES.map((e) => [e, entry[`${e}_engine_active_fraction`]]));
  const dma = entry.dma_active_fraction;
  // Busy when any engine or DMA is: the union of independent busy fractions.
  const active = 1 - [...Object.values(engine), dma].reduce((idle, f) => idle * (1 - f), 1);

  const modelFlops = entry.model_flops;
  const hardwareFlops = entry.hardware_flops;
  const transposeFlops = Math.round(Math.max(0, hardwareFlops - modelFlops) * TRANSPOSE_SHARE);
  const hbmRead = entry.hbm_read_bytes;
  const hbmWrite = entry.hbm_write_bytes;
  const intensity = ratio(modelFlops, hbmRead + hbmWrite);
  const ridge = peak / bandwidth;
  const mfu = ratio(modelFlops, time * peak);
  const mbu = ratio(hbmRead, time * bandwidth);
  const psumWrite = Math.round(modelFlops / 256);
  const psumRead = Math.round(psumWrite / 4);
  const dmaBytes = hbmRead + hbmWrite;
  const dmaCount = Math.max(executions, Math.ceil(dmaBytes / DMA_TRANSFER_BYTES));

  const activeTime = Object.fromEntries(ENGINES.map((e) => [e, time * engine[e]]));
  const count = Object.fromEntries(
    ENGINES.map((e) => [e, Math.round(activeTime[e] / INSTRUCTION_SECONDS[e])]),
  );
  const instructions = ENGINES.reduce((sum, e) => sum + count[e], 0);
  const enginePercent = (e) => (nan ? Number.NaN : engine[e]);
  const orNotAvailable = (value) => (measurable ? value : NOT_AVAILABLE);

  const summary = {
    total_time: time,
    total_active_time: time * active,
    total_active_time_percent: active,
    total_exec_time: Math.max(0, time - executions * LAUNCH_SECONDS_PER_EXECUTION),
    neuroncore_cycle_count: Math.round(time * CLOCK_HZ),
    model_flops: modelFlops,
    hardware_flops: hardwareFlops,
    transpose_flops: transposeFlops,
    adjusted_hardware_flops: hardwareFlops,
    adjusted_transpose_flops: transposeFlops,
    mm_arithmetic_intensity: Math.round(intensity * 10) / 10,
    peak_flops_bandwidth_ratio: Math.round(ridge * 10) / 10,
    mfu_estimated_percent: orNotAvailable(mfu),
    mfu_max_achievable_estimated_percent: orNotAvailable(Math.min(1, intensity / ridge)),
    mfu_hlo_estimated_percent: orNotAvailable(mfu),
    mfu_inst_estimated_percent: orNotAvailable(mfu),
    hfu_estimated_percent: ratio(hardwareFlops, time * peak),
    mbu_estimated_percent: mbu,
    mbu_min_read_util_percent: mbu * MIN_READ_SHARE,
    hbm_read_bytes: hbmRead,
    hbm_write_bytes: hbmWrite,
    sbuf_read_bytes: hbmWrite + Math.round(hardwareFlops / 128),
    sbuf_write_bytes: hbmRead + psumRead,
    psum_read_bytes: psumRead,
    psum_write_bytes: psumWrite,
    spill_save_bytes: 0,
    spill_reload_bytes: 0,
    dma_active_time: time * dma,
    dma_active_time_percent: dma,
    dma_transfer_count: dmaCount,
    dma_transfer_total_bytes: dmaBytes,
    tensor_engine_active_time: activeTime.tensor,
    tensor_engine_active_time_percent: enginePercent('tensor'),
    tensor_engine_instruction_count: count.tensor,
    tensor_engine_instruction_time: activeTime.tensor * INSTRUCTION_OVERLAP,
    matmul_instruction_count: Math.round(count.tensor / 3),
    vector_engine_active_time: activeTime.vector,
    vector_engine_active_time_percent: enginePercent('vector'),
    vector_engine_instruction_count: count.vector,
    vector_engine_instruction_time: activeTime.vector * INSTRUCTION_OVERLAP,
    scalar_engine_active_time: activeTime.scalar,
    scalar_engine_active_time_percent: enginePercent('scalar'),
    scalar_engine_instruction_count: count.scalar,
    gpsimd_engine_active_time: activeTime.gpsimd,
    gpsimd_engine_active_time_percent: enginePercent('gpsimd'),
    gpsimd_engine_instruction_count: count.gpsimd,
    sync_engine_active_time: activeTime.sync,
    sync_engine_active_time_percent: enginePercent('sync'),
    sync_engine_instruction_count: count.sync,
    activate_instruction_count: Math.round(count.scalar / 2),
    event_count: Math.round(instructions / 40) + dmaCount,
    trace_count: executions * 12,
    instance_type: ntff.instance_type,
    compiler_version: neff.compiler_version ?? ntff.compiler_version,
    runtime_version: ntff.runtime_version,
    profiler_version: SIMULATED_VERSIONS.profiler,
  };
  return extraKeys ? withNewerKeys(summary, { time, dmaBytes }) : summary;
}

/** Keys a newer SDK might add, in the middle of the object: readers must keep them. */
function withNewerKeys(summary, { time, dmaBytes }) {
  const entries = Object.entries(summary);
  const at = entries.findIndex(([key]) => key === 'activate_instruction_count');
  entries.splice(
    at,
    0,
    ['collective_engine_active_time', time * 0.03],
    ['collective_engine_active_time_percent', 0.03],
    ['sbuf_peak_usage_bytes', Math.min(24 * 1024 ** 2, Math.round(dmaBytes / 4))],
    ['power_estimate_source', 'simulated'],
  );
  return Object.fromEntries(entries);
}

/** The summary-json text: 2-space JSON, with NaN written bare like old SDKs did. */
export function formatSummaryJson(summaries) {
  const NAN_TOKEN = '"__sim_profiler_nan__"';
  const text = JSON.stringify(
    summaries,
    (_key, value) =>
      typeof value === 'number' && Number.isNaN(value) ? NAN_TOKEN.slice(1, -1) : value,
    2,
  );
  return text.replaceAll(NAN_TOKEN, 'NaN');
}

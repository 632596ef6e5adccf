// What a device profile of the reranker's two graphs records on one NeuronCore.
//
// Calibrated to the published profile (inf2.xlarge, TP 2): MFU 4.87% in context encoding
// and about 2.4% overall, tensor engine 10.8%, vector engine 34%, DMA 52.5% overall and
// 75% in token generation. One execution takes only 0.25 ms / 0.31 ms of NeuronCore time:
// the whole run's 60 executions covered ~17 ms against ~3 s of wall time, the rest is
// vLLM framework overhead no device profile shows.
import { chipOf } from './instances.mjs';
import { configurationCost } from './latency-model.mjs';
import { opProfile } from './op-model.mjs';
import { createRandom, sigmaForCv } from './prng.mjs';

/** 190 BF16 TFLOPS per Inferentia2 chip, 2 NeuronCores per chip. */
export const PEAK_FLOPS_PER_CORE = 95e12;
/** 820 GB/s of HBM bandwidth per chip, shared by its 2 NeuronCores. */
export const HBM_BYTES_PER_SECOND_PER_CORE = 410e9;
/** Each query reranks 20 documents in batches of 8: 3 executions of each graph. */
const BATCHES_PER_QUERY = 3;

const GRAPHS = [
  {
    graph: 'context_encoding',
    seconds: 0.25e-3,
    mfu: 0.0487,
    mfuMeasurable: true,
    hardwareFlopsRatio: 1.8,
    engines: { tensor: 0.2, vector: 0.38, scalar: 0.12, gpsimd: 0.01, sync: 0.05 },
    dma: 0.2455,
    mbu: 0.2,
    writeShare: 0.05,
  },
  {
    // The published profile could not estimate MFU for token generation (one token per
    // pair: almost no matmul work, memory bound).
    graph: 'token_generation',
    seconds: 0.31e-3,
    mfu: 0.0041,
    mfuMeasurable: false,
    hardwareFlopsRatio: 2.5,
    engines: { tensor: 0.0339, vector: 0.3078, scalar: 0.08, gpsimd: 0.02, sync: 0.09 },
    dma: 0.75,
    mbu: 0.55,
    writeShare: 0.02,
  },
];

export const GRAPH_KINDS = GRAPHS.map((g) => g.graph);

/**
 * Figures of every graph on one NeuronCore. `mode` 'model' records the first execution
 * of each graph, 'session' all of them. Device time scales with SIM_SLOWDOWN, the run's
 * drift and bucketing padding, while model flops stay put: a slowdown lowers MFU.
 */
export function deviceFigures({ knobs, configuration, drift, vnc, mode }) {
  const random = createRandom(`device:${knobs.seed}:${knobs.run}:${vnc}`);
  const deviceCost = configurationCost(configuration).device;
  return GRAPHS.map((g) => {
    const executions = mode === 'session' ? knobs.queries * BATCHES_PER_QUERY : 1;
    // NeuronCores of one TP group differ slightly from each other (half the run noise).
    const coreVariation = random.lognormal(1, 0.5 * sigmaForCv(knobs.noise));
    // The graph's MFU is of the logical core it runs on: at LNC 2, two Tensor Engines.
    const peak = chipOf(knobs.instanceType).tensorPeak * knobs.lnc;
    const bandwidth = chipOf(knobs.instanceType).stackBytesPerSecond;
    const modelFlops = Math.round(g.mfu * peak * g.seconds) * executions;
    const hbmRead = Math.round(g.mbu * bandwidth * g.seconds) * executions;
    // The ops share the graph's time out; SIM_SLOW_OPS lengthens the ones it names.
    const { opNs, totalTime } = opProfile({
      graph: g.graph,
      tensorParallelSize: configuration.tensor_parallel_size,
      totalTime: g.seconds * executions * deviceCost * knobs.slowdown * drift * coreVariation,
      slowOps: knobs.slowOps ?? [],
      seed: `${knobs.seed}:${knobs.run}:${vnc}`,
      ...(knobs.opJitter !== undefined ? { opJitter: knobs.opJitter } : {}),
    });
    return {
      graph: g.graph,
      executions,
      total_time: totalTime,
      op_ns: opNs,
      model_flops: modelFlops,
      hardware_flops: Math.round(modelFlops * g.hardwareFlopsRatio * deviceCost),
      mfu_measurable: g.mfuMeasurable,
      tensor_engine_active_fraction: g.engines.tensor,
      vector_engine_active_fraction: g.engines.vector,
      scalar_engine_active_fraction: g.engines.scalar,
      gpsimd_engine_active_fraction: g.engines.gpsimd,
      sync_engine_active_fraction: g.engines.sync,
      dma_active_fraction: g.dma,
      hbm_read_bytes: hbmRead,
      hbm_write_bytes: Math.round(hbmRead * g.writeShare),
    };
  });
}

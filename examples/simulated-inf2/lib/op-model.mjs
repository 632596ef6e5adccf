// The framework operators of the simulated model's graphs, as Neuron Explorer's
// FrameworkInstruction table names them (`<module path>/<op>`, e.g.
// `NeuronQwen3DecoderLayer[3]/mlp.down_proj/aten.mm`): Qwen3-0.6B's 28 decoder layers
// (norms, projections, attention, activation, two all-reduces at tensor parallelism > 1),
// then the head. Each op has a weight (its share of the graph's device time), the engine
// that runs most of its instructions, and its weight of the graph's HBM traffic.
//
// SIM_SLOW_OPS slows chosen ops: `SELECTOR=FACTOR` pairs, comma-separated, where SELECTOR is
// `engine:<tensor|vector|scalar|gpsimd|sync>` (every op of that engine), `collective:<op>`
// (every collective of that operation, e.g. collective:AllReduce), `op:<name>` (the op of
// exactly that name), or any other text, which slows every op whose name contains it
// (`mlp.act_fn`, `Layer[3]/mlp.down_proj`).
import { UsageError } from './errors.mjs';
import { createRandom, sigmaForCv } from './prng.mjs';

export const LAYERS = 28;
const LAYER_CLASS = 'NeuronQwen3DecoderLayer';

// Weights in microseconds of one decode step at TP 2; collectives only when TP > 1.
const LAYER_OPS = [
  { name: 'input_layernorm/aten.rms_norm', us: 18, engine: 'vector', hbm: 1 },
  { name: 'self_attn.qkv_proj/aten.mm', us: 95, engine: 'tensor', hbm: 12 },
  { name: 'self_attn.rotary_emb/aten.mul', us: 12, engine: 'vector', hbm: 1 },
  { name: 'self_attn.core/aten.bmm', us: 60, engine: 'tensor', hbm: 8 },
  { name: 'self_attn.core/aten.softmax', us: 25, engine: 'scalar', hbm: 1 },
  { name: 'self_attn.o_proj/aten.mm', us: 70, engine: 'tensor', hbm: 8 },
  { name: 'self_attn.o_proj/xla.all_reduce', us: 40, engine: 'sync', hbm: 2, collective: true },
  { name: 'post_attention_layernorm/aten.rms_norm', us: 18, engine: 'vector', hbm: 1 },
  { name: 'mlp.gate_up_proj/aten.mm', us: 190, engine: 'tensor', hbm: 24 },
  { name: 'mlp.act_fn/aten.silu', us: 30, engine: 'scalar', hbm: 2 },
  { name: 'mlp.down_proj/aten.mm', us: 120, engine: 'tensor', hbm: 12 },
  { name: 'mlp.down_proj/xla.all_reduce', us: 40, engine: 'sync', hbm: 2, collective: true },
];
const HEAD_OPS = [
  { name: 'norm/aten.rms_norm', us: 18, engine: 'vector', hbm: 1 },
  { name: 'lm_head/aten.mm', us: 400, engine: 'tensor', hbm: 40 },
  { name: 'sampler/aten.topk', us: 50, engine: 'gpsimd', hbm: 1 },
];
/** Context encoding runs the same ops on a whole prompt: its matmuls weigh more. */
const TENSOR_WEIGHT = { context_encoding: 3, token_generation: 1 };
export const COLLECTIVE_OPERATION = 'AllReduce';
export const COLLECTIVE_ALGORITHM = 'Ring';

/** The graphs the simulated model compiles to. */
export const GRAPHS = Object.keys(TENSOR_WEIGHT);

/** The ops of `graph` in execution order: { op, us, engine, hbm, collective? }. */
export function graphOps(graph, tensorParallelSize) {
  const tensorWeight = TENSOR_WEIGHT[graph] ?? 1;
  const weigh = (spec, op) => ({
    ...spec,
    op,
    us: spec.engine === 'tensor' ? spec.us * tensorWeight : spec.us,
  });
  const layers = Array.from({ length: LAYERS }, (_, layer) =>
    LAYER_OPS.filter((spec) => tensorParallelSize > 1 || !spec.collective).map((spec) =>
      weigh(spec, `${LAYER_CLASS}[${layer}]/${spec.name}`),
    ),
  ).flat();
  return [...layers, ...HEAD_OPS.map((spec) => weigh(spec, spec.name))];
}

/** SIM_SLOW_OPS read: [{ selector, factor }], [] when unset; a bad value is a UsageError. */
export function parseSlowOps(text) {
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((pair) => {
    const match = /^\s*(.+?)\s*=\s*([0-9]*\.?[0-9]+)\s*$/.exec(pair);
    const factor = Number(match?.[2]);
    if (!match || !(factor > 0) || factor > 1000) {
      throw new UsageError(
        `SIM_SLOW_OPS must be SELECTOR=FACTOR pairs separated by commas, each factor > 0 and <= 1000 (got "${text}")`,
      );
    }
    return { selector: match[1], factor };
  });
}

function selects(selector, spec) {
  if (selector.startsWith('op:')) return spec.op === selector.slice('op:'.length);
  if (selector.startsWith('engine:')) return spec.engine === selector.slice('engine:'.length);
  if (selector.startsWith('collective:')) {
    return (
      spec.collective === true && selector.slice('collective:'.length) === COLLECTIVE_OPERATION
    );
  }
  return spec.op.includes(selector);
}

/** How much slower SIM_SLOW_OPS makes one op: the product of every selector that matches. */
export function opFactor(slowOps, spec) {
  return slowOps.reduce((f, { selector, factor }) => (selects(selector, spec) ? f * factor : f), 1);
}

/**
 * How much slower a whole step of `graph` is: its ops' weights, each × its factor. The
 * benchmark's latencies take the mean over the graphs, as if the step were bound by device
 * time (decode on a NeuronCore is).
 */
export function graphSlowdown(slowOps, graph, tensorParallelSize) {
  if (slowOps.length === 0) return 1;
  const ops = graphOps(graph, tensorParallelSize);
  const total = ops.reduce((sum, op) => sum + op.us, 0);
  return ops.reduce((sum, op) => sum + op.us * opFactor(slowOps, op), 0) / total;
}

/** The step slowdown the benchmark's latencies take: the mean of the graphs' slowdowns. */
export function stepSlowdown(slowOps, tensorParallelSize) {
  if (slowOps.length === 0) return 1;
  const each = GRAPHS.map((graph) => graphSlowdown(slowOps, graph, tensorParallelSize));
  return each.reduce((sum, f) => sum + f, 0) / each.length;
}

/** Each op's own jitter between two profiles (lognormal CV; SIM_OP_JITTER) and a rare stall. */
export const OP_JITTER = 0.02;
const STALL_CHANCE = 0.005;

/**
 * One graph's op times in one NTFF: the graph's device time (`totalTime`, seconds, before
 * SIM_SLOW_OPS) shared out by weight with each op's jitter, then each × its factor. Returns
 * { opNs: nanoseconds per op of graphOps() in order, as the NTFF keeps them (encodeOpNs),
 * totalTime: their sum }.
 */
export function opProfile({
  graph,
  tensorParallelSize,
  totalTime,
  slowOps,
  seed,
  opJitter = OP_JITTER,
}) {
  const specs = graphOps(graph, tensorParallelSize);
  const random = createRandom(`ops:${seed}:${graph}`);
  const jittered = specs.map((spec) => {
    const stall = random.uniform() < STALL_CHANCE ? 1.1 + 0.3 * random.uniform() : 1;
    return spec.us * random.lognormal(1, sigmaForCv(opJitter)) * stall;
  });
  const scale = totalTime / jittered.reduce((sum, us) => sum + us, 0);
  const opNs = specs.map((spec, i) =>
    Math.max(1, Math.round(jittered[i] * scale * opFactor(slowOps, spec) * 1e9)),
  );
  // Unslowed, the graph keeps its time to the last digit (the ops' ns are rounded).
  const slowed = slowOps.length > 0 ? opNs.reduce((sum, ns) => sum + ns, 0) / 1e9 : totalTime;
  return { opNs: encodeOpNs(opNs), totalTime: slowed };
}

/** Op times as an NTFF keeps them: 32-bit floats, base64 (a few KB for 340 ops). */
export function encodeOpNs(opNs) {
  return Buffer.from(new Float32Array(opNs).buffer).toString('base64');
}

function decodeOpNs(text) {
  const bytes = Buffer.from(text, 'base64');
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  return [...floats].map((ns) => Math.max(1, Math.round(ns)));
}

/**
 * A graph's ops as a viewer shows them: names, engines and collectives from the compiled
 * graph (graphOps), times from the NTFF (`opNs`), HBM bytes shared out by weight. Returns
 * [{ op, ns, hbmRead, hbmWrite, engine, collective? }].
 */
export function opsOfGraph({ graph, tensorParallelSize, opNs, hbmRead, hbmWrite }) {
  const specs = graphOps(graph, tensorParallelSize);
  const times = decodeOpNs(opNs);
  const hbmTotal = specs.reduce((sum, spec) => sum + spec.hbm, 0);
  return specs.map((spec, i) => ({
    op: spec.op,
    ns: times[i],
    hbmRead: Math.round((hbmRead * spec.hbm) / hbmTotal),
    hbmWrite: Math.round((hbmWrite * spec.hbm) / hbmTotal),
    engine: spec.engine,
    ...(spec.collective ? { collective: true } : {}),
  }));
}

// A decode step's device profile as framework operators, for the operator-diff bench: a
// Llama-like layer (norms, projections, attention, activation, two all-reduces at TP 2)
// repeated over 32 layers, with the jitter of one profile against another: a global clock
// factor (sd 1%), each op's own (sd 2%), and a rare stall (0.5% of ops 10–40% slower).
// Regressions are injected as extra device time of 5–20% of the whole step.

import type { EngineName } from '../src/model.js';
import type { OpTime } from '../src/profile/opdiff/op-times.js';
import type { Rng } from './random.js';

interface OpSpec {
  name: string;
  us: number;
  engine: EngineName;
}

const LAYER_OPS: OpSpec[] = [
  { name: 'input_layernorm/aten.rms_norm', us: 18, engine: 'vector' },
  { name: 'self_attn.qkv_proj/aten.mm', us: 95, engine: 'tensor' },
  { name: 'self_attn.rotary_emb/aten.mul', us: 12, engine: 'vector' },
  { name: 'self_attn.core/aten.bmm', us: 60, engine: 'tensor' },
  { name: 'self_attn.core/aten.softmax', us: 25, engine: 'scalar' },
  { name: 'self_attn.o_proj/aten.mm', us: 70, engine: 'tensor' },
  { name: 'self_attn.o_proj/xla.all_reduce', us: 40, engine: 'sync' },
  { name: 'post_attention_layernorm/aten.rms_norm', us: 18, engine: 'vector' },
  { name: 'mlp.gate_up_proj/aten.mm', us: 190, engine: 'tensor' },
  { name: 'mlp.act_fn/aten.silu', us: 30, engine: 'scalar' },
  { name: 'mlp.down_proj/aten.mm', us: 120, engine: 'tensor' },
  { name: 'mlp.down_proj/xla.all_reduce', us: 40, engine: 'sync' },
];
const LAYERS = 32;

export interface ModelOp extends OpSpec {
  /** The instance's framework name, e.g. `NeuronLlamaDecoderLayer[3]/mlp.act_fn/aten.silu`. */
  op: string;
}

export const MODEL_OPS: ModelOp[] = [
  ...Array.from({ length: LAYERS }, (_, layer) =>
    LAYER_OPS.map((spec) => ({ ...spec, op: `NeuronLlamaDecoderLayer[${layer}]/${spec.name}` })),
  ).flat(),
  { name: 'lm_head/aten.mm', us: 400, engine: 'tensor', op: 'lm_head/aten.mm' },
  { name: 'sampler/aten.topk', us: 50, engine: 'gpsimd', op: 'sampler/aten.topk' },
];

export const STEP_US = MODEL_OPS.reduce((sum, op) => sum + op.us, 0);

export type Scenario = 'one op' | 'one engine' | 'one collective' | 'spread over 3 ops';
export const SCENARIOS: Scenario[] = [
  'one op',
  'one engine',
  'one collective',
  'spread over 3 ops',
];

/** Extra microseconds per injected op (by framework name). */
export type Injection = Map<string, number>;

/** Which ops a scenario slows, and by how much, for a step `fraction` slower in all. */
export function inject(scenario: Scenario, fraction: number, rng: Rng): Injection {
  const extra = fraction * STEP_US;
  const pick = () => MODEL_OPS[Math.floor(rng.next() * MODEL_OPS.length)]!;
  const spreadOver = (ops: ModelOp[]) => {
    const total = ops.reduce((sum, op) => sum + op.us, 0);
    return new Map(ops.map((op) => [op.op, (extra * op.us) / total]));
  };
  switch (scenario) {
    case 'one op':
      return new Map([[pick().op, extra]]);
    case 'one engine': {
      const engines: EngineName[] = ['tensor', 'vector', 'scalar'];
      const engine = engines[Math.floor(rng.next() * engines.length)]!;
      return spreadOver(MODEL_OPS.filter((op) => op.engine === engine));
    }
    case 'one collective':
      return spreadOver(MODEL_OPS.filter((op) => op.name.endsWith('xla.all_reduce')));
    case 'spread over 3 ops': {
      const ops = new Set<ModelOp>();
      while (ops.size < 3) ops.add(pick());
      return new Map([...ops].map((op) => [op.op, extra / 3]));
    }
  }
}

export interface Jitter {
  /** sd of the factor every op of a profile shares (default 0.01). */
  clock: number;
  /** sd of each op's own factor (default 0.02). */
  op: number;
}

/** One profile's op times: the model's, with a profile's jitter, plus `injection`. */
export function profileOps(
  rng: Rng,
  injection: Injection = new Map(),
  jitter: Jitter = { clock: 0.01, op: 0.02 },
): Map<string, OpTime> {
  const clock = 1 + jitter.clock * rng.normal();
  const ops = new Map<string, OpTime>();
  for (const spec of MODEL_OPS) {
    const stall = rng.next() < 0.005 ? 1.1 + 0.3 * rng.next() : 1;
    const own = Math.max(0.5, 1 + jitter.op * rng.normal());
    const us = spec.us * clock * own * stall + (injection.get(spec.op) ?? 0);
    ops.set(spec.op, {
      op: spec.op,
      deviceNs: us * 1000,
      calls: 1,
      hbmBytes: 0,
      instructions: { [spec.engine]: 1 },
    });
  }
  return ops;
}

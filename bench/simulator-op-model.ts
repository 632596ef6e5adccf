// The simulator's op model (examples/simulated-inf2/lib/op-model.mjs, plain JavaScript)
// with the types the benches use.
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import * as model from '../examples/simulated-inf2/lib/op-model.mjs';

export interface SpecOp {
  op: string;
  us: number;
  engine: string;
  collective?: boolean;
}

export const GRAPHS: string[] = model.GRAPHS;
export const COLLECTIVE_OPERATION: string = model.COLLECTIVE_OPERATION;
export const graphOps: (graph: string, tensorParallelSize: number) => SpecOp[] = model.graphOps;

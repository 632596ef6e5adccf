// MFU per logical NeuronCore. The profiler divides a graph's flops by one Tensor Engine's
// peak ("tensor_engine_max_ops_per_sec is 2 times the number of Tensor Engine elements
// times the clock speed": Neuron Explorer's profile schema reference, Summary). A logical
// core at LNC 2 (trn2's default) is two physical cores and two Tensor Engines, so the
// figure against what the core the graph ran on can do is the profiler's halved. MBU needs
// nothing: the same reference divides by one HBM stack "for LNC1 and LNC2" alike.

import type { BenchmarkSpec } from '../config/types.js';
import type { Environment } from '../model.js';
import type { GraphSummary } from './summary-json.js';

/**
 * The summarize option of a benchmark's run: the LNC its own `env` (its server's first)
 * sets, else the runner's, where there is one.
 */
export function lncOf(
  environment: Environment | undefined,
  spec?: Pick<BenchmarkSpec, 'env' | 'server'>,
): { logicalNcConfig?: number } {
  const set = [spec?.server?.env, spec?.env]
    .map((env) => env?.NEURON_LOGICAL_NC_CONFIG?.trim())
    .find((value) => value === '1' || value === '2');
  const lnc = set !== undefined ? Number(set) : environment?.logicalNcConfig;
  return lnc !== undefined ? { logicalNcConfig: lnc } : {};
}

/**
 * The graphs with MFU and HFU per logical core: each divided by its physical cores per
 * logical core (the tables' Metadata.num_physical_cores, else the run's LNC; 1 on inf2).
 */
export function perLogicalCore(
  graphs: readonly GraphSummary[],
  logicalNcConfig: number | undefined,
): GraphSummary[] {
  return graphs.map((graph) => {
    const physical = graph.physicalCores ?? logicalNcConfig ?? 1;
    if (physical <= 1) return graph;
    return {
      ...graph,
      physicalCores: physical,
      ...(graph.mfu !== undefined ? { mfu: graph.mfu / physical } : {}),
      ...(graph.hfu !== undefined ? { hfu: graph.hfu / physical } : {}),
    };
  });
}

/** The physical cores per logical core the figures were divided by; undefined when 1. */
export function physicalCoresOf(graphs: readonly GraphSummary[]): number | undefined {
  const most = Math.max(1, ...graphs.map((graph) => graph.physicalCores ?? 1));
  return most > 1 ? most : undefined;
}

/** Metadata.num_physical_cores of a profile's tables: a whole number of 1 or more. */
export function physicalCoresOfMetadata(metadata: Record<string, unknown>): number | undefined {
  const value = Number(metadata.num_physical_cores);
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

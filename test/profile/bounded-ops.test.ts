// Operator times within a size: the largest kept, the rest summed into one entry with the
// time preserved; two profiles diffed on one footing when one side summed ops away (no op
// "only in head" because the base's record left it out); a record's samples untouched by
// a large model's ops.
import { describe, expect, it } from 'vitest';
import { createRecord } from '../../src/baseline/record-create.js';
import { MAX_RECORD_OP_BYTES } from '../../src/baseline/reduce-samples.js';
import type { OpTime } from '../../src/model.js';
import { alignedOps, boundedOps, OTHER_OPS } from '../../src/profile/opdiff/bounded-ops.js';
import { profileDiffOf } from '../../src/profile/opdiff/profile-diff.js';
import { at, sampleResult } from '../baseline/git/support.js';

/** A model of `layers` layers of 12 ops, each op's time a little apart, jittered by `seed`. */
function modelOps(layers: number, seed = 0): OpTime[] {
  const ops: OpTime[] = [];
  for (let layer = 0; layer < layers; layer += 1) {
    for (let kind = 0; kind < 12; kind += 1) {
      const wobble = 1 + 0.01 * Math.sin(seed * 7919 + layer * 104729 + kind * 13);
      ops.push({
        op: `NeuronLlamaDecoderLayer[${layer}]/block.op_${kind}/aten.mm`,
        deviceNs: Math.round((10_000 + kind * 1_000 + layer) * wobble),
        calls: 1,
        hbmBytes: 1_000_000,
        instructions: { tensor: 10 },
      });
    }
  }
  return ops;
}

const totalNs = (ops: readonly OpTime[]) => ops.reduce((sum, op) => sum + op.deviceNs, 0);

describe('boundedOps', () => {
  it('keeps every op that fits', () => {
    const ops = modelOps(2);
    expect(boundedOps(ops, 1e6)).toHaveLength(24);
  });

  it('keeps the largest within the budget and sums the rest, time and calls preserved', () => {
    const ops = modelOps(80);
    const kept = boundedOps(ops, 16 * 1024);
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(16 * 1024);
    const other = kept.at(-1)!;
    expect(other.op).toBe(OTHER_OPS);
    expect(totalNs(kept)).toBe(totalNs(ops));
    expect(kept.reduce((sum, op) => sum + op.calls, 0)).toBe(ops.length);
    const smallestKept = Math.min(...kept.slice(0, -1).map((op) => op.deviceNs));
    const largestLeft = Math.max(
      ...ops.filter((op) => !kept.some((k) => k.op === op.op)).map((op) => op.deviceNs),
    );
    expect(smallestKept).toBeGreaterThanOrEqual(largestLeft);
  });
});

describe('alignedOps and the diff', () => {
  it('sums on the other side what one side summed away', () => {
    const base = boundedOps(modelOps(80, 1), 16 * 1024);
    const head = modelOps(80, 2);
    const [b, h] = alignedOps(base, head);
    expect([...h.keys()].sort()).toEqual([...b.keys()].sort());
    expect(totalNs([...h.values()])).toBe(totalNs(head));
  });

  it('names nothing between a bounded base and a full head of the same build', () => {
    const diff = profileDiffOf(
      { ops: boundedOps(modelOps(80, 1), MAX_RECORD_OP_BYTES) },
      { ops: modelOps(80, 2) },
      'base',
    )!;
    expect(diff.ops.named).toEqual([]);
    expect(diff.kinds.named).toEqual([]);
  });
});

describe('a profiled record of a large model', () => {
  it('keeps its samples as a record without a profile does, and its ops within their budget', () => {
    const input = (profiled: boolean) => ({
      gateKey: 'default',
      result: {
        ...sampleResult('bench', 1),
        ...(profiled
          ? {
              profile: {
                status: 'measured' as const,
                ntffFiles: [],
                neffFiles: [],
                totalBytes: 0,
                metrics: { mfu: 3 },
                ops: modelOps(80),
              },
            }
          : {}),
      },
      commit: 'a'.repeat(40),
      branch: 'main',
      event: 'push',
      runId: '1',
      verdict: 'pass' as const,
      createdAt: at(1),
    });
    const plain = createRecord(input(false));
    const profiled = createRecord(input(true));
    expect(profiled.result.metrics).toEqual(plain.result.metrics);
    const ops = profiled.result.profile!.ops!;
    expect(Buffer.byteLength(JSON.stringify(ops))).toBeLessThanOrEqual(MAX_RECORD_OP_BYTES);
    expect(ops.at(-1)!.op).toBe(OTHER_OPS);
    expect(totalNs(ops)).toBe(totalNs(modelOps(80)));
  });
});

// The operator-level diff: device time per framework op from FrameworkInstruction rows
// (fields as the schema reference 7.4.0 gives them), and the ranking of a base and a head
// profile's ops by their change, naming only what stands out of a profile's jitter.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../bench/random.js';
import { diffOps } from '../../src/profile/opdiff/op-diff.js';
import { busyNs, opTimes, UNNAMED_OP } from '../../src/profile/opdiff/op-times.js';
import type { Row } from '../../src/profile/tables/parquet-rows.js';

const LAYERS = 4;
const OPS = ['aten.mm', 'aten.add', 'aten.softmax', 'aten.mul', 'aten.silu'];

/** A decode step's FrameworkInstruction rows: each op of each layer, with jitter `sd`. */
function profileRows(seed: string, sd: number, slower: Record<string, number> = {}): Row[] {
  const rng = createRng(seed);
  const rows: Row[] = [];
  let at = 1_000_000;
  for (let layer = 0; layer < LAYERS; layer += 1) {
    OPS.forEach((op, i) => {
      const name = `NeuronLlamaDecoderLayer[${layer}]/function[${i}]/${op}`;
      const ns = Math.round((100_000 + 40_000 * i) * (1 + sd * rng.normal()) * (slower[name] ?? 1));
      rows.push({
        framework_name: name,
        start_ts: at,
        end_ts: at + ns,
        time_intervals: JSON.stringify([
          [at, at + Math.round(ns / 2)],
          [at + Math.round(ns / 2), at + ns],
        ]),
        hbm_read_bytes: 1_000_000 * (i + 1),
        hbm_write_bytes: 250_000,
        tensor_engine_instruction_count: op === 'aten.mm' ? 64 : 0,
        vector_engine_instruction_count: op === 'aten.mm' ? 4 : 16,
      });
      at += ns + 5_000;
    });
  }
  return rows;
}

describe('busyNs', () => {
  it('merges overlapping and touching intervals, and falls back to the span', () => {
    expect(busyNs('[[1, 10], [5, 12], [20, 50]]', 1, 50)).toBe(41);
    expect(busyNs('[[20, 50], [1, 10], [10, 12]]', 1, 50)).toBe(41);
    expect(busyNs(undefined, 100, 160)).toBe(60);
    expect(busyNs('[[1, "x"]]', 100, 160)).toBe(60);
    expect(busyNs('not json', 100, 160)).toBe(60);
  });
});

describe('opTimes', () => {
  it('adds up the calls of an op, its HBM bytes and instructions, and files unnamed rows apart', () => {
    const rows: Row[] = [
      {
        framework_name: 'L[0]/aten.mm',
        start_ts: 0,
        end_ts: 100,
        hbm_read_bytes: 10,
        hbm_write_bytes: 5,
        tensor_engine_instruction_count: 3,
      },
      {
        framework_name: 'L[0]/aten.mm',
        start_ts: 200,
        end_ts: 250,
        hbm_read_bytes: 1,
        hbm_write_bytes: 1,
        tensor_engine_instruction_count: 2,
        modular_flow_invocation_idx: 1,
      },
      { start_ts: 300, end_ts: 310, hbm_read_bytes: 0, hbm_write_bytes: 0 },
    ];
    const ops = opTimes(rows);
    expect(ops.get('L[0]/aten.mm')).toEqual({
      op: 'L[0]/aten.mm',
      deviceNs: 150,
      calls: 2,
      hbmBytes: 17,
      instructions: { tensor: 5 },
    });
    expect(ops.get(UNNAMED_OP)?.deviceNs).toBe(10);
  });
});

describe('diffOps', () => {
  const MM1 = 'NeuronLlamaDecoderLayer[1]/function[0]/aten.mm';

  it('names the one op that made the whole 5% slower first, with most of the change, on its engine', () => {
    const base = opTimes(profileRows('base', 0.01));
    // The whole is 3.6 ms; MM1 is 0.1 ms: 2.8× makes it 0.18 ms (5%) slower.
    const head = opTimes(profileRows('head', 0.01, { [MM1]: 2.8 }));
    const diff = diffOps(base, head);
    expect(diff.headMs / diff.baseMs).toBeCloseTo(1.05, 1);
    expect(diff.named[0]!.op).toBe(MM1);
    expect(diff.named[0]!.share).toBeGreaterThan(0.5);
    expect(diff.named[0]!.changePercent).toBeGreaterThan(5);
    expect(diff.named[0]!.engine).toBe('tensor');
    const shares = diff.named.reduce(
      (sum, c) => sum + c.share,
      diff.other.share + diff.shared.share,
    );
    expect(shares).toBeCloseTo(1, 9);
  });

  it('puts a change every op shares (a slower clock) on a line of its own, naming no op', () => {
    const base = opTimes(profileRows('base', 0.01));
    const head = opTimes(profileRows('base', 0.01));
    for (const time of head.values()) time.deviceNs *= 1.04;
    const diff = diffOps(base, head);
    expect(diff.named).toEqual([]);
    expect(diff.shared.factor).toBeCloseTo(1.04, 6);
    expect(diff.shared.share).toBeCloseTo(1, 6);
  });

  it('names nothing for two profiles of the same build (1% jitter per op)', () => {
    for (let pair = 0; pair < 20; pair += 1) {
      const diff = diffOps(
        opTimes(profileRows(`a${pair}`, 0.01)),
        opTimes(profileRows(`b${pair}`, 0.01)),
      );
      expect(diff.named).toEqual([]);
      expect(diff.other.ops).toBe(LAYERS * OPS.length);
    }
  });

  it('names an op only one side has, and one that got faster counts against the change', () => {
    const base = opTimes(profileRows('base', 0));
    const headRows = profileRows('base', 0, { [MM1]: 0.2 });
    headRows.push({ framework_name: 'Sampler/aten.topk', start_ts: 0, end_ts: 400_000 });
    const diff = diffOps(base, opTimes(headRows));
    const topk = diff.named.find((c) => c.op === 'Sampler/aten.topk')!;
    expect(topk).toMatchObject({ only: 'head', baseMs: 0, headMs: 0.4 });
    expect(topk.changePercent).toBeUndefined();
    const mm = diff.named.find((c) => c.op === MM1)!;
    expect(mm.changeMs).toBeLessThan(0);
    expect(mm.share).toBeLessThan(0);
    expect(topk.share).toBeGreaterThan(1);
  });
});

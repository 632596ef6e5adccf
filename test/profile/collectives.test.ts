// Collectives and framework operators read from Parquet tables written as the schema
// reference 7.4.0 types them, then grouped and timed.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectiveGroups } from '../../src/profile/opdiff/collectives.js';
import { opTimes } from '../../src/profile/opdiff/op-times.js';
import { readProfileTables } from '../../src/profile/tables/profile-tables.js';
import {
  CC_OP_FIELDS,
  FRAMEWORK_INSTRUCTION_FIELDS,
  METADATA_FIELDS,
  metadataRow,
  writeTable,
} from '../support/profile-tables.js';

const GROUP = '[[0, 1]]';

function ccOp(operation: string, algorithm: string, ns: number, busGBps: number, at: number) {
  return {
    start_ts: at,
    end_ts: at + ns,
    duration_ns: ns,
    operation,
    algorithm,
    num_elements: 4096,
    dtype: 'bf16',
    op_id: at,
    stream_id: 0,
    stream_index: 0,
    trigger_engine: 'Pool',
    input_size: 8192,
    output_size: 16384,
    bus_bandwidth: busGBps * 1e9,
    replica_group_id: 0,
    replica_group: GROUP,
  };
}

describe('collectives and framework ops from Parquet tables', () => {
  it('groups CcOp by operation, algorithm and replica group, with time-weighted bus bandwidth', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-cc-'));
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [metadataRow()]);
    await writeTable(dir, 'CcOp', CC_OP_FIELDS, [
      ccOp('AllReduce', 'Ring', 30_000, 40, 0),
      ccOp('AllReduce', 'Ring', 10_000, 80, 50_000),
      ccOp('AllGather', 'Mesh', 5_000, 64, 90_000),
    ]);
    await writeTable(dir, 'FrameworkInstruction', FRAMEWORK_INSTRUCTION_FIELDS, [
      {
        id: 1,
        raw_bir_id: 1,
        raw_penguin_id: 1,
        raw_hlo_id: 1,
        raw_framework_id: 1,
        modular_flow_invocation_idx: 0,
        framework_name: 'NeuronLlamaDecoderLayer[0]/function[0]/aten.mm',
        start_ts: 100,
        end_ts: 900,
        time_intervals: '[[100, 400], [600, 900]]',
        hbm_read_bytes: 2 ** 40,
        hbm_write_bytes: 1,
        tensor_engine_instruction_count: 64,
      },
    ]);
    const tables = await readProfileTables(dir);
    expect(collectiveGroups(tables.collectives)).toEqual([
      {
        operation: 'AllReduce',
        algorithm: 'Ring',
        replicaGroup: GROUP,
        count: 2,
        totalMs: 0.04,
        busGBps: 50, // (40 × 30 µs + 80 × 10 µs) / 40 µs
      },
      {
        operation: 'AllGather',
        algorithm: 'Mesh',
        replicaGroup: GROUP,
        count: 1,
        totalMs: 0.005,
        busGBps: 64,
      },
    ]);
    expect(Object.keys(tables.frameworkOps[0]!)).not.toContain('raw_hlo_id');
    expect([...opTimes(tables.frameworkOps).values()]).toEqual([
      {
        op: 'NeuronLlamaDecoderLayer[0]/function[0]/aten.mm',
        deviceNs: 600,
        calls: 1,
        hbmBytes: 2 ** 40 + 1,
        instructions: { tensor: 64 },
      },
    ]);
  });
});

// A record keeps what the next run's operator diff compares with: the profile's source,
// operator times, collectives, roofline and contamination, without the runner's paths; a
// record without them (written before the tables were read) reads as before.
import { describe, expect, it } from 'vitest';
import { recordToResult } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { parseRecord, serializeRecord } from '../../src/baseline/record-text.js';
import type { BenchmarkResult, ProfileSummary } from '../../src/model.js';
import { at, sampleResult } from './git/support.js';

const PROFILE: ProfileSummary = {
  status: 'measured',
  dir: '/runner/work/perf-gate-output/profile',
  ntffFiles: ['/runner/work/a.ntff'],
  neffFiles: ['/runner/work/a.neff'],
  totalBytes: 4096,
  metrics: { mfu: 4.9, mbu: 37 },
  profiler: '/opt/aws/neuron/bin/neuron-explorer',
  source: { tables: 4, summaryJson: 0, schemas: ['7.4.0'] },
  ops: [
    {
      op: 'lm_head/aten.mm',
      deviceNs: 400_000,
      calls: 4,
      hbmBytes: 8e6,
      instructions: { tensor: 900 },
    },
    {
      op: 'Layer[0]/mlp.act_fn/aten.silu',
      deviceNs: 30_000,
      calls: 4,
      hbmBytes: 1e5,
      instructions: { scalar: 60, sync: 2 },
    },
  ],
  collectives: [
    {
      operation: 'AllReduce',
      algorithm: 'Ring',
      replicaGroup: '[[0,1]]',
      count: 224,
      totalMs: 0.09,
      busGBps: 110.5,
    },
  ],
  roofline: { mfu: 4.9, maxAchievable: 23.2 },
  contamination: ['NeuronCore 1 throttled for 0.10 ms, 30.0% of the time (a.ntff)'],
};

function recordOf(result: BenchmarkResult) {
  return createRecord({
    gateKey: 'default',
    result,
    commit: 'b'.repeat(40),
    branch: 'main',
    event: 'push',
    runId: '1',
    verdict: 'pass',
    createdAt: at(1),
  });
}

describe("a profile's operator times in the record", () => {
  it('are stored and read back, without local paths', () => {
    const text = serializeRecord(recordOf({ ...sampleResult('bench', 1), profile: PROFILE }));
    expect(text).not.toContain('/runner/work');
    const profile = recordToResult(parseRecord(text)).profile!;
    for (const key of ['source', 'ops', 'collectives', 'roofline', 'contamination'] as const) {
      expect(profile[key], key).toEqual(PROFILE[key]);
    }
    expect(profile.ntffFiles).toEqual([]);
  });

  it('may be absent: a record from before reads as before', () => {
    const { source, ops, collectives, roofline, contamination, ...older } = PROFILE;
    void [source, ops, collectives, roofline, contamination];
    const text = serializeRecord(recordOf({ ...sampleResult('bench', 2), profile: older }));
    expect(text).not.toContain('"ops"');
    expect(recordToResult(parseRecord(text)).profile!.metrics).toEqual(PROFILE.metrics);
  });

  it('refuses an op time that is not a number ≥ 0, naming the field', () => {
    const data = JSON.parse(
      serializeRecord(recordOf({ ...sampleResult('bench', 3), profile: PROFILE })),
    );
    data.result.profile.ops[1].deviceNs = -5;
    expect(() => parseRecord(JSON.stringify(data))).toThrow(/profile.*ops.*deviceNs/s);
  });
});

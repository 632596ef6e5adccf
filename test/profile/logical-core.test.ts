// MFU per logical NeuronCore: at LNC 2 (trn2) the profiler's MFU, against one physical
// core's Tensor Engine, is halved; MBU (one HBM stack at either LNC) is left alone.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lncOf, perLogicalCore, physicalCoresOf } from '../../src/profile/logical-core.js';
import type { GraphSummary } from '../../src/profile/summary-json.js';
import { profileDetail } from '../../src/profile/tables/profile-detail.js';
import { graphsOfTables } from '../../src/profile/tables/graphs.js';
import { readProfileTables } from '../../src/profile/tables/profile-tables.js';
import {
  METADATA_FIELDS,
  SUMMARY_FIELDS,
  metadataRow,
  writeTable,
} from '../support/profile-tables.js';

const graph = (extra: Partial<GraphSummary> = {}): GraphSummary => ({
  key: 'g',
  totalTime: 0.01,
  mfu: 40,
  hfu: 50,
  mbu: 30,
  engines: {},
  raw: {},
  ...extra,
});

describe('perLogicalCore', () => {
  it('divides MFU and HFU by the physical cores of the logical core, not MBU', () => {
    const [halved] = perLogicalCore([graph({ physicalCores: 2 })], undefined);
    expect(halved).toMatchObject({ mfu: 20, hfu: 25, mbu: 30, physicalCores: 2 });
  });

  it("takes the run's LNC where the profile does not say (summary-json), the profile's over it", () => {
    expect(perLogicalCore([graph()], 2)[0]!.mfu).toBe(20);
    expect(perLogicalCore([graph({ physicalCores: 1 })], 2)[0]!.mfu).toBe(40);
    expect(perLogicalCore([graph()], undefined)[0]).toEqual(graph());
  });

  it('names the physical cores divided by, and none on inf2', () => {
    expect(physicalCoresOf(perLogicalCore([graph(), graph()], 2))).toBe(2);
    expect(physicalCoresOf(perLogicalCore([graph()], 1))).toBeUndefined();
  });
});

describe('lncOf', () => {
  it("takes the LNC a benchmark's server or own env sets over the runner's", () => {
    const runner = { logicalNcConfig: 2 };
    const env = { NEURON_LOGICAL_NC_CONFIG: '1' };
    expect(lncOf(runner, { env })).toEqual({ logicalNcConfig: 1 });
    expect(lncOf(runner, { env: {}, server: { env } as never })).toEqual({ logicalNcConfig: 1 });
    expect(lncOf(runner, { env: { NEURON_LOGICAL_NC_CONFIG: 'x' } })).toEqual({
      logicalNcConfig: 2,
    });
    expect(lncOf(undefined, { env: {} })).toEqual({});
  });
});

describe('a trn2 profile at LNC 2', () => {
  it('reads num_physical_cores 2 from Metadata: graph MFU and the roofline per logical core', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-lnc-'));
    await writeTable(dir, 'Metadata', METADATA_FIELDS, [
      metadataRow('7.4.0', {
        num_physical_cores: 2,
        vnc_enabled: true,
        instance_type: 'trn2.48xlarge',
      }),
    ]);
    await writeTable(dir, 'Summary', SUMMARY_FIELDS, [
      {
        total_time: 0.01,
        mfu_estimated_percent: 0.3,
        mfu_max_achievable_estimated_percent: 0.8,
        mbu_estimated_percent: 0.5,
        model_flops: 1e12,
      },
    ]);
    const tables = await readProfileTables(dir);
    const [read] = graphsOfTables(tables).graphs;
    expect(read!.physicalCores).toBe(2);
    // FLOAT columns: the figures to float32's precision.
    const [perCore] = perLogicalCore([read!], undefined);
    expect(perCore!.mfu).toBeCloseTo(15, 5);
    expect(perCore!.mbu).toBeCloseTo(50, 5);
    const roofline = profileDetail([{ where: 'unit 1', tables }]).roofline!;
    expect(roofline.mfu).toBeCloseTo(15, 5);
    expect(roofline.maxAchievable).toBeCloseTo(40, 5);
  });
});

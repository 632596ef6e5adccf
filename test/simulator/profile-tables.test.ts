// The simulated profiler's tables (`view --output-format parquet --output-file DIR`) read by
// the gate's reader: the schema version and fields of Neuron Explorer 7.4.0, a Summary with
// the summary-json's values, one FrameworkInstruction row per op whose times add up to the
// graph's, collectives at TP 2, and the knobs that slow ops (SIM_SLOW_OPS, reaching the
// benchmark's latency too), throttle a core, add a warning, or leave parquet out.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { opTimes } from '../../src/profile/opdiff/op-times.js';
import { readProfileTables, type ProfileTables } from '../../src/profile/tables/profile-tables.js';
import { benchmark, profiledRun, runTool, tempDir } from './helpers.js';

/** 28 layers × 12 ops at TP 2 (with two all-reduces), and the head's 3. */
const OPS_AT_TP2 = 28 * 12 + 3;

/** The first NEFF/NTFF pair (layout A, context encoding on core 0) of a profiled run. */
async function firstPair(env: Record<string, string>) {
  const { processDir } = await profiledRun({ NEURON_RT_INSPECT_DEVICE_PROFILE: '1', ...env });
  const names = (await readdir(processDir)).sort();
  const ntff = names.find((n) => n.endsWith('_vnc_0.ntff'))!;
  const id = ntff.split('_')[0]!;
  return { neff: join(processDir, `neff_${id}.neff`), ntff: join(processDir, ntff) };
}

async function tablesOf(
  pair: { neff: string; ntff: string },
  env: Record<string, string> = {},
  tool = 'neuron-explorer',
) {
  const out = join(await tempDir('sim-tables-'), 'tables');
  const args = ['view', '-n', pair.neff, '-s', pair.ntff, '--output-format', 'parquet'];
  const outcome = await runTool(tool, [...args, '--output-file', out], { env });
  return { outcome, out };
}

describe('the simulated profiler writes Neuron Explorer tables', () => {
  let pair: { neff: string; ntff: string };
  let tables: ProfileTables;

  beforeAll(async () => {
    pair = await firstPair({ SIM_SEED: '7' });
    const { outcome, out } = await tablesOf(pair);
    expect(outcome.code, outcome.stderr).toBe(0);
    tables = await readProfileTables(out);
  }, 60_000);

  it('says schema 7.4.0 and gives the summary-json values in Summary', async () => {
    expect(tables.schemaVersion).toBe('7.4.0');
    const json = await runTool('neuron-explorer', [
      'view',
      '-n',
      pair.neff,
      '-s',
      pair.ntff,
      '--output-format',
      'summary-json',
    ]);
    const [summary] = Object.values(
      JSON.parse(json.stdout) as Record<string, Record<string, number>>,
    );
    expect(tables.summary).toHaveLength(1);
    // FLOAT columns: the same value to single precision.
    expect(tables.summary[0]!.total_time).toBeCloseTo(summary!.total_time!, 9);
    expect(tables.summary[0]!.mfu_estimated_percent).toBeCloseTo(
      summary!.mfu_estimated_percent!,
      6,
    );
    expect(tables.summary[0]!.model_flops).toBe(summary!.model_flops);
  });

  it('has one FrameworkInstruction row per op, adding up to the graph time', () => {
    const ops = opTimes(tables.frameworkOps);
    expect(ops.size).toBe(OPS_AT_TP2);
    const ns = [...ops.values()].reduce((sum, op) => sum + op.deviceNs, 0);
    expect(ns / 1e9).toBeCloseTo(tables.summary[0]!.total_time as number, 6);
    const silu = ops.get('NeuronQwen3DecoderLayer[5]/mlp.act_fn/aten.silu')!;
    expect(Object.keys(silu.instructions)).toContain('scalar');
    expect(silu.instructions.scalar).toBeGreaterThan(silu.instructions.tensor ?? 0);
  });

  it('has a CcOp row per all-reduce at TP 2 and an unthrottled ThrottleSummary', () => {
    expect(tables.collectives).toHaveLength(28 * 2);
    expect(tables.collectives[0]).toMatchObject({ operation: 'AllReduce', algorithm: 'Ring' });
    expect(tables.throttles).toEqual([
      expect.objectContaining({ nc_idx: 0, throttle_type: 'all', throttle_active_time_ns: 0 }),
    ]);
    expect(tables.warnings).toEqual([]);
  });

  it('slows exactly the ops SIM_SLOW_OPS names, by its factor', async () => {
    const slowed = await firstPair({
      SIM_SEED: '7',
      SIM_SLOW_OPS: 'mlp.act_fn=3,op:lm_head/aten.mm=2',
    });
    const { out } = await tablesOf(slowed);
    const after = opTimes((await readProfileTables(out)).frameworkOps);
    const before = opTimes(tables.frameworkOps);
    for (const [op, time] of after) {
      const factor = op.includes('mlp.act_fn') ? 3 : op === 'lm_head/aten.mm' ? 2 : 1;
      // Whole nanoseconds of ~150 ns ops: within 1%.
      expect(Math.abs(time.deviceNs / before.get(op)!.deviceNs / factor - 1), op).toBeLessThan(
        0.01,
      );
    }
  });

  it('records throttling and a warning from the run, and a newer schema when asked', async () => {
    const run = await firstPair({
      SIM_PROFILE_THROTTLE: '0.25',
      SIM_PROFILE_WARNING: 'Missing Data: Dropped 12 DMA packets.',
    });
    const { out } = await tablesOf(run, { SIM_PROFILER_SCHEMA: '12.0.1' });
    await expect(readProfileTables(out)).rejects.toThrow(/profile_schema_version is 12\.0\.1/);
    const { out: known } = await tablesOf(run);
    const read = await readProfileTables(known);
    expect(read.throttles[0]).toMatchObject({ throttle_type: 'all' });
    expect(read.throttles[0]!.throttle_active_time_percent).toBeCloseTo(0.25, 6);
    expect(read.warnings).toEqual([
      { category: 'Missing Data', message: 'Dropped 12 DMA packets.' },
    ]);
  });

  it('knows no parquet as neuron-profile or with SIM_PROFILER_TABLES=0 (exit 2)', async () => {
    for (const [tool, env] of [
      ['neuron-profile', {}],
      ['neuron-explorer', { SIM_PROFILER_TABLES: '0' }],
    ] as const) {
      const { outcome } = await tablesOf(pair, env, tool);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain("invalid choice: 'parquet'");
    }
  });
});

describe('SIM_SLOW_OPS reaches the benchmark', () => {
  it('lengthens every query by the step slowdown of the ops it names', async () => {
    const env = { SIM_NOISE: '0', SIM_OUTLIERS: '0' };
    const base = await benchmark(env);
    const slow = await benchmark({ ...env, SIM_SLOW_OPS: 'engine:scalar=2' });
    const ratio = slow.result.metrics.p50_time! / base.result.metrics.p50_time!;
    // Scalar ops (softmax, silu) weigh 55 of 718 µs a layer in token generation and of 1,488
    // in context encoding: (1 + 55·28/20,572 + 1 + 55·28/42,004) / 2 − 1 ≈ 5.6% slower.
    expect(ratio).toBeGreaterThan(1.04);
    expect(ratio).toBeLessThan(1.07);
  }, 60_000);
});

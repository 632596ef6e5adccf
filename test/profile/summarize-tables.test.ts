// summarizeProfile over a simulated profile: the profile tables first (their schema named in
// the source), summary-json for an older profiler and for a schema the gate does not read,
// the same MFU either way, the operators, collectives and roofline, and a throttled run
// marked contaminated with its MFU and MBU not judged.
import { writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileMetrics, profileNotMeasured } from '../../src/profile/metrics.js';
import { summarizeProfile } from '../../src/profile/summarize.js';
import { profiledRun } from '../simulator/helpers.js';
import { SIMULATOR_BIN } from '../support/bundled.js';
import { runner } from '../support/tools.js';

const PATH = `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}`;
const LAYOUT_A = { NEURON_RT_INSPECT_DEVICE_PROFILE: '1', SIM_SEED: '3' };

async function summarized(runEnv: Record<string, string>, viewEnv: Record<string, string> = {}) {
  const { output } = await profiledRun({ ...LAYOUT_A, ...runEnv });
  return summarizeProfile(output, { runner, env: { PATH, ...viewEnv }, root: output });
}

describe('summarizeProfile with profile tables', () => {
  it('reads the tables, names their schema, and has ops, collectives and a roofline', async () => {
    const tables = await summarized({});
    const json = await summarized({}, { SIM_PROFILER_TABLES: '0' });
    expect(tables.status).toBe('measured');
    // Two graphs on two NeuronCores: four profiler calls.
    expect(tables.source).toEqual({ tables: 4, summaryJson: 0, schemas: ['7.4.0'] });
    expect(json.source).toEqual({ tables: 0, summaryJson: 4, schemas: [] });
    expect(tables.metrics.mfu! / json.metrics.mfu!).toBeCloseTo(1, 5);
    expect(tables.metrics.mbu! / json.metrics.mbu!).toBeCloseTo(1, 5);
    expect(tables.ops).toHaveLength(28 * 12 + 3);
    expect(tables.ops![0]!.op).toMatch(/lm_head|gate_up_proj/);
    expect(json.ops).toBeUndefined();
    expect(tables.collectives).toEqual([
      expect.objectContaining({ operation: 'AllReduce', algorithm: 'Ring', count: 28 * 2 * 4 }),
    ]);
    expect(tables.roofline!.mfu).toBeGreaterThan(0);
    expect(tables.roofline!.maxAchievable).toBeGreaterThan(tables.roofline!.mfu);
    expect(tables.contamination).toBeUndefined();
    expect(tables.warnings).toEqual([]);
  }, 120_000);

  it('refuses a schema it does not know by name, and reads summary-json instead', async () => {
    const summary = await summarized({}, { SIM_PROFILER_SCHEMA: '12.0.1' });
    expect(summary.status).toBe('measured');
    expect(summary.source).toEqual({ tables: 0, summaryJson: 4, schemas: [] });
    expect(summary.ops).toBeUndefined();
    expect(summary.warnings).toHaveLength(4);
    expect(summary.warnings![0]).toMatch(
      /no profile tables for .*\.ntff \(.*Metadata\.parquet: profile_schema_version is 12\.0\.1: a schema this gate does not read.*\); summary-json is read instead/,
    );
    expect(summary.metrics.mfu).toBeGreaterThan(0);
  }, 120_000);

  it('marks a throttled run contaminated: MFU and MBU are not judged, and say why', async () => {
    const summary = await summarized({ SIM_PROFILE_THROTTLE: '0.3' });
    expect(summary.status).toBe('measured');
    expect(summary.contamination).toHaveLength(4);
    expect(summary.contamination![0]).toMatch(
      /NeuronCore [01] throttled for .* ms, 30\.0% of the time \(.*\.ntff\)/,
    );
    expect(profileMetrics(summary)).toEqual([]);
    const notMeasured = profileNotMeasured(summary);
    expect(notMeasured.mfu?.reason).toMatch(/^contaminated profile, not judged: NeuronCore/);
    expect(notMeasured.mbu?.reason).toBe(notMeasured.mfu?.reason);
    const clean = await summarized({});
    expect(profileMetrics(clean).map((m) => m.id)).toEqual(['mfu', 'mbu']);
  }, 120_000);

  it('keeps no ops of a profile read partly from tables, partly from summary-json', async () => {
    const { output } = await profiledRun(LAYOUT_A);
    const wrapper = join(output, '..', 'tables-on-core-0-only');
    await writeFile(
      wrapper,
      `#!/bin/sh\ncase "$*" in *vnc_1.ntff*parquet*) echo "parquet failed" >&2; exit 1;; esac\nexec neuron-explorer "$@"\n`,
      { mode: 0o755 },
    );
    const summary = await summarizeProfile(output, {
      runner,
      env: { PATH },
      root: output,
      profilerPath: wrapper,
    });
    expect(summary.source).toEqual({ tables: 2, summaryJson: 2, schemas: ['7.4.0'] });
    expect(summary.metrics.mfu).toBeGreaterThan(0);
    expect(summary.ops).toBeUndefined();
    expect(summary.roofline).toBeUndefined();
    expect(summary.warnings).toHaveLength(2);
    expect(summary.warnings![0]).toMatch(
      /no profile tables for .*vnc_1\.ntff \(exit code 1: parquet failed\)/,
    );
  }, 120_000);
});

// What the simulated benchmark leaves in NEURON_RT_INSPECT_OUTPUT_DIR: the two documented
// layouts, empty NTFFs without a device profile, and NTFF contents a viewer can summarize.
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROCESS_DIR, profiledRun, runTool, tempDir } from './helpers.js';

const SYSTEM_FILES = ['cpu_util.pb', 'host_mem.pb', 'ntrace.pb', 'trace_info.pb'];

interface GraphFigures {
  graph: string;
  neff: string;
  executions: number;
  total_time: number;
  model_flops: number;
  hardware_flops: number;
  mfu_measurable: boolean;
  tensor_engine_active_fraction: number;
  vector_engine_active_fraction: number;
  dma_active_fraction: number;
  hbm_read_bytes: number;
}
interface NtffHeader {
  kind: string;
  vnc: number;
  peak_flops_per_core: number;
  graphs: GraphFigures[];
}

/** The README's format: "<MAGIC> 1", a JSON header line, then padding. */
async function readSimFile<T>(path: string, magic: string): Promise<T> {
  const bytes = await readFile(path);
  const first = bytes.indexOf(0x0a);
  const second = bytes.indexOf(0x0a, first + 1);
  expect(bytes.subarray(0, first).toString()).toBe(`${magic} 1`);
  return JSON.parse(bytes.subarray(first + 1, second).toString()) as T;
}

async function ntffHeaders(folder: string): Promise<NtffHeader[]> {
  const names = (await readdir(folder)).filter((n) => n.endsWith('.ntff')).sort();
  return Promise.all(names.map((n) => readSimFile<NtffHeader>(join(folder, n), 'SIMNTFF')));
}

const mfu = (g: GraphFigures, peak: number) => g.model_flops / (g.total_time * peak);

describe('profile layout A (device profile 1 / model)', () => {
  it('writes an NTFF per graph and NeuronCore, a NEFF per graph and the system files', async () => {
    for (const mode of ['1', 'model']) {
      const { processDir } = await profiledRun({ NEURON_RT_INSPECT_DEVICE_PROFILE: mode });
      const names = (await readdir(processDir)).sort();
      const ntffs = names.filter((n) => n.endsWith('.ntff'));
      const neffs = names.filter((n) => n.endsWith('.neff'));
      expect(ntffs).toHaveLength(4);
      for (const n of ntffs) expect(n).toMatch(/^\d+_instid_0_vnc_[01]\.ntff$/);
      const ids = [...new Set(ntffs.map((n) => n.split('_')[0]))].sort();
      expect(ids).toHaveLength(2);
      expect(neffs).toEqual(ids.map((id) => `neff_${id}.neff`).sort());
      expect(names.filter((n) => n.endsWith('.pb'))).toEqual(SYSTEM_FILES);
      for (const n of ntffs) expect((await stat(join(processDir, n))).size, n).toBeGreaterThan(0);
    }
  });

  it('records one graph per NTFF, naming its NEFF in the same folder', async () => {
    const { processDir } = await profiledRun({ NEURON_RT_INSPECT_DEVICE_PROFILE: '1' });
    const headers = await ntffHeaders(processDir);
    const kinds = headers.map((h) => h.graphs.map((g) => g.graph)).flat();
    expect(kinds.sort()).toEqual([
      'context_encoding',
      'context_encoding',
      'token_generation',
      'token_generation',
    ]);
    for (const header of headers) {
      expect(header.kind).toBe('ntff');
      expect(header.graphs).toHaveLength(1);
      expect(header.graphs[0]!.executions).toBe(1);
      expect(existsSync(join(processDir, header.graphs[0]!.neff))).toBe(true);
    }
    const neff = (await readdir(processDir)).find((n) => n.endsWith('.neff'))!;
    const neffHeader = await readSimFile<{ graph: string }>(join(processDir, neff), 'SIMNEFF');
    expect(['context_encoding', 'token_generation']).toContain(neffHeader.graph);
  });

  it('writes 0-byte NTFFs when the device profile is unset or 0', async () => {
    for (const env of [{}, { NEURON_RT_INSPECT_DEVICE_PROFILE: '0' }] as Record<string, string>[]) {
      const { processDir } = await profiledRun(env);
      const names = await readdir(processDir);
      const ntffs = names.filter((n) => n.endsWith('.ntff'));
      expect(ntffs).toHaveLength(4);
      for (const n of ntffs) expect((await stat(join(processDir, n))).size).toBe(0);
      const neff = names.find((n) => n.endsWith('.neff'))!;
      expect((await stat(join(processDir, neff))).size).toBeGreaterThan(0);
    }
  });

  it('leaves out the .pb files with NEURON_RT_INSPECT_SYSTEM_PROFILE=0', async () => {
    const { processDir } = await profiledRun({
      NEURON_RT_INSPECT_DEVICE_PROFILE: '1',
      NEURON_RT_INSPECT_SYSTEM_PROFILE: '0',
    });
    expect((await readdir(processDir)).filter((n) => n.endsWith('.pb'))).toEqual([]);
  });
});

describe('profile layout B (device profile session)', () => {
  it('writes <timestamp>/profile_nc_<n>_session_0.ntff and neff_<hash>_vnc_<n>.neff', async () => {
    const { processDir } = await profiledRun({ NEURON_RT_INSPECT_DEVICE_PROFILE: 'session' });
    const sessions = await readdir(processDir);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatch(/^\d{8}_\d{6}$/);
    const session = join(processDir, sessions[0]!);
    const names = (await readdir(session)).sort();
    expect(names.filter((n) => n.endsWith('.ntff'))).toEqual([
      'profile_nc_0_session_0.ntff',
      'profile_nc_1_session_0.ntff',
    ]);
    const neffs = names.filter((n) => n.endsWith('.neff'));
    expect(neffs).toHaveLength(4);
    for (const n of neffs) expect(n).toMatch(/^neff_[0-9a-f]{40}_vnc_[01]\.neff$/);
    expect(names.filter((n) => n.endsWith('.pb'))).toEqual(SYSTEM_FILES);

    const headers = await ntffHeaders(session);
    for (const header of headers) {
      expect(header.graphs.map((g) => g.graph)).toEqual(['context_encoding', 'token_generation']);
      // A session records every execution: 3 batches per query, 10 queries.
      for (const g of header.graphs) {
        expect(g.executions).toBe(30);
        expect(g.neff).toMatch(new RegExp(`_vnc_${header.vnc}\\.neff$`));
        expect(names).toContain(g.neff);
      }
    }
  });

  it('follows SIM_PROFILE_LAYOUT over the device profile mode', async () => {
    const forcedB = await profiledRun({
      NEURON_RT_INSPECT_DEVICE_PROFILE: '1',
      SIM_PROFILE_LAYOUT: 'B',
    });
    const [session] = await readdir(forcedB.processDir);
    expect(await readdir(join(forcedB.processDir, session!))).toContain(
      'profile_nc_0_session_0.ntff',
    );
    const forcedA = await profiledRun({
      NEURON_RT_INSPECT_DEVICE_PROFILE: 'session',
      SIM_PROFILE_LAYOUT: 'A',
    });
    const names = await readdir(forcedA.processDir);
    expect(names.filter((n) => /_instid_0_vnc_\d\.ntff$/.test(n))).toHaveLength(4);
  });
});

describe('profile contents', () => {
  it('encodes the published figures: MFU 4.87% in context encoding, ~2.4% overall', async () => {
    const { processDir } = await profiledRun({
      NEURON_RT_INSPECT_DEVICE_PROFILE: '1',
      SIM_NOISE: '0', // no drift: the figures exactly as calibrated
    });
    const headers = await ntffHeaders(processDir);
    const core0 = headers.filter((h) => h.vnc === 0).flatMap((h) => h.graphs);
    const peak = headers[0]!.peak_flops_per_core;
    expect(peak).toBe(95e12);
    const cte = core0.find((g) => g.graph === 'context_encoding')!;
    const tkg = core0.find((g) => g.graph === 'token_generation')!;
    expect(mfu(cte, peak)).toBeCloseTo(0.0487, 4);
    expect(cte.mfu_measurable).toBe(true);
    expect(tkg.mfu_measurable).toBe(false);
    const time = cte.total_time + tkg.total_time;
    const weighted = (f: (g: GraphFigures) => number) =>
      (f(cte) * cte.total_time + f(tkg) * tkg.total_time) / time;
    expect((cte.model_flops + tkg.model_flops) / (time * peak)).toBeCloseTo(0.024, 3);
    expect(weighted((g) => g.tensor_engine_active_fraction)).toBeCloseTo(0.108, 2);
    expect(weighted((g) => g.vector_engine_active_fraction)).toBeCloseTo(0.34, 2);
    expect(weighted((g) => g.dma_active_fraction)).toBeCloseTo(0.525, 2);
    expect(tkg.dma_active_fraction).toBe(0.75);
    expect(cte.hardware_flops).toBeGreaterThan(cte.model_flops);
    expect(Number.isInteger(cte.model_flops) && Number.isInteger(cte.hbm_read_bytes)).toBe(true);
  });

  it('lowers MFU by the slowdown: same flops over more NeuronCore time', async () => {
    const env = { NEURON_RT_INSPECT_DEVICE_PROFILE: '1', SIM_SEED: '3', PERF_GATE_RUN: '4' };
    const base = await ntffHeaders((await profiledRun(env)).processDir);
    const slow = await ntffHeaders(
      (await profiledRun({ ...env, SIM_SLOWDOWN: '1.08' })).processDir,
    );
    base.forEach((header, i) => {
      const [b] = header.graphs;
      const [s] = slow[i]!.graphs;
      expect(s!.model_flops).toBe(b!.model_flops);
      expect(s!.total_time / b!.total_time).toBeCloseTo(1.08, 9);
      expect(mfu(b!, 95e12) / mfu(s!, 95e12)).toBeCloseTo(1.08, 9);
    });
  });

  it('keeps files small by default and pads NTFFs to SIM_NTFF_BYTES', async () => {
    const small = await profiledRun({ NEURON_RT_INSPECT_DEVICE_PROFILE: '1' });
    for (const name of await readdir(small.processDir)) {
      expect((await stat(join(small.processDir, name))).size, name).toBeLessThanOrEqual(8192);
    }
    const padded = await profiledRun({
      NEURON_RT_INSPECT_DEVICE_PROFILE: '1',
      SIM_NTFF_BYTES: '100000',
    });
    const ntffs = (await readdir(padded.processDir)).filter((n) => n.endsWith('.ntff'));
    for (const n of ntffs) expect((await stat(join(padded.processDir, n))).size).toBe(100000);
    // Padding does not hide the header.
    expect((await ntffHeaders(padded.processDir))[0]!.graphs).toHaveLength(1);
  });

  it('slows the profiled run down, and writes nothing without NEURON_RT_INSPECT_ENABLE=1', async () => {
    const env = { SIM_SEED: '8', PERF_GATE_RUN: '1' };
    const profiled = await profiledRun({ ...env, NEURON_RT_INSPECT_DEVICE_PROFILE: '1' });
    const profiledResult = JSON.parse(await readFile(join(profiled.dir, 'result.json'), 'utf8'));
    const dir = await tempDir();
    const { code } = await runTool('offline-benchmark', [], {
      env: { ...env, PERF_GATE_OUTPUT: join(dir, 'result.json'), NEURON_RT_INSPECT_ENABLE: '0' },
      cwd: dir,
    });
    expect(code).toBe(0);
    expect(await readdir(dir)).toEqual(['result.json']);
    const clean = JSON.parse(await readFile(join(dir, 'result.json'), 'utf8'));
    expect(profiledResult.metrics.p50_time / clean.metrics.p50_time).toBeCloseTo(1.02 * 1.03, 9);
  });

  it('writes to ./output of the working folder when no output folder is given', async () => {
    const dir = await tempDir();
    const { code } = await runTool('offline-benchmark', [], {
      env: { NEURON_RT_INSPECT_ENABLE: '1', NEURON_RT_INSPECT_DEVICE_PROFILE: '1' },
      cwd: dir,
    });
    expect(code).toBe(0);
    const [processDir] = await readdir(join(dir, 'output'));
    expect(processDir).toMatch(PROCESS_DIR);
  });
});

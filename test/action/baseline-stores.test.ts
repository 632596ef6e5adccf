// The action's file store from nothing: the first run finds no baseline file and storing
// creates it; later runs compare with it on the same environment only (baseline-match).
// The gate runs a real child process that writes an offline-benchmark result.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configuredStore, recordStore } from '../../src/action/baseline-stores.js';
import { FolderBackend } from '../../src/baseline/folder-backend.js';
import { at, sampleRecord } from '../baseline/git/support.js';
import { resolveGateConfig } from '../../src/config/load.js';
import type { RawSettings } from '../../src/config/types.js';
import type { GitHubContext } from '../../src/github/event.js';
import { MemoryLogger } from '../../src/log.js';
import type { GateReport } from '../../src/model.js';
import { runGate } from '../../src/pipeline.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { offlineResult, rawTimes, tempDir } from '../support/offline-result.js';

const GITHUB = {
  eventName: 'push',
  repository: { owner: 'octo', repo: 'inference' },
  ref: 'refs/heads/main',
  refName: 'main',
  sha: 'a'.repeat(40),
  runId: 1,
  runAttempt: 1,
  workflow: 'perf',
  job: 'gate',
  actor: 'octocat',
  serverUrl: 'https://github.com',
  apiUrl: 'https://api.github.com',
} as GitHubContext;

const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspace(): Promise<string> {
  const dir = await tempDir('perf-gate-file-store-');
  workspaces.push(dir);
  await writeFile(join(dir, 'result.json'), JSON.stringify(offlineResult(rawTimes(1, 1))));
  return dir;
}

/** The action's store for these inputs: a benchmark that copies result.json, 2 runs. */
async function storeFor(dir: string, inputs: RawSettings) {
  const config = await resolveGateConfig(
    {
      command: `cat ${join(dir, 'result.json')} > "$PERF_GATE_OUTPUT"`,
      name: 'reranker',
      format: 'offline-benchmark',
      runs: '2',
      profile: 'false',
      ...inputs,
    },
    { workspace: dir },
  );
  const log = new MemoryLogger();
  const configured = await configuredStore({
    config,
    github: GITHUB,
    gateKey: 'perf-gate',
    baselineBranch: 'main',
    workspace: dir,
    log,
  });
  return { config, configured, log };
}

/** One gate run on `sdk`, against the store's baseline. */
async function gateRun(dir: string, sdk: string, inputs: RawSettings = {}) {
  const { config, configured, log } = await storeFor(dir, {
    'environment-probe': `echo neuronSdkVersion=${sdk}`,
    ...inputs,
  });
  const report = await runGate(config, {
    runner: createProcessRunner(),
    log,
    baselineStore: configured.store,
    env: { PATH: process.env.PATH },
  });
  return { report, configured };
}

function resultsOf(report: GateReport) {
  return report.benchmarks.flatMap((b) => (b.result ? [b.result] : []));
}

describe("the action's file store", () => {
  it('starts from a missing baseline file: no baseline, then the first store creates it', async () => {
    const dir = await workspace();
    const inputs = { 'baseline-path': 'perf/baseline.json' };
    const first = await gateRun(dir, '2.26.0', inputs);
    expect(first.report.verdict).toBe('no-baseline');
    expect(first.report.benchmarks[0]!.verdict).toBe('no-baseline');

    const written = await first.configured.writer.writeResults!(resultsOf(first.report));
    expect(written).toBe(`baseline file ${join(dir, 'perf/baseline.json')} written`);
    // Written atomically: a temporary file beside it, renamed over; none is left behind.
    expect(await readdir(join(dir, 'perf'))).toEqual(['baseline.json']);
    const file = JSON.parse(await readFile(join(dir, 'perf/baseline.json'), 'utf8'));
    expect(file.kind).toBeDefined();
    expect(file.benchmarks.map((b: { name: string }) => b.name)).toEqual(['reranker']);

    const second = await gateRun(dir, '2.26.0', inputs);
    expect(second.report.benchmarks[0]!.verdict).not.toBe('no-baseline');
    expect(second.report.verdict).toBe('pass');
    // Same environment: nothing to say about it.
    expect(second.report.benchmarks[0]!.baselineInfo).toBeUndefined();
  });

  it('still fails on a baseline file that is there but broken, naming it', async () => {
    const dir = await workspace();
    await mkdir(join(dir, 'perf'));
    await writeFile(join(dir, 'perf/baseline.json'), '{"kind": ');
    const { configured } = await storeFor(dir, { 'baseline-path': 'perf/baseline.json' });
    await expect(configured.store.load()).rejects.toThrow(/perf\/baseline\.json/);
  });

  it('still fails on a missing file that is not the one it writes', async () => {
    const dir = await workspace();
    const { configured } = await storeFor(dir, {
      'baseline-path': 'perf/baseline.json\nperf/older-run.json',
    });
    await expect(configured.store.load()).rejects.toThrow(/perf\/older-run\.json: not found/);
  });

  it('without baseline-path stores nothing, says why, and uploads no artifact instead', async () => {
    const dir = await workspace();
    const { configured } = await storeFor(dir, { 'baseline-store': 'file' });
    expect(configured.writer.appendRecords).toBeUndefined();
    await expect(configured.writer.writeResults!([])).rejects.toThrow(
      "baseline-store 'file' has no file to write: give baseline-path",
    );
    expect(await configured.store.load()).toBeUndefined();
  });

  it('compares only with a baseline from the same environment (baseline-match strict)', async () => {
    const dir = await workspace();
    const inputs = { 'baseline-path': 'baseline.json' };
    const first = await gateRun(dir, '2.26.0', inputs);
    await first.configured.writer.writeResults!(resultsOf(first.report));

    const { report } = await gateRun(dir, '2.27.0', inputs);
    expect(report.verdict).toBe('no-baseline');
    const benchmark = report.benchmarks[0]!;
    expect(benchmark.verdict).toBe('no-baseline');
    expect(benchmark.baselineInfo).toEqual({
      source: 'baseline.json',
      environmentNotes: ['Neuron SDK 2.26.0 → 2.27.0'],
    });
  });

  it('compares across environments with baseline-match loose, noting the differences', async () => {
    const dir = await workspace();
    const inputs = { 'baseline-path': 'baseline.json', 'baseline-match': 'loose' };
    const first = await gateRun(dir, '2.26.0', inputs);
    await first.configured.writer.writeResults!(resultsOf(first.report));

    const { report } = await gateRun(dir, '2.27.0', inputs);
    expect(report.verdict).toBe('pass');
    expect(report.benchmarks[0]!.baselineInfo?.environmentNotes).toEqual([
      'Neuron SDK 2.26.0 → 2.27.0',
    ]);
  });
});

describe('recordStore', () => {
  it('serves any record store: baseline, history, a write naming the store, and close', async () => {
    const dir = await tempDir('perf-gate-record-store-');
    workspaces.push(dir);
    const backend = new FolderBackend(join(dir, 'records'));
    let closed = 0;
    const closing = Object.assign(backend, {
      close: () => {
        closed += 1;
        return Promise.resolve();
      },
    });
    const config = await resolveGateConfig(
      {
        command: 'true',
        'baseline-store': 's3',
        'baseline-s3-bucket': 'fleet-perf',
        'baseline-keep': '1',
      },
      { workspace: dir },
    );
    const configured = recordStore(
      { config, github: GITHUB, gateKey: 'default', workspace: dir, log: new MemoryLogger() },
      closing,
    );
    expect(configured.history).toBe(backend);
    expect(configured.description).toBe(`the folder ${join(dir, 'records')}`);
    const first = await configured.writer.appendRecords!([sampleRecord('qwen', 1, at(1))]);
    expect(first).toBe(`1 record(s) added to the folder ${join(dir, 'records')} (1 attempt(s))`);
    const second = await configured.writer.appendRecords!([sampleRecord('qwen', 2, at(2))]);
    expect(second).toMatch(
      /^1 record\(s\) added to .* \(1 attempt\(s\), 1 old record\(s\) pruned\)$/,
    );
    const read = await configured.history!.readStoredRecords('default');
    expect(read.records.map((r) => r.record.runId)).toEqual(['1002']);
    await configured.close?.();
    expect(closed).toBe(1);
  });

  it('tidies the store after a write and logs it; a failed tidy is told and the records stay stored', async () => {
    const dir = await tempDir('perf-gate-record-store-');
    workspaces.push(dir);
    const backend = new FolderBackend(join(dir, 'records'));
    const tidied: string[] = [];
    let fails = false;
    const tidying = Object.assign(backend, {
      tidy: (gateKey: string) => {
        tidied.push(gateKey);
        return fails
          ? Promise.reject(new Error('lease write refused'))
          : Promise.resolve('compacted 1 month');
      },
    });
    const config = await resolveGateConfig(
      { command: 'true', 'baseline-store': 's3', 'baseline-s3-bucket': 'fleet-perf' },
      { workspace: dir },
    );
    const context = {
      config,
      github: GITHUB,
      gateKey: 'default',
      workspace: dir,
      log: new MemoryLogger(),
    };
    const configured = recordStore(context, tidying);
    const first = await configured.writer.appendRecords!([sampleRecord('qwen', 1, at(1))]);
    expect(first.split('\n')).toEqual([
      expect.stringMatching(/^1 record\(s\) added/),
      'compacted 1 month',
    ]);
    expect(tidied).toEqual(['default']);
    fails = true;
    const second = await configured.writer.appendRecords!([sampleRecord('qwen', 2, at(2))]);
    expect(second).toContain('the records are stored, but tidying the folder');
    expect(second).toContain('lease write refused');
    expect((await backend.readStoredRecords('default')).records).toHaveLength(2);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeVllmDetailedFile } from '../../../bench/vllm-detailed.js';
import { MAX_RECORD_BYTES } from '../../../src/baseline/reduce-samples.js';
import { readResultFiles } from '../../../src/baseline/result-files.js';
import { recordToResult } from '../../../src/baseline/record.js';
import { createRecord } from '../../../src/baseline/record-create.js';
import { recordPath } from '../../../src/baseline/record-paths.js';
import { migrateRecord, parseRecord, serializeRecord } from '../../../src/baseline/record-text.js';
import { percentile } from '../../../src/stats/percentile.js';
import { tempDir } from '../../support/offline-result.js';
import { at, rng, sampleRecord, sampleResult } from './support.js';

describe('baseline records', () => {
  it('names the file <gate-key>/<benchmark-slug>/<UTC stamp>-<sha7>-<run id>.json', () => {
    expect(
      recordPath(
        'default',
        'qwen3-reranker',
        '2026-03-04T05:06:07.890+02:00',
        'ABCDEF0123456789',
        4242,
      ),
    ).toBe('default/qwen3-reranker/20260304T030607Z-abcdef0-4242.json');
    expect(recordPath('nightly inf2', 'Llama 8B/tp2', new Date(0), '', 'x')).toMatch(
      /^nightly-inf2-[0-9a-f]{8}\/llama-8b-tp2-[0-9a-f]{8}\/19700101T000000Z-nocommit-x\.json$/,
    );
  });

  it('reads back exactly what it writes, with shared samples stored once', () => {
    const record = sampleRecord('bench', 1, at(1));
    const text = serializeRecord(record);
    expect(parseRecord(text)).toEqual(record);
    const stored = JSON.parse(text);
    const metrics = stored.result.metrics as {
      id: string;
      samples?: unknown;
      samplesOf?: string;
    }[];
    expect(metrics.filter((m) => m.samples).map((m) => m.id)).toEqual(['latency_p50']);
    expect(metrics.filter((m) => m.samplesOf).map((m) => m.samplesOf)).toEqual([
      'latency_p50',
      'latency_p50',
    ]);
    // Run result files are local paths: not stored.
    expect(record.result.runs[0]).not.toHaveProperty('resultFile');
    expect(record.environment.instanceType).toBe('inf2.xlarge');
    expect(record.configHash).toBe('abc123');
    expect(recordToResult(record).metrics).toEqual(record.result.metrics);
  });

  it('reads a record without its samples for the history, everything else the same', () => {
    const record = sampleRecord('bench', 1, at(1));
    // A string that looks like samples stays as it is.
    record.result.name = 'bench "samples": [1, 2]';
    const text = serializeRecord(record);
    const expected = structuredClone(record);
    for (const metric of expected.result.metrics) delete metric.samples;
    const read = parseRecord(text, { samples: false });
    expect(read).toEqual(expected);
    expect(read.result.metrics.some((m) => m.values.length > 0)).toBe(true);
    expect(record.result.metrics.some((m) => (m.samples?.length ?? 0) > 0)).toBe(true);
    // A broken file is still an error.
    expect(() =>
      parseRecord(text.replace('"samples": [', '"samples": [x'), { samples: false }),
    ).toThrow(/JSON/);
  });

  it('reduces 3 runs of 100,000 samples to 2,000, keeping the summary of all of them', () => {
    const random = rng(3);
    const runs = [0, 1, 2].map(() =>
      Array.from(
        { length: 100_000 },
        () => 300 * Math.exp(0.15 * (random() + random() + random() - 1.5)),
      ),
    );
    const result = sampleResult('big', 1);
    for (const metric of result.metrics) if (metric.samples) metric.samples = runs;
    const record = createRecord({
      gateKey: 'default',
      result,
      commit: 'a'.repeat(40),
      branch: 'main',
      event: 'schedule',
      runId: 1,
      verdict: 'pass',
    });
    const p95 = record.result.metrics.find((m) => m.id === 'latency_p95')!;
    expect(p95.samples!.flat()).toHaveLength(2000);
    expect(record.summary.latency_p95).toMatchObject({ samples: 300_000, runs: 3 });
    const original = percentile(runs.flat(), 95);
    expect(record.summary.latency_p95!.p95).toBe(original);
    expect(Math.abs(percentile(p95.samples!.flat(), 95) / original - 1)).toBeLessThan(5e-4);
    const bytes = Buffer.byteLength(serializeRecord(record));
    expect(bytes).toBeLessThan(64 * 1024);
  });

  it('migrates older and partial shapes', () => {
    const record = sampleRecord('bench', 1, at(1));
    const rest = JSON.parse(serializeRecord(record));
    const { environment, commit, runId } = rest;
    for (const key of [
      'kind',
      'schemaVersion',
      'tool',
      'summary',
      'environment',
      'commit',
      'runId',
    ]) {
      delete rest[key];
    }
    const old = {
      ...rest,
      sha: commit,
      run_id: Number(runId),
      createdAt: '2026-01-01T01:00:01+01:00',
      result: { ...rest.result, environment },
    };
    const migrated = migrateRecord(old);
    expect(migrated.commit).toBe(record.commit);
    expect(migrated.runId).toBe(record.runId);
    expect(migrated.createdAt).toBe(record.createdAt);
    expect(migrated.environment).toEqual(record.environment);
    expect(migrated.configHash).toBe('abc123');
    expect(migrated.tool.version).toBe('unknown');
    expect(migrated.result.metrics).toEqual(record.result.metrics);
    expect(Object.keys(migrated.summary)).toEqual(Object.keys(record.summary));

    // Pooled samples as one flat array are one run.
    const flat = structuredClone(record) as unknown as {
      result: { metrics: { samples?: unknown }[] };
    };
    flat.result.metrics[1]!.samples = [1, 2, 3];
    expect(migrateRecord(flat).result.metrics[1]!.samples).toEqual([[1, 2, 3]]);
  });

  it('rejects what it cannot read, saying why', () => {
    const record = sampleRecord('bench', 1, at(1));
    expect(() => migrateRecord([])).toThrow(/not a JSON object/);
    expect(() => migrateRecord({ ...record, schemaVersion: 2 })).toThrow(
      /schemaVersion 2, written by a newer neuron-perf-gate.*Update the action/,
    );
    expect(() => migrateRecord({ ...record, kind: 'something-else' })).toThrow(
      /not a neuron-perf-gate baseline record/,
    );
    const noResult: Partial<typeof record> = { ...record };
    delete noResult.result;
    expect(() => migrateRecord(noResult)).toThrow(/field 'result' is missing/);
    expect(() => migrateRecord({ ...record, verdict: 'maybe' })).toThrow(
      /field 'verdict' is invalid/,
    );
    expect(() => migrateRecord({ ...record, createdAt: 'yesterday' })).toThrow(
      /field 'createdAt' is invalid/,
    );
    const bad = JSON.parse(serializeRecord(record));
    bad.result.metrics[2].samplesOf = 'nope';
    delete bad.result.metrics[2].samples;
    expect(() => migrateRecord(bad)).toThrow(/takes its samples from 'nope'/);
    expect(() => parseRecord('{')).toThrow(/is not valid JSON/);
  });
});

describe('the sample budget of a record', () => {
  function servingResult(sets: number, perRun: number) {
    const random = rng(sets * 7 + perRun);
    const base = sampleResult('serve', 3);
    const metrics = Array.from({ length: sets }, (_, set) => {
      const runs = [0, 1, 2].map(() => Array.from({ length: perRun }, () => 10 + random() * 90));
      return {
        id: `latency_set${set}_p99`,
        unit: 'ms',
        direction: 'lower-is-better' as const,
        values: runs.map((run) => percentile(run, 99)),
        samples: runs,
        percentile: 99,
      };
    });
    return { ...base, metrics };
  }

  /** The record a push stores for `servingResult(sets, perRun)`. */
  function servingRecord(sets: number, perRun: number) {
    return createRecord({
      gateKey: 'g',
      result: servingResult(sets, perRun),
      commit: 'c'.repeat(40),
      branch: 'main',
      event: 'push',
      runId: 1,
      verdict: 'pass',
      createdAt: at(1),
    });
  }

  it('keeps 2,000 samples per metric for one sample set and shares 4,800 among four', () => {
    const stored = (sets: number) =>
      servingRecord(sets, 20_000).result.metrics.map((m) => m.samples!.flat().length);
    expect(stored(1)).toEqual([2000]);
    expect(stored(4)).toEqual([1200, 1200, 1200, 1200]);
  });

  it('keeps a four-set serving record of 3 × 100,000 samples each under 64 KB', () => {
    const record = servingRecord(4, 100_000);
    expect(Buffer.byteLength(serializeRecord(record))).toBeLessThan(64 * 1024);
  });

  it('keeps fewer samples when the rest of a record is large, so that it still fits', () => {
    const result = { ...servingResult(4, 20_000), info: { notes: 'x'.repeat(30_000) } };
    const record = createRecord({
      gateKey: 'g',
      result,
      commit: 'c'.repeat(40),
      branch: 'main',
      event: 'push',
      runId: 1,
      verdict: 'pass',
      createdAt: at(1),
    });
    expect(Buffer.byteLength(serializeRecord(record))).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    const kept = record.result.metrics.map((m) => m.samples!.flat().length);
    expect(Math.max(...kept)).toBeLessThan(1200);
    expect(Math.min(...kept)).toBeGreaterThan(400);
    // The summary still describes every measured sample.
    expect(record.summary.latency_set0_p99?.samples).toBe(60_000);
  });
});

describe('a vllm bench serve record', () => {
  it('holds TTFT, TPOT, ITL and E2EL sets of 3 detailed runs within 64 KB, with room to spare', async () => {
    const dir = await tempDir();
    const paths = [1, 2, 3].map((run) => {
      const path = join(dir, `run-${run}.json`);
      writeVllmDetailedFile(path, { requests: 3000, itlsPerRequest: 32, seed: `run ${run}` });
      return path;
    });
    const [result] = await readResultFiles(paths, { format: 'auto', fallbackName: 'serve' });
    const record = createRecord({
      gateKey: 'nightly inf2',
      result: {
        ...result!,
        environment: { instanceType: 'inf2.8xlarge', neuronSdkVersion: '2.26.0' },
      },
      commit: 'c'.repeat(40),
      branch: 'main',
      event: 'push',
      runId: 123456789,
      verdict: 'pass',
      createdAt: at(1),
    });
    const sets = record.result.metrics.filter((m) => m.samples && m.samples.length > 0);
    expect(new Set(sets.map((m) => m.samples!.flat().length)).size).toBe(1);
    expect(Buffer.byteLength(serializeRecord(record))).toBeLessThan(MAX_RECORD_BYTES - 8 * 1024);
  });
});

import { describe, expect, it } from 'vitest';
import { withOlderRecords } from '../../src/baseline/older-records.js';
import { recordToResult } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { gateRunLoad } from '../../src/baseline/record-load.js';
import { parseRecord, serializeRecord } from '../../src/baseline/record-text.js';
import { mergeByName } from '../../src/baseline/result-files.js';
import type { BenchmarkResult, HostLoad } from '../../src/model.js';
import { hostLoad, metricOf, roundedLoads, withRunLoads } from '../support/host-loads.js';
import { at, sampleResult } from './git/support.js';

/** A sample result whose clean runs recorded `loads` (one per run; undefined: none). */
const loaded = (seed: number, loads: (HostLoad | undefined)[]): BenchmarkResult =>
  withRunLoads(sampleResult('bench', seed), loads);

function recordOf(result: BenchmarkResult, i = 1) {
  return createRecord({
    gateKey: 'default',
    result,
    commit: 'a'.repeat(40),
    branch: 'main',
    event: 'push',
    runId: String(i),
    verdict: 'pass',
    createdAt: at(i),
  });
}

describe("a run's host load in the record", () => {
  it('is stored with each run and read back', () => {
    const load = hostLoad(0.38, 0.02);
    const record = recordOf(loaded(1, [load, load, undefined]));
    const read = parseRecord(serializeRecord(record));
    expect(read.result.runs.map((run) => run.hostLoad)).toEqual([load, load, undefined]);
    expect(recordToResult(read).runs[0]!.hostLoad).toEqual(load);
  });

  it('may be absent: a record written before it was measured reads as before', () => {
    const text = serializeRecord(recordOf(sampleResult('bench', 2)));
    expect(text).not.toContain('hostLoad');
    expect(parseRecord(text).result.runs).toHaveLength(3);
  });

  it('is refused outside 0–1', () => {
    const record = recordOf(sampleResult('bench', 3));
    const data = JSON.parse(serializeRecord(record));
    data.result.runs[0].hostLoad = hostLoad(1.5);
    expect(() => parseRecord(JSON.stringify(data))).toThrow(/hostLoad/);
  });
});

describe('gateRunLoad', () => {
  it('is the mean of the clean runs’ other and steal shares', () => {
    const result = loaded(4, [hostLoad(0.3, 0.1), hostLoad(0.2), undefined]);
    expect(gateRunLoad(result.runs)).toBeCloseTo(0.3, 12);
    expect(gateRunLoad(sampleResult('bench', 5).runs)).toBeNull();
  });
});

describe("a baseline's loads, one per stored record", () => {
  const quiet = hostLoad(0.02);
  const busy = hostLoad(0.4);

  it('follow the records merged into the window', () => {
    const [merged] = mergeByName([
      loaded(6, [busy, busy, busy]),
      sampleResult('bench', 7),
      loaded(8, [quiet, quiet, quiet]),
    ]);
    const throughput = metricOf(merged, 'throughput');
    expect(throughput.records).toEqual([3, 3, 3]);
    expect(roundedLoads(throughput.hostLoads)).toEqual([0.4, null, 0.02]);
  });

  it('are absent where no record measured one', () => {
    const [merged] = mergeByName([sampleResult('bench', 9), sampleResult('bench', 10)]);
    expect(merged!.metrics[0]).not.toHaveProperty('hostLoads');
  });

  it('follow the older records', () => {
    const [merged] = mergeByName([loaded(11, [quiet, quiet, quiet])]);
    const withOlder = withOlderRecords(merged!, [
      loaded(12, [busy, busy, busy]),
      sampleResult('bench', 13),
    ]);
    const throughput = metricOf(withOlder, 'throughput');
    expect(throughput.olderRecords).toHaveLength(2);
    expect(roundedLoads(throughput.olderHostLoads)).toEqual([0.4, null]);
    expect(throughput.hostLoads).toEqual([0.02]);
  });
});

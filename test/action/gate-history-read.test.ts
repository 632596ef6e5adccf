// The history is the first thing the gate reads of a record store (before the baseline and
// before any benchmark runs): a store that cannot be read stops the gate there with the
// store's message, instead of a warning followed by a second wait for the same failure.
import { describe, expect, it } from 'vitest';
import { readGateHistory } from '../../src/action/gate-history.js';
import { MemoryLogger } from '../../src/log.js';
import { withRecordPaths } from '../../src/history/series.js';
import { nightRecords } from '../history/night-records.js';

describe('readGateHistory', () => {
  it("fails with the store's own message when the store cannot be read, warning of nothing", async () => {
    let reads = 0;
    const unreachable = {
      readStoredRecords: async () => {
        reads += 1;
        throw new Error('could not read records from s3://fleet/perf-gate/: 503 SlowDown; check…');
      },
    };
    const log = new MemoryLogger();
    await expect(
      readGateHistory(unreachable, 'nightly', 'main', () => undefined, log),
    ).rejects.toThrow(/could not read records from s3:\/\/fleet\/perf-gate\/: 503 SlowDown/);
    expect(reads).toBe(1);
    expect(log.lines).toEqual([]);
  });

  it('goes on without the history when its analysis fails, saying so', async () => {
    const records = withRecordPaths(nightRecords({ benchmarks: ['a'], nights: 2 }, 0));
    const log = new MemoryLogger();
    const history = await readGateHistory(
      { readStoredRecords: async () => ({ records, warnings: [] }) },
      'nightly',
      'main',
      () => {
        throw new Error('thresholds of a were lost');
      },
      log,
    );
    expect(history).toBeUndefined();
    expect(log.lines.join('\n')).toMatch(
      /the stored history could not be analysed, so no regression is held out of the baseline: thresholds of a were lost/,
    );
  });
});

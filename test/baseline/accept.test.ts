import { describe, expect, it } from 'vitest';
import { ACCEPTED_RUN_ID_SUFFIX, acceptanceRecord } from '../../src/baseline/accept.js';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { parseRecord, serializeRecord } from '../../src/baseline/record-text.js';
import { at, sampleRecord } from './git/support.js';

function regressed(): BaselineRecord {
  return { ...sampleRecord('llama 8b', 3, at(3), { runId: '4242' }), verdict: 'regression' };
}

const WHEN = new Date('2026-02-01T09:30:00.123Z');

describe('acceptanceRecord', () => {
  it('copies the measurement under a new time and run id, with the acceptance attached', () => {
    const original = regressed();
    const path = pathOfRecord(original);
    const accepted = acceptanceRecord(original, {
      reason: 'manual',
      by: 'octocat',
      note: 'new compiler, slower but correct',
      at: WHEN,
      records: [path],
    });
    expect(accepted.createdAt).toBe('2026-02-01T09:30:00.123Z');
    expect(accepted.runId).toBe(`4242${ACCEPTED_RUN_ID_SUFFIX}`);
    expect(accepted.acceptance).toEqual({
      reason: 'manual',
      at: '2026-02-01T09:30:00.123Z',
      by: 'octocat',
      records: [path],
      note: 'new compiler, slower but correct',
    });
    // What was measured, where and on what is the original's, untouched.
    for (const field of [
      'gateKey',
      'benchmark',
      'commit',
      'branch',
      'event',
      'verdict',
      'environment',
      'configHash',
      'summary',
      'result',
      'tool',
    ] as const) {
      expect(accepted[field]).toEqual(original[field]);
    }
    // A file of its own beside the original, named after the new time.
    const newPath = pathOfRecord(accepted);
    expect(newPath).not.toBe(path);
    expect(newPath).toMatch(/\/20260201T093000Z-[0-9a-f]{7}-4242-accepted\.json$/);
    expect(newPath.slice(0, newPath.lastIndexOf('/'))).toBe(path.slice(0, path.lastIndexOf('/')));
  });

  it('returns a record that stores and reads back unchanged', () => {
    const accepted = acceptanceRecord(regressed(), { reason: 'manual', at: WHEN, records: ['x'] });
    expect(parseRecord(serializeRecord(accepted))).toEqual(accepted);
  });

  it('takes the reason as given and leaves out what was not given', () => {
    const after = acceptanceRecord(regressed(), { reason: 'accept-after', at: WHEN, records: [] });
    expect(after.acceptance).toEqual({ reason: 'accept-after', at: WHEN.toISOString() });
    const current = acceptanceRecord(regressed(), {
      reason: 'accept-current',
      by: '',
      note: '',
      at: WHEN,
      records: ['a/b/1.json', 'a/b/2.json'],
    });
    expect(current.acceptance).toEqual({
      reason: 'accept-current',
      at: WHEN.toISOString(),
      records: ['a/b/1.json', 'a/b/2.json'],
    });
  });

  it('is stamped now when no time is given', () => {
    const before = Date.now();
    const accepted = acceptanceRecord(regressed(), { reason: 'manual', records: [] });
    const stamped = Date.parse(accepted.createdAt);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
    expect(accepted.acceptance?.at).toBe(accepted.createdAt);
  });

  it('replaces an earlier acceptance and leaves the given record alone', () => {
    const original: BaselineRecord = {
      ...regressed(),
      acceptance: { reason: 'accept-after', at: at(3).toISOString(), records: ['old.json'] },
    };
    const snapshot = structuredClone(original);
    const records = ['a/b/c.json'];
    const accepted = acceptanceRecord(original, { reason: 'manual', at: WHEN, records });
    expect(accepted.acceptance).toEqual({
      reason: 'manual',
      at: WHEN.toISOString(),
      records: ['a/b/c.json'],
    });
    expect(original).toEqual(snapshot);
    records.push('later.json');
    expect(accepted.acceptance?.records).toEqual(['a/b/c.json']);
    // Nothing shared: changing the copy does not change the original.
    accepted.result.metrics[0]!.values[0] = -1;
    expect(original.result.metrics[0]!.values[0]).not.toBe(-1);
  });

  it('rejects a time that is not a date', () => {
    expect(() =>
      acceptanceRecord(regressed(), { reason: 'manual', at: new Date('nope'), records: [] }),
    ).toThrow(/not a date/);
  });
});

import { describe, expect, it } from 'vitest';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import {
  acceptedRecords,
  persistentRegression,
  selectBaseline,
} from '../../src/baseline/select.js';
import type { Environment } from '../../src/model.js';
import { at, sampleRecord } from './git/support.js';

const HERE: Environment = {
  instanceType: 'inf2.xlarge',
  neuronCores: 2,
  neuronSdkVersion: '2.26.0',
  configHash: 'abc123',
};

/** Newest first, like the stores return them. */
function history(
  specs: Partial<Pick<BaselineRecord, 'verdict' | 'branch' | 'event' | 'acceptance'>>[],
  environment: Partial<Environment> = {},
): BaselineRecord[] {
  return specs
    .map((spec, i) => {
      const record = sampleRecord('bench', i + 1, at(i + 1));
      return {
        ...record,
        ...spec,
        environment: { ...record.environment, ...environment },
      } as BaselineRecord;
    })
    .reverse();
}

const options = { window: 3, defaultBranch: 'main', environment: HERE, match: 'strict' as const };

describe('selectBaseline', () => {
  it('takes the newest accepted records of the default branch, up to the window', () => {
    const records = history([
      {},
      {},
      { branch: 'feature' },
      { verdict: 'regression' },
      {},
      { verdict: 'no-baseline' },
      { verdict: 'error' },
    ]);
    const selection = selectBaseline(records, options);
    expect(selection.reason).toBeUndefined();
    // Newest first: the no-baseline record (6th), the 5th, then the 2nd; not the
    // regression, the error, nor the feature branch.
    expect(selection.records.map((r) => r.runId)).toEqual(['1006', '1005', '1002']);
  });

  it('gives no baseline when the environment differs, spelling out the differences', () => {
    const records = history([{}, {}], { neuronSdkVersion: '2.25.0', instanceType: 'inf2.8xlarge' });
    const selection = selectBaseline(records, options);
    expect(selection.records).toEqual([]);
    expect(selection.notes).toEqual(
      expect.arrayContaining([
        'Neuron SDK 2.25.0 → 2.26.0',
        'instance type inf2.8xlarge → inf2.xlarge',
      ]),
    );
    expect(selection.reason).toContain('baseline-match: loose');
  });

  it('compares across environments with baseline-match loose, noting what differs', () => {
    const records = history([{}, {}], { neuronSdkVersion: '2.25.0' });
    const selection = selectBaseline(records, { ...options, match: 'loose' });
    expect(selection.records).toHaveLength(2);
    expect(selection.notes).toEqual(['Neuron SDK 2.25.0 → 2.26.0']);
  });

  it('keeps only the records from the same environment when both kinds are stored', () => {
    const old = history([{}, {}], { neuronSdkVersion: '2.25.0' });
    const fresh = history([{}]).map((r) => ({ ...r, runId: 'fresh' }));
    const selection = selectBaseline([...fresh, ...old], options);
    expect(selection.records.map((r) => r.runId)).toEqual(['fresh']);
  });

  it('treats a field one side does not know as no mismatch', () => {
    const records = history([{}], { neuronSdkVersion: undefined as unknown as string });
    expect(selectBaseline(records, options).records).toHaveLength(1);
  });

  it('says why when every record regressed or none is stored', () => {
    expect(selectBaseline([], options).reason).toBe('no stored records from main yet');
    expect(selectBaseline(history([{ verdict: 'regression' }]), options).reason).toContain(
      'none of the 1 stored records is accepted',
    );
  });
});

describe('older records for the day-to-day drift', () => {
  it('are the accepted records beyond the window, up to the history, of the same history only', () => {
    const records = history([{}, {}, { verdict: 'regression' }, {}, {}, {}, {}, {}]);
    const selection = selectBaseline(records, { ...options, history: 6 });
    expect(selection.records.map((r) => r.runId)).toEqual(['1008', '1007', '1006']);
    // 6 in all: the window's 3 and the next 3 accepted (not the regression, 1003).
    expect(selection.older!.map((r) => r.runId)).toEqual(['1005', '1004', '1002']);
    // Without a history, none (compare with files, the artifact store).
    expect(selectBaseline(records, options).older).toBeUndefined();
    // An acceptance starts the history again: nothing older than it teaches the drift.
    const acceptance = {
      ...sampleRecord('bench', 9, at(9)),
      acceptance: { reason: 'accept-current' as const, at: at(9).toISOString() },
    };
    const restarted = selectBaseline([acceptance, ...records], { ...options, history: 20 });
    expect(restarted.records.map((r) => r.runId)).toEqual(['1009']);
    expect(restarted.older).toBeUndefined();
  });
});

describe('acceptedRecords', () => {
  it('starts again from the newest acceptance, keeping the records it names', () => {
    const records = history([{}, {}, { verdict: 'regression' }, { verdict: 'regression' }]);
    // records[0] is the newest (4th); an acceptance record on top takes the two regressions.
    const acceptance = {
      ...sampleRecord('bench', 9, at(9)),
      verdict: 'regression' as const,
      acceptance: {
        reason: 'accept-after' as const,
        at: at(9).toISOString(),
        records: [pathOfRecord(records[0]!), pathOfRecord(records[1]!)],
      },
    };
    const accepted = acceptedRecords([acceptance, ...records]);
    expect(accepted).toEqual([acceptance, records[0], records[1]]);
  });
});

describe('acceptances and environments', () => {
  it('lets an acceptance start the history again on its own environment only', () => {
    const here = history([{}, {}]);
    const record = sampleRecord('bench', 9, at(9));
    // A slower build accepted on the larger instance, which shares the gate.
    const acceptedElsewhere: BaselineRecord = {
      ...record,
      verdict: 'regression',
      environment: { ...record.environment, instanceType: 'inf2.8xlarge' },
      acceptance: { reason: 'accept-current', at: at(9).toISOString() },
    };
    const stored = [acceptedElsewhere, ...here];
    expect(selectBaseline(stored, options).records.map((r) => r.runId)).toEqual(['1002', '1001']);
    const there = { ...options, environment: { ...HERE, instanceType: 'inf2.8xlarge' } };
    expect(selectBaseline(stored, there).records.map((r) => r.runId)).toEqual(['1009']);
  });

  it('says that none is accepted on this environment when only others have accepted ones', () => {
    const regressions = history([{ verdict: 'regression' }]);
    const elsewhere = history([{}], { instanceType: 'inf2.8xlarge' }).map((r) => ({
      ...r,
      runId: 'elsewhere',
    }));
    expect(selectBaseline([...elsewhere, ...regressions], options).reason).toBe(
      'none of the 1 stored records from this environment is accepted (each was a regression)',
    );
  });
});

describe('persistentRegression', () => {
  const streak = { acceptAfter: 3, defaultBranch: 'main', environment: HERE };

  it('returns the earlier records of a streak that reaches accept-after with this run', () => {
    const records = history([
      {},
      { verdict: 'regression' },
      { verdict: 'regression', event: 'schedule' },
    ]);
    expect(persistentRegression(records, streak)?.map((r) => r.runId)).toEqual(['1003', '1002']);
  });

  it('does not accept a streak broken by a passing run or too short', () => {
    expect(
      persistentRegression(
        history([{ verdict: 'regression' }, {}, { verdict: 'regression' }]),
        streak,
      ),
    ).toBeUndefined();
    expect(persistentRegression(history([{}, { verdict: 'regression' }]), streak)).toBeUndefined();
  });

  it('counts only push and scheduled runs of the default branch on the same environment', () => {
    const manual = history([
      { verdict: 'regression' },
      { verdict: 'regression', event: 'workflow_dispatch' },
      { verdict: 'regression', branch: 'feature' },
    ]);
    expect(persistentRegression(manual, streak)).toBeUndefined();
    const elsewhere = history([{ verdict: 'regression' }, { verdict: 'regression' }], {
      instanceType: 'inf2.8xlarge',
    });
    expect(persistentRegression(elsewhere, streak)).toBeUndefined();
  });

  it('never accepts with accept-after 0', () => {
    const records = history([{ verdict: 'regression' }, { verdict: 'regression' }]);
    expect(persistentRegression(records, { ...streak, acceptAfter: 0 })).toBeUndefined();
  });
});

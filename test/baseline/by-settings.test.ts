// Pairing benchmarks named by their settings whose names differ: a baseline named the old
// way, one tag more, an A/B of two KV-cache backends; never a guess between two.
import { describe, expect, it } from 'vitest';
import { pairBySettings } from '../../src/baseline/by-settings.js';

const NEW = [
  'prompts=20,concurrency=16,chunksize=256,input_len=100,kvcache=cpu',
  'prompts=20,concurrency=16,chunksize=256,input_len=1000,kvcache=cpu',
];

describe('pairBySettings', () => {
  it('pairs a baseline named by the settings that differed with today’s full names', () => {
    const pairs = pairBySettings(NEW, ['input_len=100', 'input_len=1000']);
    expect([...pairs].map(([now, pair]) => [now, pair.baseline, pair.kind])).toEqual([
      [NEW[0], 'input_len=100', 'renamed'],
      [NEW[1], 'input_len=1000', 'renamed'],
    ]);
    expect(pairs.get(NEW[0]!)!.note).toBe(
      'compared with baseline "input_len=100": the settings both name are equal; this run also names ' +
        'prompts=20, concurrency=16, chunksize=256, kvcache=cpu',
    );
  });

  it('reads the old spelling of defaults and none as no setting', () => {
    const pairs = pairBySettings(['prompts=200,rate=1'], ['rate=1,concurrency=none']);
    expect(pairs.get('prompts=200,rate=1')?.baseline).toBe('rate=1,concurrency=none');
  });

  it('pairs a run with one tag more', () => {
    const pairs = pairBySettings([`${NEW[0]},disk_size=400g`, `${NEW[1]},disk_size=400g`], NEW);
    expect(pairs.get(`${NEW[1]},disk_size=400g`)?.baseline).toBe(NEW[1]);
    expect(pairs.get(`${NEW[0]},disk_size=400g`)?.note).toContain(
      'this run also names disk_size=400g',
    );
  });

  it('pairs an A/B of two backends as the nearest, naming the setting that changed', () => {
    const disk = NEW.map((name) => name.replace('kvcache=cpu', 'kvcache=disk'));
    const pairs = pairBySettings(disk, NEW);
    expect(pairs.get(disk[1]!)).toMatchObject({
      baseline: NEW[1],
      kind: 'near',
      difference: '4 of 5 settings equal: kvcache cpu → disk',
    });
    expect(pairs.get(disk[0]!)?.baseline).toBe(NEW[0]);
  });

  it('pairs nothing when two benchmarks fit equally well', () => {
    // A new concurrency dimension: the old `rate=1` fits both of today's benchmarks.
    const pairs = pairBySettings(['rate=1,concurrency=4', 'rate=1,concurrency=8'], ['rate=1']);
    expect(pairs.size).toBe(0);
    const near = pairBySettings(
      ['rate=2,concurrency=8'],
      ['rate=1,concurrency=8', 'rate=2,concurrency=4'],
    );
    expect(near.size).toBe(0);
  });

  it('leaves exact names and names that are not settings alone', () => {
    expect(pairBySettings([NEW[0]!, 'reranker'], [NEW[0]!, 'reranker-v2']).size).toBe(0);
  });

  it('never pairs across the configured benchmark’s prefix', () => {
    expect(pairBySettings(['a/rate=1,kv=cpu'], ['b/rate=1']).size).toBe(0);
  });
});

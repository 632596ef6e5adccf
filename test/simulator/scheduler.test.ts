// The simulated server's scheduler and KV cache (lib/scheduler.mjs, lib/kv-cache.mjs) on
// their own: --max-num-seqs slots and a first-come, first-served queue; blocks of 32 tokens
// held per running request; the newest running request preempted to the queue's head when
// a block is short; prefix blocks shared and counted as hits, kept cached after release.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR } from './helpers.js';

interface Seq {
  promptTokens: string[];
  generated: number;
  state?: string;
  cachedTokens?: number;
  admitted?: Promise<void>;
  preempted?: number;
}
interface Kv {
  usage(): number;
  stats: { queries: number; hits: number };
}
interface Scheduler {
  stats: { preemptions: number; waitingPeak: number };
  running(): number;
  waiting(): number;
  admit(seq: Seq): Promise<void>;
  grow(seq: Seq, tokens: number): boolean;
  finish(seq: Seq): void;
}
type CreateKv = (options: { blocks: number; blockSize: number; prefixCaching: boolean }) => Kv;
type CreateScheduler = (options: { maxNumSeqs: number; kv: Kv }) => Scheduler;

let createKvCache: CreateKv;
let createScheduler: CreateScheduler;
beforeAll(async () => {
  const lib = (name: string) => pathToFileURL(join(SIMULATOR, 'lib', name)).href;
  ({ createKvCache } = (await import(lib('kv-cache.mjs'))) as { createKvCache: CreateKv });
  ({ createScheduler } = (await import(lib('scheduler.mjs'))) as {
    createScheduler: CreateScheduler;
  });
});

/** A prompt of `length` tokens named `${tag}0`, `${tag}1`, …; a shared `prefix` first. */
function prompt(length: number, tag: string, prefix: string[] = []): Seq {
  const own = Array.from({ length: length - prefix.length }, (_, i) => `${tag}${i}`);
  return { promptTokens: [...prefix, ...own], generated: 0 };
}

function schedulerOf(maxNumSeqs: number, blocks: number, prefixCaching = false) {
  const kv = createKvCache({ blocks, blockSize: 32, prefixCaching });
  return { kv, scheduler: createScheduler({ maxNumSeqs, kv }) };
}

describe('the simulated scheduler', () => {
  it('runs at most --max-num-seqs at once and starts the waiting ones first come, first served', () => {
    const { scheduler } = schedulerOf(2, 1000);
    const seqs = ['a', 'b', 'c', 'd'].map((tag) => prompt(64, tag));
    for (const seq of seqs) void scheduler.admit(seq);
    expect(seqs.map((s) => s.state)).toEqual(['running', 'running', 'waiting', 'waiting']);
    expect([scheduler.running(), scheduler.waiting(), scheduler.stats.waitingPeak]).toEqual([
      2, 2, 2,
    ]);
    scheduler.finish(seqs[1]!);
    expect(seqs.map((s) => s.state)).toEqual(['running', 'done', 'running', 'waiting']);
    // A waiting request whose client left gives up its place.
    scheduler.finish(seqs[3]!);
    expect(scheduler.waiting()).toBe(0);
  });

  it('holds ceil(tokens / 32) blocks per request and preempts the newest when a block is short', () => {
    // 6 blocks: two prompts of 64 tokens (2 blocks each), then each grows.
    const { kv, scheduler } = schedulerOf(8, 6);
    const [a, b] = [prompt(64, 'a'), prompt(64, 'b')];
    void scheduler.admit(a);
    void scheduler.admit(b);
    expect(kv.usage()).toBeCloseTo(4 / 6, 12);
    expect(scheduler.grow(a, 65)).toBe(true); // a's third block
    expect(scheduler.grow(b, 65)).toBe(true); // b's third: the cache is full
    expect(kv.usage()).toBe(1);
    // a needs a fourth block: b, the newest, goes back to the queue's head.
    expect(scheduler.grow(a, 97)).toBe(true);
    expect([b.state, b.preempted, scheduler.stats.preemptions]).toEqual(['waiting', 1, 1]);
    expect(kv.usage()).toBeCloseTo(4 / 6, 12);
    // A request that is itself the newest is preempted by its own growth.
    const c = prompt(32, 'c');
    const { scheduler: alone } = schedulerOf(8, 1);
    void alone.admit(c);
    expect(alone.grow(c, 33)).toBe(false);
    expect(c.state).toBe('waiting');
  });

  it('shares the blocks of a common prefix, counts hits and queries, and keeps them cached after release', () => {
    const { kv, scheduler } = schedulerOf(8, 100, true);
    const shared = Array.from({ length: 96 }, (_, i) => `s${i}`);
    const first = prompt(128, 'x', shared);
    void scheduler.admit(first);
    expect([first.cachedTokens, kv.stats.hits, kv.stats.queries]).toEqual([0, 0, 128]);
    scheduler.finish(first);
    expect(kv.usage()).toBe(0);
    const second = prompt(128, 'y', shared);
    void scheduler.admit(second);
    // The 3 full blocks of the shared 96 tokens; the 4th block differs.
    expect([second.cachedTokens, kv.stats.hits, kv.stats.queries]).toEqual([96, 96, 256]);
    expect(kv.usage()).toBeCloseTo(4 / 100, 12);
    // The same prompt again: every full block but the last token's is read from the cache.
    const third: Seq = { promptTokens: [...second.promptTokens], generated: 0 };
    void scheduler.admit(third);
    expect(third.cachedTokens).toBe(96);
    expect(kv.usage()).toBeCloseTo(5 / 100, 12);
  });

  it('counts no hit with prefix caching off', () => {
    const { kv, scheduler } = schedulerOf(8, 100, false);
    const shared = Array.from({ length: 96 }, (_, i) => `s${i}`);
    for (const tag of ['x', 'y']) void scheduler.admit(prompt(128, tag, shared));
    expect([kv.stats.hits, kv.stats.queries]).toEqual([0, 0]);
    expect(kv.usage()).toBeCloseTo(8 / 100, 12);
  });
});

// The simulated server's scheduler, as vLLM's V1 scheduler (vllm/v1/core/sched/scheduler.py)
// behaves at the level the latency model sees: at most --max-num-seqs requests run at once,
// the rest wait first come, first served; a waiting request starts when a slot and the KV
// blocks of its prompt are free. A running request that needs a new block when none is free
// preempts the newest running request (itself, if it is the newest): that one gives back
// its blocks and goes back to the head of the queue, to be computed again (recompute).
import { performance } from 'node:perf_hooks';

/**
 * A scheduler of `maxNumSeqs` slots over `kv` (lib/kv-cache.mjs). A sequence is
 * { promptTokens: [...], generated } plus what the scheduler keeps on it.
 */
export function createScheduler({ maxNumSeqs, kv }) {
  const waiting = [];
  const running = [];
  const stats = { preemptions: 0, waitingPeak: 0 };

  // A sequence's tokens in the cache: --max-model-len at most (seq.maxTokens).
  const held = (seq, tokens) => Math.min(tokens, seq.maxTokens ?? Infinity);
  const startable = (seq) =>
    running.length < maxNumSeqs &&
    kv.allocate(seq, held(seq, seq.promptTokens.length + seq.generated));

  /** Starts waiting requests in order while the head fits (the head blocks the rest). */
  const pump = () => {
    while (waiting.length > 0 && startable(waiting[0])) {
      const seq = waiting.shift();
      running.push(seq);
      seq.state = 'running';
      seq.wake();
    }
  };

  const enqueue = (seq, atHead) => {
    seq.state = 'waiting';
    seq.waitingSince = performance.now();
    seq.admitted = new Promise((resolve) => {
      seq.wake = () => {
        seq.waitedMs += performance.now() - seq.waitingSince;
        resolve();
      };
    });
    if (atHead) waiting.unshift(seq);
    else waiting.push(seq);
    stats.waitingPeak = Math.max(stats.waitingPeak, waiting.length);
  };

  const stop = (seq) => {
    const at = running.indexOf(seq);
    if (at >= 0) running.splice(at, 1);
    kv.release(seq);
  };

  return {
    stats,
    running: () => running.length,
    waiting: () => waiting.length,

    /** Queues `seq` (first come, first served); resolves once it runs. */
    admit(seq) {
      seq.generated ??= 0;
      seq.waitedMs = 0;
      enqueue(seq, false);
      pump();
      // Started at once: no wait at all (not the microseconds of this call).
      if (seq.state === 'running') seq.waitedMs = 0;
      return seq.admitted;
    },

    /**
     * Makes room for `tokens` of `seq` in the KV cache, preempting the newest running
     * requests while there is none; false when `seq` itself was preempted (await
     * seq.admitted, then recompute).
     */
    grow(seq, tokens) {
      while (!kv.grow(seq, held(seq, tokens))) {
        const victim = running.at(-1);
        stop(victim);
        stats.preemptions += 1;
        victim.preempted = (victim.preempted ?? 0) + 1;
        enqueue(victim, true);
        if (victim === seq) return false;
      }
      return true;
    },

    /** `seq` finished or its client left: its slot and blocks go to the queue. */
    finish(seq) {
      if (seq.state === 'waiting') {
        const at = waiting.indexOf(seq);
        if (at >= 0) waiting.splice(at, 1);
      } else if (seq.state === 'running') stop(seq);
      seq.state = 'done';
      pump();
    },
  };
}

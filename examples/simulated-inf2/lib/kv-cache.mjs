// The simulated server's KV cache, in blocks of `blockSize` tokens, as vLLM's V1 block
// pool keeps it (vllm/v1/core/block_pool.py, kv_cache_manager.py): a running request holds
// ceil(tokens / blockSize) blocks; with prefix caching each full block of a prompt is named
// by the hash of its tokens and those before it, so a later prompt that starts the same
// way shares the blocks still held or still cached. A freed block that has a name stays
// cached until a new block needs its room (least recently freed first); it counts as free,
// as vLLM's usage does (1 − free ÷ total).
import { createHash } from 'node:crypto';

/** A KV cache of `blocks` blocks of `blockSize` tokens. */
export function createKvCache({ blocks, blockSize, prefixCaching }) {
  /** Named blocks a running request holds: name → how many requests hold it. */
  const held = new Map();
  /** Named blocks no request holds, oldest first: reusable until evicted. */
  const cached = new Set();
  let inUse = 0;
  const stats = { queries: 0, hits: 0 };

  const freeFresh = () => blocks - inUse - cached.size;
  const takeFresh = (count) => {
    // Room for new blocks comes from free blocks first, then from the oldest cached ones.
    let short = count - Math.max(0, freeFresh());
    for (const name of cached) {
      if (short <= 0) break;
      cached.delete(name);
      short -= 1;
    }
    inUse += count;
  };

  return {
    blocks,
    blockSize,
    stats,
    usage: () => inUse / blocks,
    blocksFor: (tokens) => Math.ceil(tokens / blockSize),

    /**
     * Allocates the blocks of `seq` to compute `tokens` (its prompt, or prompt and output
     * after a preemption), reusing the cached prefix; false (nothing taken) when they do
     * not fit. Sets seq.cachedTokens, the tokens it need not compute.
     */
    allocate(seq, tokens) {
      const names = prefixCaching ? blockNames(seq.promptTokens, blockSize) : [];
      let hit = 0;
      while (hit < names.length && (held.has(names[hit]) || cached.has(names[hit]))) hit += 1;
      // The last token is always computed, as vLLM does, to give the next token's logits.
      hit = Math.min(hit, Math.floor((tokens - 1) / blockSize));
      const total = Math.ceil(tokens / blockSize);
      const revived = names.slice(0, hit).filter((name) => cached.has(name)).length;
      if (total - hit + revived > blocks - inUse) return false;
      if (prefixCaching) {
        stats.queries += tokens;
        stats.hits += hit * blockSize;
      }
      for (const name of names.slice(0, hit)) {
        if (cached.delete(name)) inUse += 1;
        held.set(name, (held.get(name) ?? 0) + 1);
      }
      takeFresh(total - hit);
      // The prompt's full blocks computed now get their names (held from now on); one
      // whose name another block has already (computed twice meanwhile) stays unnamed.
      const fullPrompt = Math.min(names.length, Math.floor(tokens / blockSize));
      const named = names.slice(0, hit);
      for (const name of names.slice(hit, fullPrompt)) {
        if (held.has(name) || cached.has(name)) continue;
        held.set(name, 1);
        named.push(name);
      }
      seq.names = named;
      seq.plainBlocks = total - named.length;
      seq.cachedTokens = hit * blockSize;
      return true;
    },

    /** One more block for `seq` if `tokens` need it; false when none is free. */
    grow(seq, tokens) {
      const need = Math.ceil(tokens / blockSize) - seq.names.length - seq.plainBlocks;
      if (need <= 0) return true;
      if (need > blocks - inUse) return false;
      takeFresh(need);
      seq.plainBlocks += need;
      return true;
    },

    /** Gives back the blocks of `seq`; its named ones stay cached. */
    release(seq) {
      for (const name of seq.names ?? []) {
        const count = held.get(name) - 1;
        if (count > 0) {
          held.set(name, count);
          continue;
        }
        held.delete(name);
        inUse -= 1;
        if (prefixCaching) cached.add(name);
      }
      inUse -= seq.plainBlocks ?? 0;
      seq.names = [];
      seq.plainBlocks = 0;
    },
  };
}

/** Each full block's name: the hash of its tokens and of the block before it. */
function blockNames(tokens, blockSize) {
  const names = [];
  let parent = '';
  for (let end = blockSize; end <= tokens.length; end += blockSize) {
    parent = createHash('sha1')
      .update(parent)
      .update('\u0000')
      .update(tokens.slice(end - blockSize, end).join(' '))
      .digest('hex');
    names.push(parent);
  }
  return names;
}

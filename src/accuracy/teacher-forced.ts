// Teacher forcing over the completions API. vllm-neuron returns no prompt log-probabilities,
// so a pass cannot score the reference's tokens in one prefill; instead it decodes greedily
// from the prompt and, where its token differs from the reference's, starts again from the
// prompt and the reference's tokens up to and including that position (as NxD Inference's
// logit matching does). Every position is then scored with the reference's text before it,
// and a flip early in an answer costs one request more, not the rest of the answer.

import type { ScoredPosition } from './agreement.js';

/** A server that continues a prompt greedily and scores each position (completions-client.ts). */
export interface Scorer {
  complete(promptIds: readonly number[], maxTokens: number): Promise<ScoredPosition[]>;
}

/** The answer to `promptIds` scored at every position of `reference`, with its text as context. */
export async function teacherForced(
  scorer: Scorer,
  promptIds: readonly number[],
  reference: readonly ScoredPosition[],
): Promise<{ positions: ScoredPosition[]; requests: number }> {
  const positions: ScoredPosition[] = [];
  let requests = 0;
  while (positions.length < reference.length) {
    const from = positions.length;
    const context = [...promptIds, ...reference.slice(0, from).map((p) => p.token)];
    const answer = await scorer.complete(context, reference.length - from);
    requests += 1;
    if (answer.length !== reference.length - from) {
      throw new Error(
        `the server answered ${answer.length} token(s) where ${reference.length - from} were asked for`,
      );
    }
    for (const [i, position] of answer.entries()) {
      positions.push(position);
      // Past a flip the answer continues its own text, not the reference's.
      if (position.token !== reference[from + i]!.token) break;
    }
  }
  return { positions, requests };
}

// The simulator's token model (examples/simulated-inf2/lib/token-model.mjs, plain
// JavaScript) with the types the benches use, and a Scorer over it: what the simulated
// `vllm serve` answers, without the HTTP.
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import * as model from '../examples/simulated-inf2/lib/token-model.mjs';
import type { ScoredPosition } from '../src/accuracy/agreement.js';
import type { Scorer } from '../src/accuracy/teacher-forced.js';

interface Candidate {
  id: number;
  logprob: number;
}

export interface TokenBuild {
  flips: number;
  spread: number;
  jitter: number;
}

export const tokenize: (text: string) => number[] = model.tokenize;

/** A server of `build` whose run-to-run jitter comes from `uniform`, answering top-`k`. */
export function simulatedScorer(build: TokenBuild, k: number, uniform: () => number): Scorer {
  const settings = model.tokenSettings({ model: 'Qwen/Qwen3-0.6B', ...build, noise: uniform });
  return {
    complete: (promptIds, maxTokens) => {
      const positions = model.greedy(promptIds, maxTokens, settings) as Candidate[][];
      return Promise.resolve(positions.map((candidates) => scored(candidates, k)));
    },
  };
}

function scored(candidates: Candidate[], k: number): ScoredPosition {
  return {
    token: candidates[0]!.id,
    top: new Map(candidates.slice(0, k).map((c) => [c.id, c.logprob])),
  };
}

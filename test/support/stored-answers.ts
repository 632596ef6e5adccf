// Stored answers of the agreement check (model.ts: StoredAnswers) the size of the default
// prompt set's (48 prompts × 32 tokens × top-5), seeded, for the record and store tests.
import { encodeAnswers } from '../../src/accuracy/answer-codec.js';
import type { StoredAnswers } from '../../src/model.js';

export function answersOf(seed: number): StoredAnswers {
  let state = seed;
  const next = () => (state = (state * 48271) % 2147483647);
  const answers = Array.from({ length: 48 }, () =>
    Array.from({ length: 32 }, () => {
      const ids = Array.from({ length: 5 }, (_, i) => (next() % 30_000) * 5 + i);
      return { token: ids[0]!, top: new Map(ids.map((id, i) => [id, -0.1 - i * 1.37])) };
    }),
  );
  return {
    promptsSource: 'the default prompts',
    prompts: Array.from({ length: 48 }, (_, i) => `prompt ${i}`),
    promptIds: Array.from({ length: 48 }, (_, i) => [i, i + 1, i + 2]),
    maxTokens: 32,
    topK: 5,
    answers: encodeAnswers(answers),
    aa: Array.from({ length: 48 }, (_, i) => ({
      positions: 32,
      flips: i % 7 === 0 ? 1 : 0,
      firstFlip: i % 7 === 0 ? 5 : null,
      distance: 0.0004,
      overlap: 31.5,
    })),
    aaRequests: 55,
  };
}

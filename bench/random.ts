// The benches' seeded numbers: the gate's own generator (src/stats/rng.ts) under a seed
// of the bench's, so the synthetic data never share a stream with the gate's bootstrap.
// The same seed always gives the same numbers.
import { normal, seededRandom } from '../src/stats/rng.js';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal. */
  normal(): number;
}

export function createRng(seed: string): Rng {
  const random = seededRandom(`bench:${seed}`);
  return { next: () => random.next(), normal: () => normal(random) };
}

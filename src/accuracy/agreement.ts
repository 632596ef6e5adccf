// How one answer agrees with a reference answer, position by position. Both were produced
// with the reference's tokens as context (teacher-forced.ts), so each position compares
// two next-token distributions over the same text: whether the greedy token is the same
// (a flip when not), how much of the top-k the two share, and how far apart the two
// distributions are (1 − the Bhattacharyya coefficient over the top-k, the mass outside
// the top-k one bucket of its own, so that equal distributions are 0 apart).

/** One position of an answer: the greedy token and the top-k log-probabilities. */
export interface ScoredPosition {
  token: number;
  /** Token id → log-probability, the k most likely (and the greedy token). */
  top: ReadonlyMap<number, number>;
}

/** How one prompt's answer agreed with the reference's, summed over its positions. */
export interface PromptAgreement {
  positions: number;
  flips: number;
  /** The first position whose greedy token differs, or null. */
  firstFlip: number | null;
  /** Sum over positions of 1 − Bhattacharyya coefficient. */
  distance: number;
  /** Sum over positions of the share of the top-k both have. */
  overlap: number;
}

/** The agreement of `answer` with `reference`, position by position (same length). */
export function promptAgreement(
  reference: readonly ScoredPosition[],
  answer: readonly ScoredPosition[],
): PromptAgreement {
  if (reference.length !== answer.length) {
    throw new Error(`${answer.length} positions compared with ${reference.length}`);
  }
  let flips = 0;
  let firstFlip: number | null = null;
  let distance = 0;
  let overlap = 0;
  reference.forEach((expected, i) => {
    const got = answer[i]!;
    if (got.token !== expected.token) {
      flips += 1;
      firstFlip ??= i;
    }
    distance += 1 - bhattacharyya(expected.top, got.top);
    overlap += topOverlap(expected.top, got.top);
  });
  return { positions: reference.length, flips, firstFlip, distance, overlap };
}

/** Bhattacharyya coefficient of two top-k distributions, each one's rest one bucket. */
export function bhattacharyya(
  p: ReadonlyMap<number, number>,
  q: ReadonlyMap<number, number>,
): number {
  let shared = 0;
  for (const [token, logprob] of p) {
    const other = q.get(token);
    if (other !== undefined) shared += Math.exp((logprob + other) / 2);
  }
  const tail = Math.sqrt(restOf(p) * restOf(q));
  return Math.min(1, shared + tail);
}

function restOf(top: ReadonlyMap<number, number>): number {
  let mass = 0;
  for (const logprob of top.values()) mass += Math.exp(logprob);
  return Math.max(0, 1 - mass);
}

/** The share of the smaller top-k that the other has too. */
export function topOverlap(p: ReadonlyMap<number, number>, q: ReadonlyMap<number, number>): number {
  const k = Math.min(p.size, q.size);
  if (k === 0) return 1;
  const [small, large] = p.size <= q.size ? [p, q] : [q, p];
  let both = 0;
  for (const token of small.keys()) if (large.has(token)) both += 1;
  return both / k;
}

/** Every prompt's agreement summed: positions, flips, distance, overlap. */
export function totalAgreement(
  prompts: readonly PromptAgreement[],
): Omit<PromptAgreement, 'firstFlip'> {
  const total = { positions: 0, flips: 0, distance: 0, overlap: 0 };
  for (const prompt of prompts) {
    total.positions += prompt.positions;
    total.flips += prompt.flips;
    total.distance += prompt.distance;
    total.overlap += prompt.overlap;
  }
  return total;
}

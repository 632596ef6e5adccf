// Whether the head's answers moved further from the reference than the reference's own
// build does from itself. Three passes over one prompt set, all teacher-forced on the
// reference answers (teacher-forced.ts): the reference pass itself, a second pass of the
// same build (A/A: its own nondeterminism, near ties that go either way), and the head's.
// The A/A and head passes compare the same positions, so their difference is paired by
// prompt; prompts are the unit (flips cluster within a prompt), and the interval of the
// difference is the cluster-robust one of a ratio estimator, with Student's t on
// prompts − 1 degrees of freedom. The head regresses when the whole interval lies beyond
// the margin, for the share of flipped tokens or for the mean distance.

import { studentTQuantile } from '../stats/distributions.js';
import type { PromptAgreement } from './agreement.js';

/** How far the head may drift beyond A/A before it fails. */
export interface AgreementMargins {
  /** Share of tokens (0.005 = half a point of the positions compared). */
  flips: number;
  /** Mean 1 − Bhattacharyya coefficient a position. */
  distance: number;
}

export const DEFAULT_AGREEMENT_MARGINS: AgreementMargins = { flips: 0.005, distance: 0.01 };

export type AgreementVerdict = 'pass' | 'regression' | 'inconclusive';

/** One figure (flips or distance) of A/A and of the head, and their paired difference. */
export interface AgreementFigure {
  /** A/A: the reference build against itself, per position. */
  reference: number;
  head: number;
  /** head − reference, and its interval. */
  change: number;
  ci: [number, number];
  margin: number;
  verdict: AgreementVerdict;
}

export interface AgreementJudgement {
  prompts: number;
  positions: number;
  flips: AgreementFigure;
  distance: AgreementFigure;
  verdict: AgreementVerdict;
}

/** Judges the head's pass against the A/A pass, prompt by prompt. */
export function judgeAgreement(
  aa: readonly PromptAgreement[],
  head: readonly PromptAgreement[],
  { margins, confidence }: { margins: AgreementMargins; confidence: number },
): AgreementJudgement {
  if (aa.length !== head.length || aa.length < 2) {
    throw new Error(
      `agreement needs the same prompts on both passes, 2 at least (got ${aa.length} and ${head.length})`,
    );
  }
  const sizes = aa.map((prompt, i) => {
    if (prompt.positions !== head[i]!.positions)
      throw new Error(`prompt ${i + 1}: passes of different lengths`);
    return prompt.positions;
  });
  const flips = pairedFigure(
    sizes,
    aa.map((p) => p.flips),
    head.map((p) => p.flips),
    margins.flips,
    confidence,
  );
  const distance = pairedFigure(
    sizes,
    aa.map((p) => p.distance),
    head.map((p) => p.distance),
    margins.distance,
    confidence,
  );
  return {
    prompts: aa.length,
    positions: sizes.reduce((sum, n) => sum + n, 0),
    flips,
    distance,
    verdict: worse(flips.verdict, distance.verdict),
  };
}

function pairedFigure(
  sizes: readonly number[],
  reference: readonly number[],
  head: readonly number[],
  margin: number,
  confidence: number,
): AgreementFigure {
  const positions = sizes.reduce((sum, n) => sum + n, 0);
  const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
  const referenceRate = sum(reference) / positions;
  const headRate = sum(head) / positions;
  const change = headRate - referenceRate;
  // Cluster-robust variance of the ratio estimator Σd / Σm, the clusters being prompts.
  const n = sizes.length;
  let squares = 0;
  sizes.forEach((size, i) => {
    const residual = head[i]! - reference[i]! - change * size;
    squares += residual * residual;
  });
  const se = Math.sqrt((n / (n - 1)) * squares) / positions;
  const t = studentTQuantile(1 - (1 - confidence) / 2, n - 1);
  const ci: [number, number] = [change - t * se, change + t * se];
  const verdict: AgreementVerdict =
    ci[0] > margin ? 'regression' : change > margin ? 'inconclusive' : 'pass';
  return { reference: referenceRate, head: headRate, change, ci, margin, verdict };
}

function worse(a: AgreementVerdict, b: AgreementVerdict): AgreementVerdict {
  const order: AgreementVerdict[] = ['pass', 'inconclusive', 'regression'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))]!;
}

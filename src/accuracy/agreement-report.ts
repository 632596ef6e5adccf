// The agreement check's figures as report.json and the comment show them.

import type { AccuracySpec } from '../config/types.js';
import type { AgreementReport, AgreementSides, BenchmarkReport } from '../model.js';
import { totalAgreement, type PromptAgreement } from './agreement.js';
import type { AgreementFigure, AgreementJudgement } from './agreement-verdict.js';

/** The head's prompts a report lists, most flips first. */
const WORST_PROMPTS = 5;

export function agreementReport(
  accuracy: AccuracySpec,
  judged: AgreementJudgement,
  passes: {
    reference: string;
    aa: readonly PromptAgreement[];
    head: readonly PromptAgreement[];
    requests: AgreementReport['requests'];
    retokenized: number;
    /** Stored mode's words for the two sides: "this run", "the stored run". */
    sides?: AgreementSides;
  },
): AgreementReport {
  const aa = totalAgreement(passes.aa);
  const head = totalAgreement(passes.head);
  const report: Omit<AgreementReport, 'reason'> = {
    reference: passes.reference,
    promptsSource: accuracy.promptsSource,
    prompts: judged.prompts,
    positions: judged.positions,
    maxTokens: accuracy.maxTokens,
    topK: accuracy.topK,
    flips: figure(judged.flips),
    distance: figure(judged.distance),
    overlap: { reference: aa.overlap / aa.positions, head: head.overlap / head.positions },
    firstToken: {
      reference: passes.aa.filter((p) => p.firstFlip === 0).length,
      head: passes.head.filter((p) => p.firstFlip === 0).length,
    },
    worstPrompts: worstPrompts(passes.head),
    requests: passes.requests,
    verdict: passes.retokenized > 0 ? 'regression' : judged.verdict,
    ...(passes.sides ? { sides: passes.sides } : {}),
  };
  return { ...report, reason: reasonOf(report, passes.retokenized) };
}

/** The check could not run (no log-probabilities, a server that did not start): an error. */
export function unavailableReport(
  accuracy: AccuracySpec,
  reference: string,
  why: string,
): AgreementReport {
  const none = {
    reference: 0,
    head: 0,
    change: 0,
    ci: [0, 0] as [number, number],
    verdict: 'pass' as const,
  };
  return {
    reference,
    promptsSource: accuracy.promptsSource,
    prompts: accuracy.prompts.length,
    positions: 0,
    maxTokens: accuracy.maxTokens,
    topK: accuracy.topK,
    flips: { ...none, margin: accuracy.margins.flips },
    distance: { ...none, margin: accuracy.margins.distance },
    overlap: { reference: 0, head: 0 },
    firstToken: { reference: 0, head: 0 },
    worstPrompts: [],
    requests: { reference: 0, aa: 0, head: 0 },
    verdict: 'error',
    reason: `the agreement check could not run: ${why}`,
  };
}

function figure(judged: AgreementFigure): AgreementReport['flips'] {
  return { ...judged, ci: [judged.ci[0], judged.ci[1]] };
}

function worstPrompts(head: readonly PromptAgreement[]): AgreementReport['worstPrompts'] {
  return head
    .map((p, i) => ({ prompt: i + 1, flips: p.flips, firstFlip: p.firstFlip }))
    .filter(
      (p): p is { prompt: number; flips: number; firstFlip: number } =>
        p.flips > 0 && p.firstFlip !== null,
    )
    .sort((a, b) => b.flips - a.flips || a.prompt - b.prompt)
    .slice(0, WORST_PROMPTS);
}

function share(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function points(value: number): string {
  return `${(value * 100).toFixed(1)} points`;
}

/** The two sides in words: A/B's by default. */
export function sidesOf(report: Pick<AgreementReport, 'sides'>): AgreementSides {
  return report.sides ?? { head: 'the head', base: 'the base' };
}

function reasonOf(report: Omit<AgreementReport, 'reason'>, retokenized: number): string {
  const { head, base } = sidesOf(report);
  if (retokenized > 0) {
    return `${head}'s tokenizer splits ${retokenized} of ${report.prompts} prompts otherwise than ${base}'s: its answers cannot be compared token by token`;
  }
  const { flips, distance } = report;
  const flipped = `${head} flips ${share(flips.head)} of ${report.positions} tokens, ${base} against itself ${share(flips.reference)}`;
  if (flips.verdict === 'regression') {
    return `${flipped}: ${points(flips.ci[0])} more at least, beyond the margin of ${points(flips.margin)}`;
  }
  if (distance.verdict === 'regression') {
    return `${head}'s distributions are ${distance.head.toFixed(4)} from ${base}'s (1 − Bhattacharyya), ${base}'s own ${distance.reference.toFixed(4)}: more than ${distance.margin} beyond`;
  }
  if (report.verdict === 'inconclusive')
    return `${flipped}: beyond the margin, but not beyond doubt`;
  return `${flipped}: within the margin of ${points(flips.margin)}`;
}

/** The report with the check, its verdict failing the benchmark when the answers moved. */
export function withAgreement(
  report: BenchmarkReport,
  agreement: AgreementReport,
  failOnInconclusive: boolean,
): BenchmarkReport {
  const fails =
    agreement.verdict === 'regression' ||
    (failOnInconclusive && agreement.verdict === 'inconclusive');
  if (agreement.verdict === 'error' && report.verdict !== 'error') {
    return { ...report, agreement, verdict: 'error', error: agreement.reason };
  }
  return fails && report.verdict === 'pass'
    ? { ...report, agreement, verdict: 'regression' }
    : { ...report, agreement };
}

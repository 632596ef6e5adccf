// The agreement check of one benchmark, base against head: three passes of its prompt set,
// each on a server started for it (base, head, base again, so that the A/A pass has a start
// of its own as the head's has, and drift between the starts falls on both). The base's
// first pass answers freely and is the reference; the head's and the base's second are
// teacher-forced on it and compared (passes.ts), then judged (agreement-verdict.ts).

import type { AccuracySpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { AgreementReport } from '../model.js';
import type { ScoredPosition } from './agreement.js';
import { agreementReport, unavailableReport } from './agreement-report.js';
import { judgeAgreement } from './agreement-verdict.js';
import { AgreementUnavailable, completionsScorer, servedModel } from './completions-client.js';
import { comparedPass, referencePass } from './passes.js';

/** A side's server, started for one pass and stopped after it. */
export interface ServedSide {
  /** The server's origin on loopback. */
  origin: string;
  serve<T>(purpose: string, use: () => Promise<T>): Promise<T>;
}

export interface CheckOptions {
  /** "the base side's answers (main)". */
  reference: string;
  confidence: number;
  log: Logger;
  /** Each pass's bound, its server's start aside: the benchmark's timeout-minutes. */
  passTimeoutMs: number;
}

export async function checkAgreement(
  accuracy: AccuracySpec,
  sides: { base: ServedSide; head: ServedSide },
  options: CheckOptions,
): Promise<AgreementReport> {
  const pass = <T>(side: ServedSide, purpose: string, work: () => Promise<T>) =>
    servedPass(side, purpose, options.passTimeoutMs, work);
  try {
    const base = await pass(sides.base, "the base's reference answers", () =>
      referenceOf(accuracy, sides.base),
    );
    const head = await pass(sides.head, "the head's answers", () =>
      comparedOn(accuracy, sides.head, base),
    );
    const aa = await pass(sides.base, "the base's answers again (A/A)", () =>
      comparedOn(accuracy, sides.base, base),
    );
    const judged = judgeAgreement(aa.agreements, head.agreements, {
      margins: accuracy.margins,
      confidence: options.confidence,
    });
    return agreementReport(accuracy, judged, {
      reference: options.reference,
      aa: aa.agreements,
      head: head.agreements,
      requests: { reference: base.prompts.length, aa: aa.requests, head: head.requests },
      retokenized: head.retokenized,
    });
  } catch (error) {
    options.log.warning(`the agreement check could not finish: ${errorMessage(error)}`);
    return unavailableReport(accuracy, options.reference, errorMessage(error));
  }
}

/** `work` on a server of `side` started for it, within `timeoutMs`; its error names the pass. */
export function servedPass<T>(
  side: ServedSide,
  purpose: string,
  timeoutMs: number,
  work: () => Promise<T>,
): Promise<T> {
  return side
    .serve(purpose, () => within(work(), timeoutMs))
    .catch((error: unknown) => {
      throw new AgreementUnavailable(`${purpose}: ${errorMessage(error)}`);
    });
}

/** `work`, or an error once `ms` have passed: a server that answers slowly stops the pass. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`not done within ${ms / 60_000} min (the benchmark's timeout-minutes)`)),
      ms,
    );
  });
  // The pass's own end, once its server is stopped, is of no more interest.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The reference answers, each prompt as the reference's server tokenized it. */
export interface Reference {
  prompts: number[][];
  answers: ScoredPosition[][];
}

async function scorerOf(accuracy: AccuracySpec, side: ServedSide) {
  const timeoutMs = accuracy.requestTimeoutSeconds * 1000;
  const model = accuracy.model ?? (await servedModel(side.origin, timeoutMs));
  return completionsScorer({ origin: side.origin, model, topK: accuracy.topK, timeoutMs });
}

export async function referenceOf(accuracy: AccuracySpec, side: ServedSide): Promise<Reference> {
  const scorer = await scorerOf(accuracy, side);
  const prompts: number[][] = [];
  for (const prompt of accuracy.prompts) prompts.push(await scorer.tokenize(prompt));
  return { prompts, answers: await referencePass(scorer, prompts, accuracy.maxTokens) };
}

/**
 * A pass teacher-forced on the reference. The prompts go as the reference's token ids; a
 * server whose tokenizer splits them otherwise is counted (its answers are still scored on
 * the reference's ids, which its model may read otherwise).
 */
export async function comparedOn(accuracy: AccuracySpec, side: ServedSide, reference: Reference) {
  const scorer = await scorerOf(accuracy, side);
  let retokenized = 0;
  for (const [i, prompt] of accuracy.prompts.entries()) {
    const own = await scorer.tokenize(prompt);
    if (own.join(',') !== reference.prompts[i]!.join(',')) retokenized += 1;
  }
  const pass = await comparedPass(scorer, reference.prompts, reference.answers);
  return { ...pass, retokenized };
}

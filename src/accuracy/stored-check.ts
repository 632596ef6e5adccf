// The agreement check against stored answers (stored mode, `accuracy:`). A run that stores
// its results answers the prompt set twice, each on a server started for it: its reference,
// then its own repeat teacher-forced on it (its A/A). Both are kept with its record. A later
// run, a pull request's or the next night's, is teacher-forced on the baseline's stored
// answers and judged against that stored A/A (agreement-verdict.ts), as A/B's head is
// against its base's. A pull request's run never makes answers: what it is compared with
// comes only from runs that store results.

import type { AccuracySpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { AgreementReport, StoredAnswers } from '../model.js';
import type { PromptAgreement } from './agreement.js';
import { agreementReport, unavailableReport } from './agreement-report.js';
import { judgeAgreement } from './agreement-verdict.js';
import {
  decodeAnswers,
  encodeAnswers,
  MAX_STORED_ANSWER_TEXT,
  roundedAnswers,
} from './answer-codec.js';
import { comparedOn, referenceOf, servedPass, type Reference, type ServedSide } from './check.js';

export interface StoredCheckOptions {
  log: Logger;
  confidence: number;
  /** Each pass's bound, its server's start aside: the benchmark's timeout-minutes. */
  passTimeoutMs: number;
  /** This run stores its results (never a pull request's): it answers for the next. */
  makesAnswers: boolean;
}

export interface StoredCheck {
  /** This run against the stored answers; none when there were none to compare with. */
  agreement?: AgreementReport;
  /** This run's answers and A/A, for its record. */
  answers?: StoredAnswers;
  /** What the check could not do, for the benchmark's report. */
  warnings: string[];
}

export async function storedAgreement(
  accuracy: AccuracySpec,
  stored: StoredAnswers | undefined,
  server: ServedSide,
  options: StoredCheckOptions,
): Promise<StoredCheck> {
  const warnings: string[] = [];
  const reference = stored && readStored(stored, accuracy, warnings);
  const agreement = reference
    ? await againstStored(accuracy, reference, server, options)
    : undefined;
  if (!stored && !options.makesAnswers) warnings.push(NO_ANSWERS_YET);
  if (!options.makesAnswers || agreement?.verdict === 'error') return { agreement, warnings };
  const answers = await answersOfThisRun(accuracy, server, options, warnings);
  return { ...(agreement ? { agreement } : {}), ...(answers ? { answers } : {}), warnings };
}

const NO_ANSWERS_YET =
  'accuracy: no stored answers to compare with yet; the next run that stores results (a push to the default branch, the nightly run) keeps them';

/** The stored answers as a reference, with the spec they were answered under; undefined when unreadable. */
function readStored(
  stored: StoredAnswers,
  accuracy: AccuracySpec,
  warnings: string[],
): { spec: AccuracySpec; reference: Reference; stored: StoredAnswers } | undefined {
  const origin = originOf(stored);
  try {
    if (
      stored.promptIds.length !== stored.prompts.length ||
      stored.aa.length !== stored.prompts.length
    ) {
      throw new Error(
        `${stored.prompts.length} prompts but ${stored.promptIds.length} tokenized and ${stored.aa.length} A/A figures`,
      );
    }
    const answers = decodeAnswers(stored.answers, {
      prompts: stored.prompts.length,
      maxTokens: stored.maxTokens,
      topK: stored.topK,
    });
    if (stored.prompts.join('\u0000') !== accuracy.prompts.join('\u0000')) {
      warnings.push(
        `accuracy: the check ran on the prompts stored with ${origin} (${stored.promptsSource}), which differ from ${accuracy.promptsSource} now; the next run that stores results keeps the new ones`,
      );
    }
    const spec: AccuracySpec = {
      ...accuracy,
      prompts: stored.prompts,
      promptsSource: stored.promptsSource,
      maxTokens: stored.maxTokens,
      topK: stored.topK,
    };
    return { spec, reference: { prompts: stored.promptIds, answers }, stored };
  } catch (error) {
    warnings.push(
      `accuracy: the answers stored with ${origin} could not be read (${errorMessage(error)}), so this run's answers were not compared; the next run that stores results keeps new ones`,
    );
    return undefined;
  }
}

function originOf(stored: StoredAnswers): string {
  if (!stored.from) return 'the baseline';
  return `the baseline's run of ${stored.from.commit.slice(0, 7)} (${stored.from.createdAt.slice(0, 10)})`;
}

/** One pass teacher-forced on the stored answers, judged against the stored A/A. */
async function againstStored(
  accuracy: AccuracySpec,
  read: { spec: AccuracySpec; reference: Reference; stored: StoredAnswers },
  server: ServedSide,
  options: StoredCheckOptions,
): Promise<AgreementReport> {
  const label = `the answers stored with ${originOf(read.stored)}`;
  try {
    const head = await servedPass(server, "this run's answers", options.passTimeoutMs, () =>
      comparedOn(read.spec, server, read.reference),
    );
    const aa: PromptAgreement[] = read.stored.aa;
    const judged = judgeAgreement(aa, head.agreements, {
      margins: accuracy.margins,
      confidence: options.confidence,
    });
    return agreementReport(read.spec, judged, {
      reference: label,
      aa,
      head: head.agreements,
      requests: {
        reference: read.stored.prompts.length,
        aa: read.stored.aaRequests,
        head: head.requests,
      },
      retokenized: head.retokenized,
      sides: { head: 'this run', base: 'the stored run' },
    });
  } catch (error) {
    options.log.warning(`the agreement check could not finish: ${errorMessage(error)}`);
    return unavailableReport(read.spec, label, errorMessage(error));
  }
}

/** This run's reference and its A/A on a second start; none, with a warning, when either fails. */
async function answersOfThisRun(
  accuracy: AccuracySpec,
  server: ServedSide,
  options: StoredCheckOptions,
  warnings: string[],
): Promise<StoredAnswers | undefined> {
  try {
    const answered = await servedPass(server, 'the answers to store', options.passTimeoutMs, () =>
      referenceOf(accuracy, server),
    );
    const packed = encodeAnswers(answered.answers);
    if (packed.length > MAX_STORED_ANSWER_TEXT) {
      throw new Error(
        `they take ${kib(packed.length)} packed, more than the ${kib(MAX_STORED_ANSWER_TEXT)} a record keeps: give fewer prompts, max-tokens or top-k (${accuracy.prompts.length} × ${accuracy.maxTokens} × top-${accuracy.topK} now), or compare with A/B`,
      );
    }
    // Rounded as they are stored, before the repeat is scored on them.
    const reference = { ...answered, answers: roundedAnswers(answered.answers) };
    const aa = await servedPass(server, 'the answers again (A/A)', options.passTimeoutMs, () =>
      comparedOn(accuracy, server, reference),
    );
    return {
      promptsSource: accuracy.promptsSource,
      prompts: [...accuracy.prompts],
      promptIds: reference.prompts,
      maxTokens: accuracy.maxTokens,
      topK: accuracy.topK,
      answers: packed,
      aa: aa.agreements,
      aaRequests: aa.requests,
    };
  } catch (error) {
    warnings.push(
      `accuracy: this run's answers were not kept for later runs: ${errorMessage(error)}`,
    );
    return undefined;
  }
}

function kib(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`;
}

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
import { readStoredAnswers } from './stored-answers-schema.js';
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
  stored: unknown,
  server: ServedSide,
  options: StoredCheckOptions,
): Promise<StoredCheck> {
  const warnings: string[] = [];
  const reference = stored === undefined ? undefined : readStored(stored, accuracy, warnings);
  const agreement = reference
    ? await againstStored(accuracy, reference, server, options)
    : undefined;
  if (stored === undefined && !options.makesAnswers) warnings.push(NO_STORED_ANSWERS);
  if (!options.makesAnswers || agreement?.verdict === 'error') return { agreement, warnings };
  const made = await answersOfThisRun(accuracy, server, options, warnings);
  // Answers this run could not make: the ones it passed against are kept on, so that a
  // baseline file saved from it still has a reference.
  const kept = made ?? (agreement?.verdict === 'pass' ? reference?.stored : undefined);
  if (!made && kept)
    warnings.push(`accuracy: the stored answers of ${originOf(kept)} are kept instead`);
  return { ...(agreement ? { agreement } : {}), ...(kept ? { answers: kept } : {}), warnings };
}

const NO_STORED_ANSWERS =
  'accuracy: the baseline holds no answers to compare with; a run that stores results keeps them (a push to the default branch or the nightly run; outside GitHub, `run --save-baseline`)';

/** The stored answers as a reference, with the spec they were answered under; undefined when unreadable. */
function readStored(
  value: unknown,
  accuracy: AccuracySpec,
  warnings: string[],
): { spec: AccuracySpec; reference: Reference; stored: StoredAnswers } | undefined {
  const read = readStoredAnswers(value);
  try {
    if (!read.ok) throw new Error(read.problem);
    const stored = read.answers;
    const answers = decodeAnswers(stored.answers, {
      prompts: stored.prompts.length,
      maxTokens: stored.maxTokens,
      topK: stored.topK,
    });
    const changed = settingsChanged(stored, accuracy);
    if (changed) {
      warnings.push(
        `accuracy: the check ran on ${changed} stored with ${originOf(stored)}; the next run that stores results keeps this run's`,
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
    const origin = read.ok ? ` with ${originOf(read.answers)}` : '';
    warnings.push(
      `accuracy: the answers stored${origin} could not be read (${errorMessage(error)}), so this run's answers were not compared; the next run that stores results keeps new ones`,
    );
    return undefined;
  }
}

/** What of the stored prompts and settings differs from the config's, in words; undefined when nothing. */
function settingsChanged(stored: StoredAnswers, accuracy: AccuracySpec): string | undefined {
  const changed: string[] = [];
  if (stored.prompts.join('\u0000') !== accuracy.prompts.join('\u0000')) {
    const source =
      stored.promptsSource === accuracy.promptsSource
        ? `this version's ${accuracy.promptsSource}`
        : accuracy.promptsSource;
    changed.push(
      `the prompts (${stored.prompts.length} of ${stored.promptsSource}, not ${source})`,
    );
  }
  if (stored.maxTokens !== accuracy.maxTokens) {
    changed.push(`max-tokens ${stored.maxTokens} (not ${accuracy.maxTokens})`);
  }
  if (stored.topK !== accuracy.topK) changed.push(`top-k ${stored.topK} (not ${accuracy.topK})`);
  return changed.length > 0 ? changed.join(', ') : undefined;
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

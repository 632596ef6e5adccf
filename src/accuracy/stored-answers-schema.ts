// The shape of stored answers (model.ts: StoredAnswers) as a run reads them back from a
// record or a baseline file: checked where they are used (stored-check.ts), not where the
// record is read, so a record whose answers are damaged keeps its timings.

import { z } from 'zod';
import { ACCURACY_LIMITS } from '../config/accuracy-schema.js';
import type { StoredAnswers } from '../model.js';
import { MAX_STORED_ANSWER_TEXT } from './answer-codec.js';

const whole = z.number().int().nonnegative();
const tokenId = whole.max(0xffffffff);
const share = (max: number) => z.number().min(0).max(max);

const promptAgreementSchema = z.object({
  positions: whole,
  flips: whole,
  firstFlip: whole.nullable(),
  distance: z.number().min(0),
  overlap: z.number().min(0),
});

export const storedAnswersSchema = z
  .object({
    promptsSource: z.string().min(1).max(1000),
    prompts: z.array(z.string()).min(ACCURACY_LIMITS.minPrompts).max(ACCURACY_LIMITS.prompts),
    promptIds: z.array(z.array(tokenId).min(1)),
    maxTokens: whole.min(1).max(ACCURACY_LIMITS.maxTokens),
    topK: whole.min(1).max(ACCURACY_LIMITS.topK),
    answers: z.string().max(MAX_STORED_ANSWER_TEXT),
    aa: z.array(promptAgreementSchema),
    aaRequests: whole,
    from: z.object({ commit: z.string().min(1), createdAt: z.string().min(1) }).optional(),
  })
  .superRefine((stored, context) => {
    const n = stored.prompts.length;
    for (const [field, length] of [
      ['promptIds', stored.promptIds.length],
      ['aa', stored.aa.length],
    ] as const) {
      if (length !== n) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `has ${length} entries for ${n} prompts`,
        });
      }
    }
    stored.aa.forEach((prompt, i) => {
      const problem = promptProblem(prompt, stored.maxTokens);
      if (problem) context.addIssue({ code: 'custom', path: ['aa', i], message: problem });
    });
    if (stored.aaRequests < n) {
      context.addIssue({
        code: 'custom',
        path: ['aaRequests'],
        message: `is ${stored.aaRequests}, fewer than one request a prompt (${n})`,
      });
    }
  });

/** What is wrong with one prompt's A/A figures, for answers of `maxTokens` positions. */
function promptProblem(
  prompt: z.infer<typeof promptAgreementSchema>,
  maxTokens: number,
): string | undefined {
  if (prompt.positions !== maxTokens) {
    return `scores ${prompt.positions} positions where the answers have ${maxTokens}`;
  }
  for (const [name, value] of [
    ['flips', prompt.flips],
    ['distance', prompt.distance],
    ['overlap', prompt.overlap],
  ] as const) {
    if (!share(prompt.positions).safeParse(value).success) {
      return `${name} is ${value}, outside 0 to its ${prompt.positions} positions`;
    }
  }
  const flipped = prompt.flips > 0;
  if ((prompt.firstFlip !== null) !== flipped || (prompt.firstFlip ?? 0) >= prompt.positions) {
    return `firstFlip ${prompt.firstFlip} does not fit ${prompt.flips} flips of ${prompt.positions} positions`;
  }
  return undefined;
}

/** The stored answers, or what is wrong with them: each problem with its field. */
export function readStoredAnswers(
  value: unknown,
): { ok: true; answers: StoredAnswers } | { ok: false; problem: string } {
  const parsed = storedAnswersSchema.safeParse(value);
  if (parsed.success) return { ok: true, answers: parsed.data };
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const field = ['answers', ...issue.path.map(String)].join('.');
    return `${field} ${issue.message}`;
  });
  return { ok: false, problem: problems.join('; ') };
}

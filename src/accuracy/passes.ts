// A pass is the prompt set sent once to one server, one prompt after another (a batch of
// one, so no other request shares its reductions). The reference pass decodes freely; every
// other pass is teacher-forced on the reference's answers and compared with them.

import { promptAgreement, type PromptAgreement, type ScoredPosition } from './agreement.js';
import { teacherForced, type Scorer } from './teacher-forced.js';

/** The reference build's answers, one per prompt. */
export async function referencePass(
  scorer: Scorer,
  prompts: readonly (readonly number[])[],
  maxTokens: number,
): Promise<ScoredPosition[][]> {
  const answers: ScoredPosition[][] = [];
  for (const prompt of prompts) {
    const answer = await scorer.complete(prompt, maxTokens);
    if (answer.length !== maxTokens) {
      throw new Error(
        `the server answered ${answer.length} token(s) where ${maxTokens} were asked for`,
      );
    }
    answers.push(answer);
  }
  return answers;
}

/** Each prompt's agreement with the reference, and the requests that took. */
export async function comparedPass(
  scorer: Scorer,
  prompts: readonly (readonly number[])[],
  reference: readonly (readonly ScoredPosition[])[],
): Promise<{ agreements: PromptAgreement[]; requests: number }> {
  const agreements: PromptAgreement[] = [];
  let requests = 0;
  for (const [i, prompt] of prompts.entries()) {
    const answer = await teacherForced(scorer, prompt, reference[i]!);
    agreements.push(promptAgreement(reference[i]!, answer.positions));
    requests += answer.requests;
  }
  return { agreements, requests };
}

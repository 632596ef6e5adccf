// bench:agreement — does the agreement check pass a build against itself and fail one whose
// answers changed? Each gate run is three passes of the default prompts on the simulator's
// token model (bench/simulator-token-model.ts: its near ties, and a per-request jitter of the
// log-probabilities as run-to-run nondeterminism): the base's reference pass, the base again
// (A/A), and the head, teacher-forced on the reference, then judged by judgeAgreement. The
// head is the base itself (A/A) or a build that flips a share of the greedy tokens. Beside it
// a plain reference on the same passes: a one-sided two-proportion z-test of the head's flip
// share against the A/A pass's, with the same margin, every token an independent trial.
// `--stored` runs the stored mode instead: the reference is rounded as a record keeps it
// (answer-codec.ts) before the stored run's A/A and the later run are scored on it.

import { parseArgs } from 'node:util';
import { totalAgreement, type PromptAgreement } from '../src/accuracy/agreement.js';
import { DEFAULT_AGREEMENT_MARGINS, judgeAgreement } from '../src/accuracy/agreement-verdict.js';
import { DEFAULT_PROMPTS } from '../src/config/default-prompts.js';
import { comparedPass, referencePass } from '../src/accuracy/passes.js';
import { roundedAnswers } from '../src/accuracy/answer-codec.js';
import { normalQuantile } from '../src/stats/distributions.js';
import { createRng } from './random.js';
import { simulatedScorer, tokenize, type TokenBuild } from './simulator-token-model.js';
import { rateWithInterval, table } from './text.js';

const CONFIDENCE = 0.95;

function options() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '1000' },
      'max-tokens': { type: 'string', default: '32' },
      'top-k': { type: 'string', default: '5' },
      jitter: { type: 'string', default: '0.001' },
      flips: { type: 'string', default: '0.01,0.02,0.05' },
      spread: { type: 'string', default: '0.3' },
      stored: { type: 'boolean', default: false },
    },
  });
  return {
    runs: Number(values.runs),
    maxTokens: Number(values['max-tokens']),
    k: Number(values['top-k']),
    jitter: Number(values.jitter),
    flips: values.flips.split(',').map(Number),
    spread: Number(values.spread),
    stored: values.stored,
  };
}

interface Outcome {
  failed: boolean;
  plainFailed: boolean;
  aaFlips: number;
  headFlips: number;
  positions: number;
}

async function gateRun(
  head: TokenBuild,
  seed: string,
  settings: ReturnType<typeof options>,
): Promise<Outcome> {
  const rng = createRng(seed);
  const uniform = () => rng.next();
  const base: TokenBuild = { flips: 0, spread: 0, jitter: settings.jitter };
  const prompts = DEFAULT_PROMPTS.map(tokenize);
  const answered = await referencePass(
    simulatedScorer(base, settings.k, uniform),
    prompts,
    settings.maxTokens,
  );
  const reference = settings.stored ? roundedAnswers(answered) : answered;
  const aa = await comparedPass(simulatedScorer(base, settings.k, uniform), prompts, reference);
  const changed = await comparedPass(
    simulatedScorer({ ...head, jitter: settings.jitter }, settings.k, uniform),
    prompts,
    reference,
  );
  const judged = judgeAgreement(aa.agreements, changed.agreements, {
    margins: DEFAULT_AGREEMENT_MARGINS,
    confidence: CONFIDENCE,
  });
  return {
    failed: judged.verdict === 'regression',
    plainFailed: plainTest(aa.agreements, changed.agreements),
    aaFlips: totalAgreement(aa.agreements).flips,
    headFlips: totalAgreement(changed.agreements).flips,
    positions: judged.positions,
  };
}

/** One-sided two-proportion z-test, tokens as independent trials, at the same level and margin. */
function plainTest(aa: readonly PromptAgreement[], head: readonly PromptAgreement[]): boolean {
  const a = totalAgreement(aa);
  const h = totalAgreement(head);
  const pa = a.flips / a.positions;
  const ph = h.flips / h.positions;
  const se = Math.sqrt((pa * (1 - pa)) / a.positions + (ph * (1 - ph)) / h.positions);
  const z = normalQuantile(1 - (1 - CONFIDENCE) / 2);
  return ph - pa - DEFAULT_AGREEMENT_MARGINS.flips > z * se && se > 0;
}

async function scenario(label: string, head: TokenBuild, settings: ReturnType<typeof options>) {
  let failed = 0;
  let plain = 0;
  let aaFlips = 0;
  let headFlips = 0;
  let positions = 0;
  for (let run = 0; run < settings.runs; run += 1) {
    const outcome = await gateRun(head, `${label}:${run}`, settings);
    failed += outcome.failed ? 1 : 0;
    plain += outcome.plainFailed ? 1 : 0;
    aaFlips += outcome.aaFlips;
    headFlips += outcome.headFlips;
    positions += outcome.positions;
  }
  return [
    label,
    rateWithInterval(failed, settings.runs),
    rateWithInterval(plain, settings.runs),
    `${((100 * aaFlips) / positions).toFixed(2)}%`,
    `${((100 * headFlips) / positions).toFixed(2)}%`,
  ];
}

async function main(): Promise<void> {
  const settings = options();
  const started = performance.now();
  const rows = [await scenario('A/A (same build)', { flips: 0, spread: 0, jitter: 0 }, settings)];
  for (const flips of settings.flips) {
    rows.push(
      await scenario(
        `${(flips * 100).toFixed(0)}% of top-1 tokens flipped`,
        { flips, spread: 0, jitter: 0 },
        settings,
      ),
    );
  }
  rows.push(
    await scenario(
      `spread ${settings.spread} (temperature ${1 + settings.spread})`,
      { flips: 0, spread: settings.spread, jitter: 0 },
      settings,
    ),
  );
  console.log(
    `bench:agreement${settings.stored ? ' --stored (against stored answers)' : ''} — ${settings.runs} gate runs a row, ${DEFAULT_PROMPTS.length} prompts × ${settings.maxTokens} tokens, top-${settings.k}, ` +
      `jitter ${settings.jitter} nats, margins ${DEFAULT_AGREEMENT_MARGINS.flips * 100} point of flips and ${DEFAULT_AGREEMENT_MARGINS.distance} of distance, ${CONFIDENCE * 100}%`,
  );
  console.log(
    table(
      ['head', 'gate fails (95% CI)', 'plain z-test fails (95% CI)', 'A/A flips', 'head flips'],
      rows,
    ),
  );
  console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

await main();

// storedAgreement (stored mode) on the simulated `vllm serve`, a real child process per
// pass: a run that stores results answers twice (its reference, then its A/A on a second
// start) and keeps both; a later run is scored on the stored answers in one pass and judged
// against the stored A/A; a pull request's run makes none; unreadable or changed stored
// answers are named, not trusted.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAnswers } from '../../src/accuracy/answer-codec.js';
import type { ServedSide } from '../../src/accuracy/check.js';
import { storedAgreement, type StoredCheckOptions } from '../../src/accuracy/stored-check.js';
import type { AccuracySpec } from '../../src/config/types.js';
import { DEFAULT_PROMPTS } from '../../src/config/default-prompts.js';
import type { Logger } from '../../src/log.js';
import type { StoredAnswers } from '../../src/model.js';
import { BIN, baseEnv } from '../simulator/helpers.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/ports.js';

const quiet = { info: () => undefined, warning: () => undefined } as unknown as Logger;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const accuracy = (port: number, extra: Partial<AccuracySpec> = {}): AccuracySpec => ({
  prompts: DEFAULT_PROMPTS.slice(0, 16),
  promptsSource: 'the default prompts',
  maxTokens: 16,
  topK: 5,
  origin: `http://127.0.0.1:${port}`,
  margins: { flips: 0.005, distance: 0.01 },
  requestTimeoutSeconds: 30,
  ...extra,
});

/** A server of the simulated build `env` started for each pass, its purposes in order. */
function simulated(port: number, env: Record<string, string> = {}) {
  const purposes: string[] = [];
  const side: ServedSide = {
    origin: `http://127.0.0.1:${port}`,
    async serve(purpose, use) {
      purposes.push(purpose);
      const child = spawn(
        process.execPath,
        [join(BIN, 'vllm'), 'serve', 'Qwen/Qwen3-0.6B', '--port', `${port}`],
        {
          env: baseEnv({ SIM_SERVE_STARTUP: '0', SIM_SERVE_SPEEDUP: '100', ...env }),
          stdio: 'ignore',
        },
      );
      children.push(child);
      const exited = new Promise((done) => child.once('exit', done));
      try {
        const ready = await until(
          async () => (await fetch(`${side.origin}/health`).catch(() => undefined))?.status === 200,
        );
        if (!ready) throw new Error('the simulated server did not become ready');
        return await use();
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
  return { side, purposes };
}

const options = (makesAnswers: boolean): StoredCheckOptions => ({
  log: quiet,
  confidence: 0.95,
  passTimeoutMs: 120_000,
  makesAnswers,
});
const cpuSampling = { NEURON_ON_DEVICE_SAMPLING_DISABLED: '1' };
const from = { commit: 'a'.repeat(40), createdAt: '2026-11-29T02:00:00.000Z' };

async function storedRun(port: number): Promise<StoredAnswers> {
  const { side, purposes } = simulated(port, cpuSampling);
  const check = await storedAgreement(accuracy(port), undefined, side, options(true));
  expect(purposes).toEqual(['the answers to store', 'the answers again (A/A)']);
  expect(check.agreement).toBeUndefined();
  expect(check.warnings).toEqual([]);
  return { ...check.answers!, from };
}

describe('the agreement check against stored answers', () => {
  it('keeps a storing run’s answers and its A/A, and passes the same build in one pass', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    expect(stored.prompts).toHaveLength(16);
    expect(stored.promptIds.every((ids) => ids.length > 0)).toBe(true);
    expect(stored.aa).toHaveLength(16);
    const aaFlips = stored.aa.reduce((sum, p) => sum + p.flips, 0);
    expect(aaFlips).toBeLessThan(4);
    const answers = decodeAnswers(stored.answers, { prompts: 16, maxTokens: 16, topK: 5 });
    expect(answers.flat()).toHaveLength(16 * 16);

    const { side, purposes } = simulated(port, cpuSampling);
    const check = await storedAgreement(accuracy(port), stored, side, options(false));
    expect(purposes).toEqual(["this run's answers"]);
    expect(check.answers).toBeUndefined();
    const agreement = check.agreement!;
    expect(agreement.verdict).toBe('pass');
    expect(agreement.reference).toBe(
      "the answers stored with the baseline's run of aaaaaaa (2026-11-29)",
    );
    expect(agreement.sides).toEqual({ head: 'this run', base: 'the stored run' });
    expect(agreement.reason).toMatch(
      /^this run flips .* of 256 tokens, the stored run against itself/,
    );
    expect(agreement.requests.aa).toBe(stored.aaRequests);
  });

  it('fails a build that flips a fifth of its tokens against the stored answers', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    const { side } = simulated(port, { ...cpuSampling, SIM_TOKEN_FLIPS: '0.2' });
    const check = await storedAgreement(accuracy(port), stored, side, options(false));
    expect(check.agreement!.verdict).toBe('regression');
    expect(check.agreement!.flips.head).toBeGreaterThan(0.1);
  });

  it('judges a storing run against the stored answers, then keeps its own', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    const { side, purposes } = simulated(port, cpuSampling);
    const check = await storedAgreement(accuracy(port), stored, side, options(true));
    expect(purposes).toEqual([
      "this run's answers",
      'the answers to store',
      'the answers again (A/A)',
    ]);
    expect(check.agreement!.verdict).toBe('pass');
    expect(check.answers!.from).toBeUndefined();
    expect(check.answers!.promptIds).toEqual(stored.promptIds);
  });

  it('starts no server for a pull request with nothing stored, and says when answers will be kept', async () => {
    const port = await freePort();
    const { side, purposes } = simulated(port);
    const check = await storedAgreement(accuracy(port), undefined, side, options(false));
    expect(purposes).toEqual([]);
    expect(check).toEqual({
      warnings: [
        'accuracy: the baseline holds no answers to compare with; a run that stores results keeps them (a push to the default branch or the nightly run; outside GitHub, `run --save-baseline`)',
      ],
    });
  });

  it('names stored answers it cannot read, compares nothing with them, and keeps new ones', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    const broken = { ...stored, answers: stored.answers.slice(0, 100) };
    const { side, purposes } = simulated(port, cpuSampling);
    const check = await storedAgreement(accuracy(port), broken, side, options(true));
    expect(purposes).toEqual(['the answers to store', 'the answers again (A/A)']);
    expect(check.agreement).toBeUndefined();
    expect(check.answers).toBeDefined();
    expect(check.warnings).toEqual([
      expect.stringMatching(
        /^accuracy: the answers stored with the baseline's run of aaaaaaa \(2026-11-29\) could not be read \(.+\), so this run's answers were not compared/,
      ),
    ]);
  });

  it('runs on the stored prompts and settings when the config now gives others, and says so', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    const { side } = simulated(port, cpuSampling);
    const changed = accuracy(port, {
      prompts: DEFAULT_PROMPTS.slice(16, 40),
      promptsSource: 'accuracy/prompts.jsonl',
      maxTokens: 8,
      topK: 3,
    });
    const check = await storedAgreement(changed, stored, side, options(false));
    expect(check.agreement!.prompts).toBe(16);
    expect(check.agreement!.positions).toBe(256);
    expect(check.agreement!.topK).toBe(5);
    expect(check.warnings).toEqual([
      "accuracy: the check ran on the prompts (16 of the default prompts, not accuracy/prompts.jsonl), max-tokens 16 (not 8), top-k 5 (not 3) stored with the baseline's run of aaaaaaa (2026-11-29); the next run that stores results keeps this run's",
    ]);
  });

  it('says so when only max-tokens changed, and when a new version changed the default prompts', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    const { side } = simulated(port, cpuSampling);
    const longer = await storedAgreement(
      accuracy(port, { maxTokens: 24 }),
      stored,
      side,
      options(false),
    );
    expect(longer.warnings).toEqual([
      expect.stringMatching(/^accuracy: the check ran on max-tokens 16 \(not 24\) stored with/),
    ]);
    const reworded = { ...stored, prompts: stored.prompts.map((p) => `${p} `) };
    const other = await storedAgreement(accuracy(port), reworded, side, options(false));
    expect(other.warnings).toEqual([
      expect.stringMatching(
        /^accuracy: the check ran on the prompts \(16 of the default prompts, not this version's the default prompts\) stored with/,
      ),
    ]);
  });

  it.each([
    [
      'a flip count above its positions',
      (s: StoredAnswers) => ({ ...s, aa: s.aa.map((p) => ({ ...p, flips: 99 })) }),
      /answers\.aa\.0 flips is 99, outside 0 to its 16 positions/,
    ],
    [
      'a commit that is not text',
      (s: StoredAnswers) => ({ ...s, from: { commit: 5, createdAt: 'x' } }),
      /answers\.from\.commit/,
    ],
    ['no prompts', (s: StoredAnswers) => ({ ...s, prompts: undefined }), /answers\.prompts/],
    [
      'a distance that is not a number',
      (s: StoredAnswers) => ({ ...s, aa: s.aa.map((p) => ({ ...p, distance: null })) }),
      /answers\.aa\.0\.distance/,
    ],
    [
      'token ids that are not whole',
      (s: StoredAnswers) => ({ ...s, promptIds: s.promptIds.map(() => [1.5]) }),
      /answers\.promptIds\.0\.0/,
    ],
    ['a top-k above 20', (s: StoredAnswers) => ({ ...s, topK: 50 }), /answers\.topK/],
    [
      'A/A figures of another length',
      (s: StoredAnswers) => ({ ...s, aa: s.aa.map((p) => ({ ...p, positions: 0 })) }),
      /answers\.aa\.0 scores 0 positions where the answers have 16/,
    ],
  ])(
    'names stored answers with %s, starts no server for them, and never passes on them',
    async (_what, damage, named) => {
      const port = await freePort();
      const stored = await storedRun(port);
      const { side, purposes } = simulated(port, cpuSampling);
      const check = await storedAgreement(accuracy(port), damage(stored), side, options(false));
      expect(purposes).toEqual([]);
      expect(check.agreement).toBeUndefined();
      expect(check.warnings).toEqual([
        expect.stringMatching(
          /^accuracy: the answers stored.* could not be read \(.+\), so this run's answers were not compared/,
        ),
      ]);
      expect(check.warnings[0]).toMatch(named);
    },
  );

  it('keeps the stored answers on when it passed against them and could not make its own', async () => {
    const port = await freePort();
    const stored = await storedRun(port);
    const { side: working, purposes } = simulated(port, cpuSampling);
    // The server starts for the check, then not again.
    let starts = 0;
    const side: ServedSide = {
      origin: working.origin,
      serve: (purpose, use) =>
        (starts += 1) === 1
          ? working.serve(purpose, use)
          : Promise.reject(new Error('the server did not start')),
    };
    const check = await storedAgreement(accuracy(port), stored, side, options(true));
    expect(purposes).toEqual(["this run's answers"]);
    expect(check.agreement!.verdict).toBe('pass');
    expect(check.answers).toEqual(stored);
    expect(check.warnings).toEqual([
      "accuracy: this run's answers were not kept for later runs: the answers to store: the server did not start",
      "accuracy: the stored answers of the baseline's run of aaaaaaa (2026-11-29) are kept instead",
    ]);
  });

  it('keeps no answers larger than a record holds, after one pass, saying what to change', async () => {
    const port = await freePort();
    const { side, purposes } = simulated(port, cpuSampling);
    const large = accuracy(port, {
      prompts: Array.from({ length: 120 }, (_, i) => `${DEFAULT_PROMPTS[i % 48]} (${i})`),
      maxTokens: 64,
      topK: 20,
    });
    const check = await storedAgreement(large, undefined, side, options(true));
    expect(purposes).toEqual(['the answers to store']);
    expect(check.answers).toBeUndefined();
    expect(check.warnings).toEqual([
      expect.stringMatching(
        /^accuracy: this run's answers were not kept for later runs: they take \d+ KiB packed, more than the 256 KiB a record keeps: give fewer prompts, max-tokens or top-k \(120 × 64 × top-20 now\), or compare with A\/B$/,
      ),
    ]);
  });
});

// "Answers" in the comment: a benchmark whose answers changed says so before any timing,
// and its overview row names the flipped tokens; answers that agree follow the table; the
// figures fold below the line.
import { describe, expect, it } from 'vitest';
import type { AgreementReport } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { withAgreement } from '../../src/accuracy/agreement-report.js';
import { benchmark, expectWellFormed, reportOf } from './support.js';

function agreement(verdict: AgreementReport['verdict'], head = 0.05): AgreementReport {
  const flips = {
    reference: 0.001,
    head,
    change: head - 0.001,
    ci: [head - 0.01, head + 0.01] as [number, number],
    margin: 0.005,
    verdict: verdict === 'error' ? ('pass' as const) : verdict,
  };
  return {
    reference: "the base side's answers (main)",
    promptsSource: 'the default 48 prompts',
    prompts: 48,
    positions: 1536,
    maxTokens: 32,
    topK: 5,
    flips,
    distance: {
      ...flips,
      reference: 0,
      head: 0.004,
      change: 0.004,
      ci: [0.002, 0.006],
      margin: 0.01,
      verdict: 'pass',
    },
    overlap: { reference: 1, head: 0.99 },
    firstToken: { reference: 0, head: 2 },
    worstPrompts: [{ prompt: 23, flips: 5, firstFlip: 3 }],
    requests: { reference: 48, aa: 50, head: 124 },
    verdict,
    reason:
      verdict === 'error'
        ? 'the agreement check could not run: no log-probabilities'
        : `the head flips ${(head * 100).toFixed(1)}% of 1536 tokens`,
  };
}

describe('the agreement in the comment', () => {
  it('leads a faster benchmark whose answers changed, and fails it', () => {
    const faster = benchmark('serve', { throughput: 0.1 });
    expect(faster.verdict).toBe('pass');
    const judged = withAgreement(faster, agreement('regression'), false);
    expect(judged.verdict).toBe('regression');
    const comment = renderComment(reportOf([judged, benchmark('other')]));
    expectWellFormed(comment);
    // Not headed a performance regression: nothing got slower.
    expect(comment.split('\n')[0]).toBe('## ❌ neuron-perf-gate: the answers changed');
    const section = comment.slice(comment.indexOf('<b>serve</b>'));
    expect(section.indexOf('❌ **Answers changed**')).toBeGreaterThan(0);
    expect(section.indexOf('❌ **Answers changed**')).toBeLessThan(section.indexOf('| Metric'));
    expect(comment).toMatch(/\| serve +\| ❌ regression \| answers: 5\.0% of tokens flipped \|/);
    expect(section).toContain('Prompts the head flipped most: #23 (5 flipped, first at token 3)');
  });

  it('heads a build both slower and answering differently with both', () => {
    const slower = benchmark('serve', { throughput: -0.2 });
    expect(slower.verdict).toBe('regression');
    const judged = withAgreement(slower, agreement('regression'), false);
    expect(renderComment(reportOf([judged])).split('\n')[0]).toBe(
      '## ❌ neuron-perf-gate: performance regression and changed answers',
    );
    const slowerOnly = withAgreement(slower, agreement('pass', 0.001), false);
    expect(renderComment(reportOf([slowerOnly])).split('\n')[0]).toBe(
      '## ❌ neuron-perf-gate: performance regression',
    );
  });

  it('follows the table when the answers agree, and leaves the verdict', () => {
    const judged = withAgreement(benchmark('serve'), agreement('pass', 0.001), false);
    expect(judged.verdict).toBe('pass');
    const comment = renderComment(reportOf([judged]));
    expect(comment.indexOf('✅ **Answers agree**')).toBeGreaterThan(comment.indexOf('| Metric'));
  });

  it('fails an inconclusive change only with fail-on-inconclusive', () => {
    expect(withAgreement(benchmark('serve'), agreement('inconclusive'), false).verdict).toBe(
      'pass',
    );
    expect(withAgreement(benchmark('serve'), agreement('inconclusive'), true).verdict).toBe(
      'regression',
    );
  });

  it('makes a check that could not run an error of the benchmark, with why', () => {
    const judged = withAgreement(benchmark('serve'), agreement('error'), false);
    expect(judged.verdict).toBe('error');
    expect(renderComment(reportOf([judged]))).toContain(
      '**Error:** the agreement check could not run: no log-probabilities',
    );
  });
});

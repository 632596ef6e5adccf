// "Answers": the agreement check of a benchmark in the comment (`accuracy:`). When the
// head's answers moved beyond their margin the line comes first in the benchmark's section,
// before any timing: a faster build that answers otherwise is not faster. The figures are
// folded below it; report.json has every prompt's worst.

import { markdownTable } from 'markdown-table';
import type { AgreementFigureReport, AgreementReport, BenchmarkReport } from '../model.js';
import { escapeMarkdown } from './escape.js';

/** Whether the check's line leads the section (it failed, or could not tell). */
export function agreementLeads(benchmark: BenchmarkReport): boolean {
  const verdict = benchmark.agreement?.verdict;
  return verdict === 'regression' || verdict === 'inconclusive';
}

/** The check's line and its folded figures; undefined without a check (or when it errored: the error says it). */
export function agreementSection(benchmark: BenchmarkReport): string | undefined {
  const agreement = benchmark.agreement;
  if (!agreement || agreement.verdict === 'error') return undefined;
  const badge =
    agreement.verdict === 'regression'
      ? '❌ **Answers changed**'
      : agreement.verdict === 'inconclusive'
        ? '❔ **Answers may have changed**'
        : '✅ **Answers agree**';
  const line = `${badge} — ${escapeMarkdown(agreement.reason)}.`;
  return `${line}\n\n<details><summary>Agreement with ${escapeMarkdown(agreement.reference)}</summary>\n\n${details(agreement)}\n\n</details>`;
}

/** "answers: 5.0% of tokens flipped", for the overview row of a benchmark that failed on them. */
export function agreementChangeText(benchmark: BenchmarkReport): string | undefined {
  const agreement = benchmark.agreement;
  if (!agreement || agreement.verdict !== 'regression') return undefined;
  return `answers: ${percent(agreement.flips.head)} of tokens flipped`;
}

function details(agreement: AgreementReport): string {
  // Stored mode names its sides ("this run", "the stored run"); A/B's are the head and base.
  const sides = agreement.sides ?? { head: 'the head', base: 'the base' };
  const [head, base] = [escapeMarkdown(sides.head), escapeMarkdown(sides.base)];
  const table = markdownTable(
    [
      [
        'Figure',
        `${capitalized(base)} vs itself`,
        capitalized(head),
        'Change',
        'Interval',
        'Margin',
      ],
      figureRow('Tokens flipped (greedy token differs)', agreement.flips, percent, points),
      figureRow('Distance (1 − Bhattacharyya, top-k)', agreement.distance, fixed, fixed),
      [
        `Top-${safeCount(agreement.topK)} overlap`,
        percent(agreement.overlap.reference),
        percent(agreement.overlap.head),
        points(agreement.overlap.head - agreement.overlap.reference),
        '—',
        'shown',
      ],
      [
        'Prompts whose first token flipped (prefill)',
        safeCount(agreement.firstToken.reference),
        safeCount(agreement.firstToken.head),
        '—',
        '—',
        'shown',
      ],
    ],
    { align: ['l', 'r', 'r', 'r', 'r', 'r'] },
  );
  const setup =
    `${safeCount(agreement.prompts)} prompts (${escapeMarkdown(agreement.promptsSource)}) × ${safeCount(agreement.maxTokens)} tokens, greedy, top-${safeCount(agreement.topK)} log-probabilities; ` +
    `each position scored with ${base}'s answer before it (teacher forcing: ${safeCount(agreement.requests.head)} requests for ${head}, ${safeCount(agreement.requests.aa)} for ${base}'s repeat).`;
  const worst = agreement.worstPrompts
    .map(
      (p) =>
        `#${safeCount(p.prompt)} (${safeCount(p.flips)} flipped, first at token ${safeCount(p.firstFlip)})`,
    )
    .join(', ');
  return [table, setup, ...(worst ? [`Prompts ${head} flipped most: ${worst}.`] : [])].join('\n\n');
}

function figureRow(
  label: string,
  figure: AgreementFigureReport,
  value: (n: number) => string,
  change: (n: number) => string,
): string[] {
  return [
    label,
    value(figure.reference),
    value(figure.head),
    change(figure.change),
    `${change(figure.ci[0])} to ${change(figure.ci[1])}`,
    change(figure.margin).replace(/^\+/, ''),
  ];
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function finite(n: number): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : NaN;
}

function percent(share: number): string {
  return `${(finite(share) * 100).toFixed(1)}%`;
}

function points(share: number): string {
  const n = finite(share) * 100;
  return `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(2)} pt`;
}

function fixed(n: number): string {
  const text = finite(n).toFixed(4);
  return text === '-0.0000' ? '0.0000' : text.replace(/^-/, '−');
}

function safeCount(n: number): string {
  return Number.isInteger(n) ? String(n) : '?';
}

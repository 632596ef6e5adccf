// "Where the device time went": a benchmark's operator diff in the comment. Shown only for
// a benchmark with a gated metric beyond its threshold (a regression, an improvement or a
// change the runs cannot tell): the op that explains most of the change in one line, the
// top ops folded below it, the collectives and each side's roofline. report.json has all.

import { markdownTable } from 'markdown-table';
import type { BenchmarkReport, CollectiveGroup, OpChange, OpDiff, ProfileDiff } from '../model.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import { formatBytes, formatChange, formatValue } from './numbers.js';

/** Ops shown per view in the comment. */
export const COMMENT_TOP_OPS = 5;

export function opDiffSection(benchmark: BenchmarkReport): string | undefined {
  const diff = benchmark.profileDiff;
  if (!diff || !movedBeyondThreshold(benchmark)) return undefined;
  // report.json may come from a pull request's run (comment mode): nothing taken on trust.
  const lead = diff.lead === 'kinds' ? diff.kinds : diff.ops;
  const parts = [`**Where the device time went** — ${leadLine(diff, lead)}`];
  const folded: string[] = [
    `Compared with ${escapeMarkdown(diff.base)}: device time ${ms(lead.baseMs)} → ${ms(lead.headMs)} (${formatChange(relative(lead))}).`,
  ];
  for (const view of diff.lead === 'kinds'
    ? (['kinds', 'ops'] as const)
    : (['ops', 'kinds'] as const)) {
    const table = opTable(diff[view], view);
    if (table) folded.push(table);
  }
  folded.push(sharedLine(lead));
  const collectives = collectivesTable(diff.collectives);
  if (collectives) folded.push(collectives);
  const roofline = rooflineLine(diff.roofline);
  if (roofline) folded.push(roofline);
  for (const caveat of diff.caveats ?? []) folded.push(`> ⚠️ ${escapeMarkdown(caveat)}`);
  parts.push(
    `<details><summary>Top ops, collectives and roofline</summary>\n\n${folded.join('\n\n')}\n\n</details>`,
  );
  return parts.join('\n\n');
}

function movedBeyondThreshold(benchmark: BenchmarkReport): boolean {
  return benchmark.metrics.some(
    (m) =>
      m.threshold !== null &&
      (m.verdict === 'regression' || m.verdict === 'improvement' || m.verdict === 'inconclusive'),
  );
}

/** The op that explains most of the change, with its share; or why none stands out. */
function leadLine(diff: ProfileDiff, lead: OpDiff): string {
  const [first] = lead.named;
  if (!first) {
    return `no op changed beyond the profiles' own noise; ${sharedText(lead)}.`;
  }
  const what = diff.lead === 'kinds' ? " (every layer's copy together)" : '';
  return (
    `${codeSpan(first.op)}${what}: ${signedMs(first.excessMs)}, ` +
    `**${percent(first.share)} of the change**${first.engine ? `, ${escapeMarkdown(first.engine)} engine` : ''}.`
  );
}

function opTable(diff: OpDiff, view: 'ops' | 'kinds'): string | undefined {
  if (diff.named.length === 0) return undefined;
  const shown = diff.named.slice(0, COMMENT_TOP_OPS);
  const rows = shown.map((c: OpChange) => [
    codeSpan(c.op),
    ms(c.baseMs),
    ms(c.headMs),
    c.only ? `only in ${escapeMarkdown(c.only)}` : formatChange((c.changePercent ?? 0) / 100),
    percent(c.share),
    c.engine ? escapeMarkdown(c.engine) : '—',
    c.hbmBytesChange === 0
      ? '±0'
      : `${c.hbmBytesChange > 0 ? '+' : '−'}${formatBytes(Math.abs(c.hbmBytesChange))}`,
  ]);
  const more = diff.named.length - shown.length;
  const title = view === 'ops' ? 'By op' : "By op kind (every layer's copy of an op together)";
  const table = markdownTable(
    [['Op', 'Base', 'Head', 'Change', 'Share of change', 'Engine', 'HBM bytes'], ...rows],
    { align: ['l', 'r', 'r', 'r', 'r', 'l', 'r'] },
  );
  return `${title}:\n\n${table}${more > 0 ? `\n\n_${more} more in report.json._` : ''}`;
}

function sharedLine(diff: OpDiff): string {
  return (
    `${sharedText(diff)}; the ${diff.other.ops} other ops together ${signedMs(diff.other.changeMs)} ` +
    `(${percent(diff.other.share)}). Ops are named when their change passes 4× the profiles' ` +
    `jitter (${formatValue(diff.jitter * 100, '%')}), 2% of their time and 1% of the step.`
  );
}

function sharedText(diff: OpDiff): string {
  return `every op ${formatChange(diff.shared.factor - 1)} alike (${signedMs(diff.shared.changeMs)}, ${percent(diff.shared.share)} of the change)`;
}

function collectivesTable(collectives: ProfileDiff['collectives']): string | undefined {
  if (!collectives || (collectives.base.length === 0 && collectives.head.length === 0))
    return undefined;
  const key = (g: CollectiveGroup) => JSON.stringify([g.operation, g.algorithm, g.replicaGroup]);
  const keys = [...new Set([...collectives.head, ...collectives.base].map(key))];
  const rows = keys.map((k) => {
    const [b, h] = [
      collectives.base.find((g) => key(g) === k),
      collectives.head.find((g) => key(g) === k),
    ];
    const g = (h ?? b)!;
    const bus = (x?: CollectiveGroup) =>
      x?.busGBps === undefined ? '—' : `${x.busGBps.toFixed(1)}`;
    return [
      `${escapeMarkdown(g.operation)} · ${escapeMarkdown(g.algorithm)} · ${codeSpan(g.replicaGroup)}`,
      `${b?.count ?? 0} → ${h?.count ?? 0}`,
      `${ms(b?.totalMs ?? 0)} → ${ms(h?.totalMs ?? 0)}`,
      `${bus(b)} → ${bus(h)}`,
    ];
  });
  return `Collectives:\n\n${markdownTable(
    [['Operation · algorithm · replica group', 'Count', 'Total time', 'Bus GB/s'], ...rows],
    { align: ['l', 'r', 'r', 'r'] },
  )}`;
}

function rooflineLine(roofline: ProfileDiff['roofline']): string | undefined {
  if (!roofline) return undefined;
  const side = (name: string, r?: { mfu: number; maxAchievable: number }) =>
    r
      ? `${name} MFU ${formatValue(r.mfu, '%')} of ${formatValue(r.maxAchievable, '%')} achievable`
      : undefined;
  const sides = [side('base', roofline.base), side('head', roofline.head)].filter(Boolean);
  return sides.length > 0 ? `Roofline: ${sides.join('; ')}.` : undefined;
}

function relative(diff: OpDiff): number | null {
  return diff.baseMs > 0 ? diff.headMs / diff.baseMs - 1 : null;
}

function ms(value: number): string {
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(3)} ms`;
}

function signedMs(value: number): string {
  return `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;
}

function percent(share: number): string {
  const rounded = Math.round(share * 100);
  return `${rounded < 0 ? '−' : ''}${Math.abs(rounded)}%`;
}

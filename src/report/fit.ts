import { NOTHING_LEFT_OUT, type Omissions } from './omissions.js';

export interface FitInput {
  /** The report as top-level blocks, leaving out what it is told to. */
  render: (omit: Omissions) => string[];
  /** Benchmarks that may be left out, in the order they are (see droppableBenchmarks). */
  droppable: number[];
  limit: number;
  /** How the limit is measured: characters for a comment, bytes for a job summary. */
  size: (text: string) => number;
}

/**
 * The fullest rendering within `limit`. Parts are left out least important first: the
 * charts, per-run values, the configuration, unchanged metric rows, then as few whole benchmarks as will
 * do; then the sweep rankings; and only then trailing blocks, always whole ones.
 */
export function renderWithin({ render, droppable, limit, size }: FitInput): string {
  const attempt = (omit: Omissions) => {
    const text = joinBlocks(render(omit));
    return size(text) <= limit ? text : undefined;
  };
  let omit = NOTHING_LEFT_OUT;
  const steps: Partial<Omissions>[] = [
    { charts: true },
    { runValues: true },
    { config: true },
    { unchangedRows: true },
  ];
  for (const step of steps) {
    const text = attempt(omit);
    if (text !== undefined) return text;
    omit = { ...omit, ...step };
  }
  const dropping = (count: number): Omissions => ({
    ...omit,
    benchmarks: new Set(droppable.slice(0, count)),
  });
  const text =
    attempt(omit) ?? fewestDropped(droppable.length, (count) => attempt(dropping(count)));
  if (text !== undefined) return text;
  omit = { ...dropping(droppable.length), rankings: true };
  return attempt(omit) ?? leadingBlocks(render({ ...omit, tail: true }), limit, size);
}

/**
 * Binary search for the smallest count that fits. The size falls as the count rises
 * (give or take a digit in the note), so the answer may be one more than the least.
 */
function fewestDropped(
  max: number,
  attempt: (count: number) => string | undefined,
): string | undefined {
  let best = max >= 1 ? attempt(max) : undefined;
  if (best === undefined) return undefined;
  let low = 1;
  let high = max;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const text = attempt(middle);
    if (text === undefined) {
      low = middle + 1;
    } else {
      best = text;
      high = middle;
    }
  }
  return best;
}

/** As many whole blocks from the top as fit; empty only for an absurdly small limit. */
function leadingBlocks(blocks: string[], limit: number, size: (text: string) => number): string {
  // Both measures add up over concatenation, so the blocks are measured one by one.
  let total = size('\n');
  let count = 0;
  for (const block of blocks) {
    total += size(block) + (count > 0 ? size('\n\n') : 0);
    if (total > limit) break;
    count += 1;
  }
  return count > 0 ? joinBlocks(blocks.slice(0, count)) : '';
}

function joinBlocks(blocks: string[]): string {
  return `${blocks.join('\n\n')}\n`;
}

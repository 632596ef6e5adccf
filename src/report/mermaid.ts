// Mermaid xy charts, which GitHub draws from a ```mermaid block in comments and job
// summaries: no image host, nothing fetched. Only the long-standing subset of the syntax
// (`xychart-beta`, Mermaid ≥ 10.5, which newer releases still read) and a front-matter
// config for the line colours, so that a legend of coloured squares can name the lines:
// xy charts have no legend of their own.

/** Line colours, each the colour of the emoji square that names it in the legend. */
export const PALETTE: { color: string; square: string }[] = [
  { color: '#55acee', square: '🟦' },
  { color: '#f4900c', square: '🟧' },
  { color: '#78b159', square: '🟩' },
  { color: '#dd2e44', square: '🟥' },
  { color: '#aa8ed6', square: '🟪' },
  { color: '#c1694f', square: '🟫' },
];

/** What an unlabelled point's category is made of: invisible, and nothing to the parser. */
const UNLABELLED = '\u200B';

/** The width Mermaid gives an xy chart by default, in pixels, and roughly its plot's. */
const PLOT_WIDTH = 600;
/** About how wide a character of an axis label is drawn (14 px sans-serif), in pixels. */
const LABEL_CHAR_WIDTH = 7.5;
/** Room kept between two labels. */
const LABEL_GAP = 12;

/**
 * The labels of a category axis thinned so that none overlaps the next: the last one
 * (this run) always kept, and every k-th one before it, the others null (unlabelled).
 */
export function thinnedLabels(labels: string[]): (string | null)[] {
  if (labels.length === 0) return [];
  const widest = Math.max(...labels.map((label) => label.length)) * LABEL_CHAR_WIDTH;
  const step = PLOT_WIDTH / labels.length;
  const every = Math.max(1, Math.ceil((widest + LABEL_GAP) / step));
  const last = labels.length - 1;
  return labels.map((label, index) => ((last - index) % every === 0 ? label : null));
}

/** A numeric x axis: each line's points sit evenly from `min` to `max`. */
export interface NumericAxis {
  label: string;
  min: number;
  max: number;
}

export interface XyChart {
  title: string;
  /**
   * One label per point (a category axis; null: a point drawn without a label, so that
   * the labels shown do not overlap), or a numeric axis.
   */
  x: (string | null)[] | NumericAxis;
  yLabel: string;
  /** The y axis from low to high; default: the lines' values with a little room. */
  yRange?: [number, number];
  /** Each line has one value per label (per point of a numeric axis). */
  lines: number[][];
  /** Colours of the lines, in order (default: PALETTE). */
  colors?: string[];
}

/**
 * The ```mermaid block of an xy chart. Labels come from benchmarks and configs: reduced
 * to characters that cannot end a string, start a directive or close the fence.
 */
export function xyChartBlock(chart: XyChart): string {
  const colors = chart.colors ?? PALETTE.map((p) => p.color);
  const [low, high] = chart.yRange ?? yRange(chart.lines.flat().filter(Number.isFinite));
  const lines = chart.lines.map((line) => `  line [${line.map(formatNumber).join(', ')}]`);
  return [
    '```mermaid',
    '---',
    'config:',
    '  themeVariables:',
    '    xyChart:',
    `      plotColorPalette: "${colors.slice(0, Math.max(1, chart.lines.length)).join(', ')}"`,
    '---',
    'xychart-beta',
    `  title "${mermaidText(chart.title)}"`,
    xAxisLine(chart.x),
    `  y-axis "${mermaidText(chart.yLabel)}" ${formatNumber(low)} --> ${formatNumber(high)}`,
    ...lines,
    '```',
  ].join('\n');
}

function xAxisLine(x: XyChart['x']): string {
  if (Array.isArray(x)) {
    // A category axis merges equal labels into one point: each unlabelled point gets a
    // label of its own that shows nothing, zero-width spaces as many as its position.
    const text = (label: string | null, index: number) =>
      label === null ? UNLABELLED.repeat(index + 1) : mermaidText(label);
    return `  x-axis [${x.map((label, index) => `"${text(label, index)}"`).join(', ')}]`;
  }
  return `  x-axis "${mermaidText(x.label)}" ${formatNumber(x.min)} --> ${formatNumber(x.max)}`;
}

/**
 * Text safe inside a Mermaid string: letters, digits, spaces and a few punctuation marks
 * that mean nothing to the parser; anything else becomes a space. Quotes would end the
 * string, `%%` starts a directive, backticks could close the fence, `<` starts markup.
 */
export function mermaidText(text: string): string {
  return text
    .replace(/[^\p{L}\p{N} _.,:;/+\-()=±→·×]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
}

/** Four significant digits: plenty for a small chart, and short. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '0';
  if (value === 0) return '0';
  return String(Number(value.toPrecision(4)));
}

/** A y range with a little room around the values (so no line sits on an edge), never empty. */
function yRange(values: number[]): [number, number] {
  if (values.length === 0) return [0, 1];
  const min = Math.min(...values);
  const max = Math.max(...values);
  const pad = max > min ? (max - min) * 0.1 : Math.abs(max) * 0.05 || 1;
  return [min - pad, max + pad];
}

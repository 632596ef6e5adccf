// Percentages as settings write them: `5%`, `2.5 %`, `.5%`. Always with %, because a bare
// number could be meant as a fraction or as a percentage; each setting says its range.

const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)`;
const PERCENT_TEXT = new RegExp(`^(${NUMBER})\\s*%$`);
const NUMBER_TEXT = new RegExp(`^${NUMBER}$`);

/** A percentage setting read as a fraction, or why it cannot be. */
export type PercentResult = { ok: true; fraction: number } | { ok: false; message: string };

export type PercentText =
  /** `digits` is the number as written, without the %. */
  | { kind: 'percent'; percent: number; digits: string }
  /** A number, or a string that is only a number: the % is missing. */
  | { kind: 'bare-number' }
  | { kind: 'other' };

export function readPercent(value: unknown): PercentText {
  if (typeof value === 'number') return { kind: 'bare-number' };
  if (typeof value !== 'string') return { kind: 'other' };
  const text = value.trim();
  if (NUMBER_TEXT.test(text)) return { kind: 'bare-number' };
  const digits = PERCENT_TEXT.exec(text)?.[1];
  return digits === undefined
    ? { kind: 'other' }
    : { kind: 'percent', percent: Number(digits), digits };
}

import { describe, expect, it } from 'vitest';
import { displayUnit, inUnit } from '../../src/report/display-unit.js';
import { formatFigure, formatValue } from '../../src/report/numbers.js';

describe('displayUnit', () => {
  const shown = (unit: string, values: (number | null)[]) => {
    const display = displayUnit(unit, values);
    return `${values.map((v) => formatValue(inUnit(v, display))).join(' / ')} ${display.unit}`;
  };

  it('shows sub-ms latencies in µs and sub-µs ones in ns, per metric', () => {
    expect(shown('ms', [0.0004, 0.00052])).toBe('400.0 / 520.0 ns');
    expect(shown('ms', [0.25, 0.3])).toBe('250.0 / 300.0 µs');
    expect(shown('ms', [0.25, 1.2])).toBe('0.250 / 1.200 ms');
    expect(shown('ms', [12.5, null])).toBe('12.50 / — ms');
  });

  it('never shows a larger unit, and leaves other units and empty rows alone', () => {
    expect(shown('ms', [28890])).toBe('28,890 ms');
    expect(shown('ops/s', [0.0004])).toBe('0.000 ops/s');
    expect(shown('ms', [0, null])).toBe('0.000 / — ms');
    expect(shown('s', [0.0000031])).toBe('3.100 µs');
    expect(shown('us', [0.5])).toBe('500.0 ns');
    expect(shown('ns', [0.5])).toBe('0.500 ns');
  });

  it('keeps the smallest unit for values below it', () => {
    expect(shown('ms', [1e-9])).toBe('0.001 ns');
  });
});

describe('formatFigure', () => {
  it('shows a whole count of graphs without decimals, and anything else as formatValue does', () => {
    expect(formatFigure(4, 'graphs')).toBe('4');
    expect(formatFigure(0, 'graphs')).toBe('0');
    // A mean of counts over runs is not whole: its decimals say so.
    expect(formatFigure(2.5, 'graphs')).toBe('2.500');
    expect(formatFigure(4, 'ms')).toBe('4.000');
    expect(formatFigure(2.409, '%')).toBe('2.409');
  });
});

// docs/config.md names the settings that only the action's inputs take and the keys only the
// file has: both lists are what action.yml and the config file's schema say, so a new input
// or key, or one renamed, fails here until the page says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { benchmarkEntrySchema, configFileSchema } from '../../src/config/schema.js';
import { ROOT } from '../support/bundled.js';

const PAGE = readFileSync(join(ROOT, 'docs', 'config.md'), 'utf8');
const INPUTS = Object.keys(
  (parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: object }).inputs,
);
const TOP_LEVEL_KEYS = Object.keys(configFileSchema.shape);
const ENTRY_KEYS = Object.keys(benchmarkEntrySchema.shape);

/** The backticked names of the page's paragraph that starts with `start`, up to `end`. */
function namesBetween(start: string, end: string | undefined): string[] {
  const from = PAGE.indexOf(start);
  expect(from, `docs/config.md has no paragraph starting "${start}"`).toBeGreaterThanOrEqual(0);
  const paragraphEnd = PAGE.indexOf('\n\n', from);
  const to = end === undefined ? paragraphEnd : PAGE.indexOf(end, from);
  expect(to, `"${end}" does not follow "${start}"`).toBeGreaterThan(from);
  const text = PAGE.slice(from, to);
  return [...text.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!).sort();
}

describe('docs/config.md: inputs and file keys', () => {
  it('lists every action input that is not a top-level key of the file, and no other', () => {
    const inputOnly = INPUTS.filter((input) => !TOP_LEVEL_KEYS.includes(input)).sort();
    expect(namesBetween('Action inputs only', 'The other way round')).toEqual(inputOnly);
  });

  it('lists every key of the file that no input has', () => {
    const fileOnly = [...new Set([...TOP_LEVEL_KEYS, ...ENTRY_KEYS])]
      .filter((key) => key !== 'benchmarks' && !INPUTS.includes(key))
      .sort();
    expect(namesBetween('The other way round', undefined)).toEqual(fileOnly);
  });
});

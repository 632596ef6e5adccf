// The docs name the folders the gate writes as the code names them: a benchmark's runs and
// profiles go to a folder named by slugify (its name, or a file-safe form of it with a hash
// appended), and so do the data branch's record folders. Each example the pages give is
// what slugify makes of that name.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { slugify } from '../../src/runner/slug.js';
import { ROOT } from '../support/bundled.js';

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const text = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** Each "`name` → `folder`" pair of a page (the arrow may end a line). */
function namePairs(page: string): [string, string][] {
  return [...text(page).matchAll(/`([^`\n]+)`\s*→\s*`([^`\n]+)`/g)].map((m) => [m[1]!, m[2]!]);
}

describe('folder names in the docs', () => {
  it.each(['docs/running.md', 'docs/baselines.md'])(
    '%s: each name → folder example is what the gate makes of the name',
    (page) => {
      const pairs = namePairs(page);
      expect(pairs.length, `${page} gives no example of a folder name`).toBeGreaterThan(0);
      for (const [name, folder] of pairs) expect(slugify(name), name).toBe(folder);
    },
  );

  it('docs/running.md names an already file-safe name as its own folder', () => {
    expect(text('docs/running.md')).toMatch(/only \(`qwen3-reranker`\)/);
    expect(slugify('qwen3-reranker')).toBe('qwen3-reranker');
  });

  it.each(PAGES)('%s never calls a run or profile folder by the bare benchmark name', (page) => {
    // The folder is the benchmark's name only when that is already file-safe.
    expect(text(page)).not.toMatch(/(runs|profiles)\/<(benchmark|name)>/);
  });
});

import { describe, expect, it } from 'vitest';
import { slugify } from '../../src/runner/slug.js';

describe('slugify', () => {
  it('keeps a name that is already file-safe', () => {
    expect(slugify('reranker-bs8')).toBe('reranker-bs8');
    expect(slugify('tp2_seq1024.v2')).toBe('tp2_seq1024.v2');
  });

  it('makes other names file-safe and still readable', () => {
    const slug = slugify('Llama 3.1 8B / tp=2');
    expect(slug).toMatch(/^llama-3\.1-8b-tp-2-[0-9a-f]{8}$/);
  });

  it('gives names that differ only in case or punctuation different slugs', () => {
    const names = ['llama-8b', 'Llama-8b', 'llama 8b', 'llama/8b', 'llama_8b', 'llama--8b'];
    const slugs = names.map(slugify);
    expect(new Set(slugs).size).toBe(names.length);
  });

  it('never produces path separators, dot folders or empty names', () => {
    for (const name of ['..', '.', '/', '', '../../etc/passwd', 'ünïcödé', '  ']) {
      const slug = slugify(name);
      expect(slug, name).toMatch(/^[a-z0-9_][a-z0-9._-]*$/);
      expect(slug, name).not.toMatch(/^\.+$/);
    }
  });

  it('keeps long names to a reasonable length', () => {
    const slug = slugify(`Benchmark ${'very '.repeat(50)}long`);
    expect(slug.length).toBeLessThanOrEqual(69);
    expect(slug).toMatch(/^benchmark-very-very-/);
  });

  it('is stable', () => {
    expect(slugify('A b')).toBe(slugify('A b'));
  });
});

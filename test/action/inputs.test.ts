// Every input the action reads is declared in action.yml (an undeclared one would be
// empty forever, and the runner warns about inputs it does not know).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readGitHubSettings } from '../../src/action/settings.js';
import { readActionInputs, SETTING_INPUTS } from '../../src/inputs.js';
import { ROOT } from '../support/bundled.js';

async function declaredInputs(): Promise<string[]> {
  const action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, unknown>;
  };
  return Object.keys(action.inputs);
}

describe('action.yml', () => {
  it('declares every input the action reads, and nothing it does not read', async () => {
    const read = new Set<string>(SETTING_INPUTS);
    readGitHubSettings((name) => {
      read.add(name);
      return '';
    });
    const declared = await declaredInputs();
    expect([...read].filter((name) => !declared.includes(name))).toEqual([]);
    expect(declared.filter((name) => !read.has(name))).toEqual([]);
  });
});

describe('readActionInputs', () => {
  it('reads the postgres URL from PERF_GATE_POSTGRES_URL when the input is empty, and masks it and its password', () => {
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    const url = 'postgres://gate:s3cret-pass@db.internal:5432/perf';
    let settings;
    try {
      settings = readActionInputs({ PERF_GATE_POSTGRES_URL: url });
    } finally {
      process.stdout.write = write;
    }
    expect(settings['baseline-postgres-url']).toBe(url);
    const masks = written
      .join('')
      .split(/\r?\n/)
      .filter((line) => line.startsWith('::add-mask::'));
    expect(masks).toEqual([`::add-mask::${url}`, '::add-mask::s3cret-pass']);
  });
});

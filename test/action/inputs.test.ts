// Every input the action reads is declared in action.yml (an undeclared one would be
// empty forever, and the runner warns about inputs it does not know).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readGitHubSettings } from '../../src/action/settings.js';
import { SETTING_INPUTS } from '../../src/inputs.js';
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

// The re-executed gate takes its secrets back from the handoff file, which is gone after.
// (The re-execution itself is tested through the bundled action: test/e2e/isolation.test.ts.)
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGateSecret, keepSecretsInMemoryOnly } from '../../src/secrets-in-memory.js';

describe('keepSecretsInMemoryOnly', () => {
  it('restores the handed-off secrets into the environment and deletes the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perf-gate-handoff-'));
    const file = join(dir, 'secrets.json');
    writeFileSync(
      file,
      JSON.stringify({ 'INPUT_GITHUB-TOKEN': 'ghs_x', ACTIONS_RUNTIME_TOKEN: 'r' }),
    );
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin', PERF_GATE_SECRETS_HANDOFF: file };
    keepSecretsInMemoryOnly(env);
    expect(env).toEqual({
      PATH: '/usr/bin',
      'INPUT_GITHUB-TOKEN': 'ghs_x',
      ACTIONS_RUNTIME_TOKEN: 'r',
    });
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ['INPUT_GITHUB-TOKEN', true],
    ['INPUT_COMMAND', true],
    ['ACTIONS_ID_TOKEN_REQUEST_URL', true],
    ['STATE_post', true],
    ['GH_TOKEN', true],
    ['HF_TOKEN', true],
    ['PATH', false],
    ['GITHUB_SHA', false],
    ['RUNNER_TEMP', false],
    ['TOKENS_PER_BATCH', false],
  ])('%s is a secret: %s', (name, secret) => {
    expect(isGateSecret(name)).toBe(secret);
  });
});

// The allow-list of child-env.ts applied where the gate spawns pull-request code: a benchmark
// run and its server get neither the gate's token nor an agent's socket (hand mutants of the
// runner, issue 51: both call sites could pass the gate's environment whole).

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { runBenchmark } from '../../src/runner/benchmark.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { servedSession, toyServer } from '../support/server-session.js';

/** What the gate has and its children must not get, next to what they must. */
const gateEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  FROM_PARENT: 'inherited',
  'INPUT_GITHUB-TOKEN': 'ghs_secret',
  SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.1',
};

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'child-env-reach-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function dumped(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

describe('the environment of pull-request code', () => {
  it('a benchmark run gets the inherited variables but no token or agent socket', async () => {
    const dump = join(root, 'bench.env');
    const spec = {
      name: 'dumps',
      command: `env > '${dump}'; echo '{"x": 1}' > "$PERF_GATE_OUTPUT"`,
      runs: 1,
      workingDirectory: root,
      env: {},
      timeoutMinutes: 1,
    } as unknown as BenchmarkSpec;
    const outcomes = await runBenchmark(spec, {
      runner: createProcessRunner(),
      log: new MemoryLogger(),
      outDir: join(root, 'out'),
      profile: false,
      baseEnv: gateEnv,
    });
    expect(outcomes[0]?.ok).toBe(true);
    const env = await dumped(dump);
    expect(env).toContain('FROM_PARENT=inherited');
    expect(env).not.toContain('ghs_secret');
    expect(env).not.toContain('SSH_AUTH_SOCK');
  });

  it('its server gets the inherited variables but no token or agent socket', async () => {
    const dump = join(root, 'server.env');
    await mkdir(join(root, 'logs'));
    await writeFile(join(root, 'serve.sh'), `env > '${dump}'\necho ready\nexec sleep 30\n`);
    const server = toyServer('bash ./serve.sh', { log: '^ready$' });
    const session = servedSession(root, server, { baseEnv: gateEnv });
    try {
      expect((await session.before({ index: 1, kind: 'clean' })).ok).toBe(true);
    } finally {
      await session.close();
    }
    const env = await dumped(dump);
    expect(env).toContain('FROM_PARENT=inherited');
    expect(env).not.toContain('ghs_secret');
    expect(env).not.toContain('SSH_AUTH_SOCK');
  });
});

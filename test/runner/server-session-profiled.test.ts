// The profiled run's server between runs (hand mutants of the runner, issue 51): it is
// stopped right after its run, when its session profile is written, and a clean run never
// talks to a server started with the profiler's variables.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServedRun, ServerSession } from '../../src/runner/server-session.js';
import { servedSession, toyServer } from '../support/server-session.js';

let root: string;
let session: ServerSession;

/** Each start of the server appends whether the profiler was on for it. */
const starts = () => readFile(join(root, 'starts'), 'utf8');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'session-profiled-'));
  await mkdir(join(root, 'logs'));
  await mkdir(join(root, 'profile'));
  const script = `echo "inspect=\${NEURON_RT_INSPECT_ENABLE:-0}" >> starts\necho ready\nexec sleep 60\n`;
  await writeFile(join(root, 'serve.sh'), script);
  session = servedSession(root, toyServer('bash ./serve.sh', { log: '^ready$' }));
});

afterEach(async () => {
  await session.close();
  await rm(root, { recursive: true, force: true });
});

const profiled = (): ServedRun => ({
  index: 2,
  kind: 'profiled',
  profileDir: join(root, 'profile'),
});

describe('the server of a profiled run', () => {
  it('is stopped as soon as its run is done', async () => {
    expect((await session.before(profiled())).ok).toBe(true);
    expect(session.lastStopNote()).toBeUndefined();
    await session.after(profiled());
    expect(session.lastStopNote()).toMatch(/^SIGTERM, /);
  });

  it('is not reused by a clean run: that one gets a server without the profiler', async () => {
    expect((await session.before(profiled())).ok).toBe(true);
    expect((await session.before({ index: 3, kind: 'clean' })).ok).toBe(true);
    expect(await starts()).toBe('inspect=1\ninspect=0\n');
    expect(session.starts.map((start) => start.kind)).toEqual(['profiled', 'clean']);
  });
});

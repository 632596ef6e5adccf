// A symbolic link planted where a daemon's socket is looked for (hand mutants of the runner,
// issue 51): followed, it would hide whatever socket it points at, a server's the gate
// started included. It is left alone; the socket it points at stays visible.
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentSockets, socketPlaces } from '../../src/runner/sandbox-sockets.js';

let top: string;
let server: Server;

beforeAll(async () => {
  top = await mkdtemp(join(tmpdir(), 'perf-gate-socket-links-'));
  mkdirSync(join(top, 'home', '.gnupg'), { recursive: true });
  mkdirSync(join(top, 'tmp'));
  server = createServer();
  const socket = join(top, 'tmp', 'vllm.sock');
  await new Promise<void>((done) => server.listen(socket, done));
  symlinkSync(socket, join(top, 'home', '.gnupg', 'S.gpg-agent'));
});

afterAll(async () => {
  server.close();
  await rm(top, { recursive: true, force: true });
});

describe('a link in the place of an agent socket', () => {
  it('hides nothing: not the link, not the socket it points at', () => {
    const env = { HOME: join(top, 'home'), TMPDIR: join(top, 'tmp') };
    const found = presentSockets(socketPlaces(env, process.getuid?.() ?? 0));
    const socket = realpathSync(join(top, 'tmp', 'vllm.sock'));
    expect(found.files).not.toContain(socket);
    expect(found.files).not.toContain(join(top, 'home', '.gnupg', 'S.gpg-agent'));
  });
});

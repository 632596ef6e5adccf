// `accuracy:` in a benchmark entry with a server: the defaults, a prompt file of the
// repository, the server's origin from its ready-url, and each wrong value refused with the
// file and the field named. Not part of the config hash (it measures no timing).

import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS } from '../../src/config/default-prompts.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';
const SERVER = `    server:\n      command: vllm serve m --port 8123\n      ready-url: http://127.0.0.1:8123/health\n`;

const entry = (accuracy: string | undefined, server = SERVER, extra = '') =>
  `benchmarks:\n  - name: bench\n    command: ./bench.sh\n${server}${extra}${accuracy === undefined ? '' : `    accuracy: ${accuracy}\n`}`;

async function load(accuracy: string | undefined, files: Record<string, string> = {}) {
  const workspace = await makeWorkspace({ [FILE]: entry(accuracy), ...files });
  return (await resolveGateConfig({}, { workspace })).benchmarks[0]!;
}

async function problem(yaml: string, files: Record<string, string> = {}): Promise<string> {
  const workspace = await makeWorkspace({ [FILE]: yaml, ...files });
  const error = await rejection(resolveGateConfig({}, { workspace }));
  expect(error.kind).toBe('config');
  return error.message;
}

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ prompt: `p${i}` })).join('\n');

describe('accuracy', () => {
  it('reads true as the defaults: 48 prompts, 32 tokens, top-5, the ready-url origin', async () => {
    const accuracy = (await load('true')).accuracy!;
    expect(accuracy).toEqual({
      prompts: [...DEFAULT_PROMPTS],
      promptsSource: 'the default 48 prompts',
      maxTokens: 32,
      topK: 5,
      origin: 'http://127.0.0.1:8123',
      margins: { flips: 0.005, distance: 0.01 },
      requestTimeoutSeconds: 120,
    });
    expect((await load('false')).accuracy).toBeUndefined();
  });

  it('reads a prompt file and every setting, and keeps the config hash', async () => {
    const file = { 'accuracy/prompts.jsonl': `${lines(10)}\n\n` };
    const spec = await load(
      `{ prompts: accuracy/prompts.jsonl, max-tokens: 16, top-k: 20, url: 'http://localhost:9000', model: served, flip-margin: 1%, distance-margin: 0.02, request-timeout: 30s }`,
      file,
    );
    expect(spec.accuracy).toMatchObject({
      promptsSource: 'accuracy/prompts.jsonl',
      maxTokens: 16,
      topK: 20,
      origin: 'http://localhost:9000',
      model: 'served',
      margins: { flips: 0.01, distance: 0.02 },
      requestTimeoutSeconds: 30,
    });
    expect(spec.accuracy!.prompts).toHaveLength(10);
    expect(spec.configHash).toBe((await load(undefined)).configHash);
  });

  it('refuses what the check cannot use, naming the file and the field', async () => {
    expect(await problem(entry('true', ''))).toMatch(
      /benchmarks\[0\]\.accuracy: the agreement check asks a server/,
    );
    const readyLog = `    server:\n      command: vllm serve m\n      ready-log: started\n`;
    expect(await problem(entry('true', readyLog))).toMatch(
      /benchmarks\[0\]\.accuracy\.url: the server is ready by its log/,
    );
    const sweep = `    sweep:\n      variants:\n        - { name: a, rate: 1 }\n`;
    expect(await problem(entry('true', SERVER, sweep))).toMatch(
      /a sweep's variants share one server/,
    );
    expect(await problem(entry('{ top-k: 25 }'))).toMatch(/accuracy\.top-k: .*from 1 to 20/);
    expect(await problem(entry("{ url: 'http://example.com:8000' }"))).toMatch(
      /accuracy\.url: .*loopback/,
    );
    expect(await problem(entry('{ flip-margin: 0.5 }'))).toMatch(
      /accuracy\.flip-margin: .*percentage/,
    );
    expect(await problem(entry('{ temperature: 0 }'))).toMatch(/accuracy.*temperature/);
    expect(await problem(entry('sometimes'))).toMatch(
      /accuracy: .*allowed: true, false, or a mapping/,
    );
  });

  it('refuses a prompt file that is missing, short, not JSON Lines, or outside the repository', async () => {
    expect(await problem(entry('{ prompts: nope.jsonl }'))).toMatch(
      /nope\.jsonl: cannot read the prompt file/,
    );
    expect(await problem(entry('{ prompts: p.jsonl }'), { 'p.jsonl': lines(3) })).toMatch(
      /p\.jsonl: 3 prompt\(s\); allowed: .*8 to 1000/,
    );
    expect(
      await problem(entry('{ prompts: p.jsonl }'), { 'p.jsonl': `${lines(8)}\nnot json` }),
    ).toMatch(/p\.jsonl:9: not a JSON line/);
    expect(
      await problem(entry('{ prompts: p.jsonl }'), { 'p.jsonl': `${lines(8)}\n{"text": "x"}` }),
    ).toMatch(/p\.jsonl:9: no "prompt" text/);
    const huge = `${JSON.stringify({ prompt: 'x'.repeat(5 * 1024 * 1024) })}\n${lines(8)}`;
    expect(await problem(entry('{ prompts: p.jsonl }'), { 'p.jsonl': huge })).toMatch(
      /p\.jsonl: the prompt file is over 4 MiB/,
    );
    expect(await problem(entry('{ prompts: p.jsonl }'), { 'p.jsonl': '' })).toMatch(
      /p\.jsonl: 0 prompt\(s\)/,
    );
    expect(await problem(entry('{ prompts: ../../etc/passwd }'))).toMatch(
      /cannot read the prompt file: .*outside the workspace/,
    );
  });
});

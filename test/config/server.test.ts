// `server:` in a benchmark entry: read into a ServerSpec with its defaults, shared by the
// variants of a sweep, part of the config hash, and refused with the field named when wrong.

import { describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { readDurationSeconds } from '../../src/config/duration.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

const entry = (server: string, more = '') =>
  `benchmarks:\n  - name: serve\n    command: vllm bench serve\n${more}    server:\n${server}`;

async function load(yaml: string) {
  return resolveGateConfig({}, { workspace: await makeWorkspace({ [FILE]: yaml }) });
}

async function problems(yaml: string): Promise<string[]> {
  const workspace = await makeWorkspace({ [FILE]: yaml });
  const error = await rejection(resolveGateConfig({}, { workspace }));
  expect(error.kind).toBe('config');
  return error.message.split('\n');
}

describe('server', () => {
  it('reads a shell command, a readiness URL and the defaults', async () => {
    const config = await load(
      entry(
        '      command: vllm serve Qwen/Qwen3-0.6B --port 8000\n' +
          '      ready-url: http://127.0.0.1:8000/health\n',
      ),
    );
    expect(config.benchmarks[0]?.server).toEqual({
      command: 'vllm serve Qwen/Qwen3-0.6B --port 8000',
      readiness: { url: 'http://127.0.0.1:8000/health' },
      startTimeoutSeconds: 1800,
      stopSignal: 'SIGTERM',
      stopGraceSeconds: 30,
      env: {},
    });
  });

  it('reads an argv list, a log line, durations, a signal without SIG and env', async () => {
    const config = await load(
      entry(
        '      command: [vllm, serve, Qwen/Qwen3-0.6B]\n' +
          "      ready-log: 'Application startup complete'\n" +
          '      start-timeout: 1h30m\n' +
          '      stop-signal: int\n' +
          '      stop-grace-period: 45\n' +
          '      env: { VLLM_LOGGING_LEVEL: DEBUG, MAX: 8 }\n',
      ),
    );
    expect(config.benchmarks[0]?.server).toEqual({
      command: ['vllm', 'serve', 'Qwen/Qwen3-0.6B'],
      readiness: { log: 'Application startup complete' },
      startTimeoutSeconds: 5400,
      stopSignal: 'SIGINT',
      stopGraceSeconds: 45,
      env: { VLLM_LOGGING_LEVEL: 'DEBUG', MAX: '8' },
    });
  });

  it('gives every variant of a sweep the one server, and its command and env to the hash', async () => {
    const server = '      command: vllm serve m\n      ready-url: http://localhost:8000/health\n';
    const sweep =
      '    sweep:\n      variants:\n        - { name: rate-1, request-rate: 1 }\n        - { name: rate-2, request-rate: 2 }\n';
    const config = await load(entry(server, sweep));
    const [first, second] = config.benchmarks;
    expect(first?.server).toEqual(second?.server);
    const other = await load(entry(server.replace('serve m', 'serve m --max-num-seqs 4'), sweep));
    expect(other.benchmarks[0]?.configHash).not.toBe(first?.configHash);
    const quicker = await load(entry(`${server}      start-timeout: 5m\n`, sweep));
    expect(quicker.benchmarks[0]?.configHash).toBe(first?.configHash);
    const plain = await load('benchmarks:\n  - name: serve\n    command: vllm bench serve\n');
    expect(plain.benchmarks[0]?.configHash).not.toBe(
      (await load(entry(server))).benchmarks[0]?.configHash,
    );
  });

  it('names each wrong field with what is allowed', async () => {
    const lines = await problems(
      entry(
        "      command: ''\n" +
          '      ready-url: https://example.com/health\n' +
          "      ready-log: '('\n" +
          '      start-timeout: 0\n' +
          '      stop-signal: KILL\n' +
          '      stop-grace-period: 2h\n' +
          '      envy: {}\n',
      ),
    );
    const at = (field: string) => lines.find((line) => line.includes(`server.${field}:`)) ?? '';
    expect(at('command')).toMatch(/^\.github\/perf-gate\.yml:5:16: .*found ""; allowed:/);
    expect(at('ready-url')).toContain('https is not served on loopback');
    expect(at('ready-log')).toContain('not a regular expression');
    expect(at('start-timeout')).toContain('found 0; allowed: a duration above 0');
    expect(at('stop-signal')).toContain('found "KILL"; allowed: SIGTERM, SIGINT');
    expect(at('stop-grace-period')).toContain('found "2h"; allowed: a duration from 0 to 10 min');
    expect(at('envy')).toContain('unknown key "envy" (did you mean "env"?)');
  });

  it('refuses a readiness URL off this runner, and credentials in it', async () => {
    const off = await problems(
      entry('      command: x\n      ready-url: http://10.0.0.5:8000/health\n'),
    );
    expect(off.join('\n')).toContain("10.0.0.5 is not this runner's loopback");
    const secret = await problems(
      entry('      command: x\n      ready-url: http://user:pw@127.0.0.1:8000/health\n'),
    );
    expect(secret.join('\n')).toContain('a URL with credentials would publish them');
  });

  it('takes a pattern that backtracks for hours in JavaScript, and refuses look-around', async () => {
    // RE2 matches ^(a+)+$ in linear time (docs/security.md); look-ahead it cannot.
    const config = await load(entry("      command: x\n      ready-log: '^(a+)+$'\n"));
    expect(config.benchmarks[0]?.server?.readiness).toEqual({ log: '^(a+)+$' });
    const lines = await problems(entry("      command: x\n      ready-log: 'ready(?= in)'\n"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\.github\/perf-gate\.yml:6:18: benchmarks\[0\]\.server\.ready-log: .*look-ahead .*such as 'ready in' instead of 'ready\(\?= in\)'.*; allowed: a regular expression in RE2 syntax/,
    );
  });

  it('wants exactly one of ready-url and ready-log', async () => {
    for (const readiness of ['', '      ready-url: http://[::1]:8000/\n      ready-log: up\n']) {
      const lines = await problems(entry(`      command: x\n${readiness}`));
      expect(lines.join('\n')).toContain('allowed: either ready-url or ready-log, exactly one');
    }
  });

  it('says where server goes when it is given at the top level', async () => {
    const lines = await problems(
      'server: { command: x, ready-log: up }\nbenchmarks:\n  - name: a\n    command: b\n',
    );
    expect(lines.join('\n')).toContain(
      'unknown key "server" (a benchmark\'s setting: give it in each benchmark entry whose commands talk to a server)',
    );
  });

  it('refuses the profiler variables the gate owns in the server env', async () => {
    const lines = await problems(
      entry('      command: x\n      ready-log: up\n      env: { NEURON_RT_INSPECT_ENABLE: 1 }\n'),
    );
    expect(lines.join('\n')).toContain(
      'found key "NEURON_RT_INSPECT_ENABLE" in the server env of benchmark "serve"',
    );
  });
});

describe('readDurationSeconds', () => {
  it.each([
    [90, 90],
    ['90', 90],
    ['90s', 90],
    ['30m', 1800],
    ['1h30m', 5400],
    ['1m 30s', 90],
    ['0.5s', 0.5],
  ])('reads %j as %d s', (text, seconds) => {
    expect(readDurationSeconds(text)).toBe(seconds);
  });

  it.each(['', '30x', '1m1m', '30s1m', 'm', true, null])('refuses %j', (text) => {
    expect(readDurationSeconds(text)).toBeUndefined();
  });
});

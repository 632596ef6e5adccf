// `startup:` in a benchmark entry: true times ready by the result file, a mapping names a
// ready-log pattern and asks for a cold start; not part of the config hash (it changes no
// measured figure, so turning it on keeps the baselines); refused with the file and field
// named when wrong; beside a server: block only a cold start (its clean starts are
// server_startup already).

import { describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

const entry = (startup: string | undefined, extra = '') =>
  `benchmarks:\n  - name: bench\n    command: ./bench.sh\n${extra}${startup === undefined ? '' : `    startup: ${startup}\n`}`;

async function load(startup: string | undefined) {
  const config = await resolveGateConfig(
    {},
    { workspace: await makeWorkspace({ [FILE]: entry(startup) }) },
  );
  return config.benchmarks[0]!;
}

async function problem(yaml: string): Promise<string> {
  const workspace = await makeWorkspace({ [FILE]: yaml });
  const error = await rejection(resolveGateConfig({}, { workspace }));
  expect(error.kind).toBe('config');
  return error.message;
}

describe('startup', () => {
  it('reads true as the result file telling ready, and a mapping as given', async () => {
    expect((await load('true')).startup).toEqual({ cold: false });
    expect((await load(`{ ready-log: 'init engine .* took', cold: true }`)).startup).toEqual({
      readyLog: 'init engine .* took',
      cold: true,
    });
    expect((await load('{ cold: true }')).startup).toEqual({ cold: true });
  });

  it('times nothing with false or without the key, and keeps the config hash either way', async () => {
    const without = await load(undefined);
    expect(without.startup).toBeUndefined();
    expect((await load('false')).startup).toBeUndefined();
    expect((await load(`{ ready-log: ready, cold: true }`)).configHash).toBe(without.configHash);
  });

  it('refuses a wrong value, naming the file, the field and what is allowed', async () => {
    const badPattern = await problem(entry(`{ ready-log: 'init (engine' }`));
    expect(badPattern).toContain(FILE);
    expect(badPattern).toMatch(
      /benchmarks\[0\]\.startup\.ready-log: .*not a regular expression .*allowed: a regular expression/,
    );
    expect(await problem(entry(`{ ready-log: '' }`))).toMatch(
      /benchmarks\[0\]\.startup\.ready-log: .*allowed: a regular expression/,
    );
    expect(await problem(entry('{ cold: sometimes }'))).toMatch(
      /benchmarks\[0\]\.startup\.cold: .*allowed: true \(one more start on an empty Neuron compile cache/,
    );
    expect(await problem(entry('later'))).toMatch(
      /benchmarks\[0\]\.startup: .*allowed: true, false, or a mapping with ready-log and cold/,
    );
    expect(await problem(entry('{ ready-line: x }'))).toMatch(
      /unknown key "ready-line"; allowed keys: ready-log, cold/,
    );
    expect(await problem(entry('{ cld: true }'))).toMatch(/did you mean "cold"\?/);
    expect(await problem(`startup: true\n${entry(undefined)}`)).toMatch(
      /unknown key "startup" \(a benchmark's setting: give it in each benchmark entry whose start-up to time/,
    );
  });

  it('takes a pattern that backtracks for hours in JavaScript, and refuses one RE2 cannot match', async () => {
    // RE2 matches ^(a+)+$ in linear time (docs/security.md); a back-reference it cannot.
    expect((await load(`{ ready-log: '^(a+)+$' }`)).startup).toEqual({
      readyLog: '^(a+)+$',
      cold: false,
    });
    const lines = (await problem(entry(`{ ready-log: '(init) engine \\1' }`))).split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\.github\/perf-gate\.yml:4:\d+: benchmarks\[0\]\.startup\.ready-log: found "\(init\) engine \\\\1"; a back-reference .*such as \(ab\)ab instead of \(ab\)\\1; allowed: a regular expression in RE2 syntax/,
    );
  });

  it('takes { cold: true } beside a server: block, and refuses the rest there', async () => {
    const server = '    server: { command: vllm serve m, ready-log: ready }\n';
    const workspace = await makeWorkspace({ [FILE]: entry('{ cold: true }', server) });
    const spec = (await resolveGateConfig({}, { workspace })).benchmarks[0]!;
    expect(spec.startup).toEqual({ cold: true });
    expect(spec.server).toBeDefined();
    // startup: true would time the client; its server's clean starts are server_startup.
    for (const startup of ['true', '{ cold: false }', `{ ready-log: ready, cold: true }`]) {
      const message = await problem(entry(startup, server));
      expect(message).toContain(FILE);
      expect(message).toMatch(
        /benchmarks\[0\]\.startup: with a server: block, startup: takes only \{ cold: true \}.*server_startup.*write startup: \{ cold: true \}, or remove startup:/,
      );
    }
  });
});

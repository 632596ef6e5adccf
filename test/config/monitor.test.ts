// `monitor:` in a benchmark entry: true takes the defaults, a mapping names the executable
// and the period, false or no key watches nothing; not part of the config hash (watching
// does not change what the benchmark measures); refused with the field named when wrong.

import { describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

const entry = (monitor: string | undefined) =>
  `benchmarks:\n  - name: bench\n    command: ./bench.sh\n${monitor === undefined ? '' : `    monitor: ${monitor}\n`}`;

async function load(monitor: string | undefined) {
  const config = await resolveGateConfig(
    {},
    { workspace: await makeWorkspace({ [FILE]: entry(monitor) }) },
  );
  return config.benchmarks[0]!;
}

async function problem(yaml: string): Promise<string> {
  const workspace = await makeWorkspace({ [FILE]: yaml });
  const error = await rejection(resolveGateConfig({}, { workspace }));
  expect(error.kind).toBe('config');
  return error.message;
}

describe('monitor', () => {
  it('reads true as neuron-monitor every second, and a mapping as given', async () => {
    expect((await load('true')).monitor).toEqual({ command: 'neuron-monitor', periodSeconds: 1 });
    expect((await load('{ command: tools/fake-monitor, period: 0.5s }')).monitor).toEqual({
      command: 'tools/fake-monitor',
      periodSeconds: 0.5,
    });
    expect((await load('{ period: 2 }')).monitor).toEqual({
      command: 'neuron-monitor',
      periodSeconds: 2,
    });
  });

  it('watches nothing with false or without the key, and keeps the config hash either way', async () => {
    const without = await load(undefined);
    expect(without.monitor).toBeUndefined();
    expect((await load('false')).monitor).toBeUndefined();
    expect((await load('true')).configHash).toBe(without.configHash);
  });

  it('refuses a wrong value, naming the field and what is allowed', async () => {
    expect(await problem(entry('yes please'))).toMatch(
      /benchmarks\[0\]\.monitor: .*allowed: true, false, or a mapping with command/,
    );
    expect(await problem(entry('{ period: 5m }'))).toMatch(
      /benchmarks\[0\]\.monitor\.period: .*allowed: a duration from 0\.1 s to 60 s/,
    );
    expect(await problem(entry('{ comand: x }'))).toMatch(/did you mean "command"\?/);
    expect(await problem(`monitor: true\n${entry(undefined)}`)).toMatch(
      /unknown key "monitor" \(a benchmark's setting: give it in each benchmark entry to watch/,
    );
  });
});

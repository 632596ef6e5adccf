// neuron-monitor beside a run, as a real child process: the simulator's stand-in streams
// reports until it is stopped; one that ignores SIGTERM and forks is killed with its whole
// tree; a missing executable is a warning that says what to do. /proc is checked after
// each: nothing it started is left.
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMonitor, type MonitorLaunch } from '../../src/observe/neuron-monitor-sampler.js';
import { createProcessRunner } from '../../src/runner/process.js';
import type { ProcessRunner } from '../../src/runner/types.js';
import { createSandbox, type Sandbox } from '../../src/runner/sandbox.js';
import { until } from '../support/poll.js';
import { livePidsWith } from '../support/processes.js';
import { BIN } from '../simulator/helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitor-'));
});

function launch(name: string, command: string, extra: Partial<MonitorLaunch> = {}): MonitorLaunch {
  const base = join(dir, name);
  return {
    runner: createProcessRunner(),
    spec: { command, periodSeconds: 0.1 },
    cwd: dir,
    env: {
      PATH: `${BIN}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: dir,
      SIM_DEVICE_MEMORY_GROWTH: '1.2',
    },
    files: {
      config: `${base}.conf`,
      samples: `${base}.jsonl`,
      log: `${base}.log`,
      label: (path) => relative(dir, path),
    },
    ...extra,
  };
}

async function gone(tag: string): Promise<number[]> {
  await until(() => livePidsWith(tag).length === 0);
  return livePidsWith(tag);
}

/** Waits until the monitor `name` has streamed `count` whole reports (lines) to its file. */
async function streamed(name: string, count: number): Promise<void> {
  const lines = async () =>
    (await readFile(join(dir, `${name}.jsonl`), 'utf8').catch(() => '')).split('\n').length - 1;
  await until(async () => (await lines()) >= count);
}

describe('startMonitor', () => {
  it('streams the simulated neuron-monitor until stopped, then nothing of it runs', async () => {
    const monitor = await startMonitor(launch('sim', 'neuron-monitor'));
    await streamed('sim', 3);
    expect(livePidsWith(join(dir, 'sim.conf')).length).toBeGreaterThan(0);
    const stream = await monitor.stop();
    expect(stream.warnings).toEqual([]);
    expect(stream.samples.length).toBeGreaterThanOrEqual(3);
    // 1.2 × the excerpt's core 0 on each of inf2.xlarge's two cores.
    expect(stream.samples[0]!.deviceBytes).toBeCloseTo(2 * 1.2 * 1652512064, -2);
    expect(JSON.parse(await readFile(join(dir, 'sim.conf'), 'utf8'))).toMatchObject({
      period: '0.1s',
    });
    expect(await gone(join(dir, 'sim.conf'))).toEqual([]);
    // Safe to call twice.
    expect((await monitor.stop()).samples).toHaveLength(stream.samples.length);
  });

  it('kills a monitor that ignores SIGTERM, and the child it forked', async () => {
    const script = join(dir, 'stubborn-monitor');
    // A sleep no other process on the machine runs: this test's own pid in its length.
    const orphan = `sleep 300.${process.pid}`;
    await writeFile(
      script,
      [
        '#!/bin/bash',
        "trap '' TERM",
        `(trap "" TERM; ${orphan}) &`,
        'while true; do echo \'{"neuron_runtime_data":[]}\'; sleep 0.1; done',
      ].join('\n'),
    );
    await chmod(script, 0o755);
    const monitor = await startMonitor(launch('stubborn', script));
    await streamed('stubborn', 1);
    expect(livePidsWith(join(dir, 'stubborn.conf')).length).toBeGreaterThan(0);
    const stream = await monitor.stop();
    expect(stream.reports).toBeGreaterThan(0);
    expect(stream.samples).toEqual([]);
    expect(await gone(join(dir, 'stubborn.conf'))).toEqual([]);
    expect(livePidsWith(orphan).filter((pid) => pid > 0)).toEqual([]);
  });

  it('says what to do when neuron-monitor is not installed', async () => {
    // Stopped only once its shell has exited by itself (command not found), however long a
    // busy host takes: a stop before that would be a stop of a running monitor.
    const runner = createProcessRunner();
    let ended: Promise<unknown> | undefined;
    const watched: ProcessRunner = {
      ...runner,
      start: async (request) => {
        const service = await runner.start(request);
        ended = service.ended;
        return service;
      },
    };
    const monitor = await startMonitor(
      launch('missing', 'no-such-neuron-monitor', { runner: watched }),
    );
    await ended;
    const stream = await monitor.stop();
    expect(stream.samples).toEqual([]);
    expect(stream.warnings).toHaveLength(1);
    expect(stream.warnings[0]).toMatch(
      /^neuron-monitor \(no-such-neuron-monitor\) was not found or is not executable, so device memory and NeuronCore use were not measured: install the Neuron tools \(aws-neuronx-tools\) on the runner or set monitor\.command\./,
    );
  });
});

describe.each(['bubblewrap', 'unshare'] as const)('in the %s sandbox', (kind) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({
      env: process.env,
      repositories: [],
      keep: [dir],
      prefer: kind,
    });
  });
  afterAll(async () => {
    await sandbox.dispose();
  });

  it('runs inside it, and nothing of it outlives the stop', async () => {
    expect(sandbox.kind).toBe(kind);
    const name = `sandboxed-${kind}`;
    const monitor = await startMonitor(
      launch(name, 'neuron-monitor', { runner: createProcessRunner({ sandbox }) }),
    );
    await streamed(name, 1);
    const stream = await monitor.stop();
    expect(stream.warnings).toEqual([]);
    expect(stream.samples.length).toBeGreaterThan(0);
    expect(await gone(join(dir, `${name}.conf`))).toEqual([]);
  });
});

// The simulated neuron-monitor as a child process: reports in the documented shape, one a
// line at the config's period, device memory raised by its knob, exit 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNeuronMonitorStream } from '../../src/formats/neuron-monitor.js';
import { until } from '../support/poll.js';
import { BIN, baseEnv, runTool, tempDir } from './helpers.js';

/** Its stdout until it has written `reports` lines, then SIGTERM; how it exited and how long it ran. */
async function stream(env: Record<string, string>, reports: number) {
  const dir = await tempDir();
  await writeFile(join(dir, 'monitor.conf'), JSON.stringify({ period: '0.1s' }));
  const child = spawn(process.execPath, [join(BIN, 'neuron-monitor'), '-c', 'monitor.conf'], {
    cwd: dir,
    env: baseEnv(env),
  });
  const started = performance.now();
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  expect(await until(() => text.split('\n').length > reports)).toBe(true);
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  const ms = performance.now() - started;
  return { code, text, ms };
}

describe('simulated neuron-monitor', () => {
  it('streams reports in the documented shape at the period, and exits 0 on SIGTERM', async () => {
    const { code, text, ms } = await stream({}, 4);
    expect(code).toBe(0);
    const parsed = parseNeuronMonitorStream(text, 'stdout');
    expect(parsed.warnings).toEqual([]);
    expect(parsed.samples.length).toBeGreaterThanOrEqual(4);
    // At the 0.1 s period, not faster: a busy host only delays reports, so it writes at
    // most one report per period it ran (and one at its start).
    expect(parsed.samples.length).toBeLessThanOrEqual(ms / 100 + 1);
    const [first] = parsed.samples;
    expect(first!.deviceBytes).toBe(2 * 1652512064);
    expect(first!.kinds).toEqual({
      model_code: 2 * 101295008,
      constants: 2 * 1261766864,
      tensors: 2 * 20971520,
      scratchpad: 2 * 268435456,
      runtime: 2 * 43216,
    });
    expect(first!.utilization).toBeGreaterThan(30);
    expect(first!.utilization).toBeLessThan(55);
  });

  it('raises every kind of device memory by SIM_DEVICE_MEMORY_GROWTH', async () => {
    const { text } = await stream(
      { SIM_DEVICE_MEMORY_GROWTH: '1.2', SIM_INSTANCE_TYPE: 'inf2.24xlarge' },
      1,
    );
    const [first] = parseNeuronMonitorStream(text, 'stdout').samples;
    expect(first!.deviceBytes! / (12 * 1652512064)).toBeCloseTo(1.2, 6);
  });

  it('refuses a bad knob or a bad config with exit 2', async () => {
    const bad = await runTool('neuron-monitor', [], { env: { SIM_DEVICE_MEMORY_GROWTH: 'lots' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SIM_DEVICE_MEMORY_GROWTH must be a number > 0');
    const missing = await runTool('neuron-monitor', ['-c', '/nonexistent/monitor.conf']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read config file /nonexistent/monitor.conf');
  });
});

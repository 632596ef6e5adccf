// The simulated neuron-ls: the documented JSON shape per inf2 size, the table, the flags.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runTool } from './helpers.js';

const REFERENCE_KEYS = [
  'neuron_device',
  'bdf',
  'cpu_affinity',
  'numa_node',
  'connected_to',
  'nc_count',
  'memory_size',
  'neuroncore_ids',
  'neuron_processes',
];

const SIZES: [string, number][] = [
  ['inf2.xlarge', 1],
  ['inf2.8xlarge', 1],
  ['inf2.24xlarge', 6],
  ['inf2.48xlarge', 12],
];

describe('neuron-ls', () => {
  it('matches the reference neuron_ls.json of a one-chip instance', async () => {
    // fixtures/neuron_ls.json: neuron-ls --json-output of a one-chip inf2.xlarge, in the shape
    // the Neuron docs' neuron-ls page gives, reformatted by prettier.
    const reference = JSON.parse(
      await readFile(new URL('./fixtures/neuron_ls.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>[];
    expect(Object.keys(reference[0]!)).toEqual(REFERENCE_KEYS);
    const { stdout, code } = await runTool('neuron-ls', ['--json-output']);
    expect(code).toBe(0);
    const [device] = JSON.parse(stdout) as Record<string, unknown>[];
    // Only the CPU list differs: the example came from a box with 8 vCPUs, inf2.xlarge has 4.
    expect({ ...device, cpu_affinity: '0-7' }).toEqual(reference[0]);
    expect(device!.cpu_affinity).toBe('0-3');
  });

  it.each(SIZES)('%s: %i devices of 2 NeuronCores and 32 GiB', async (size, devices) => {
    const { stdout, code } = await runTool('neuron-ls', ['-j'], {
      env: { SIM_INSTANCE_TYPE: size },
    });
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as Record<string, unknown>[];
    expect(list).toHaveLength(devices);
    list.forEach((device, index) => {
      expect(Object.keys(device)).toEqual(REFERENCE_KEYS);
      expect(device.neuron_device).toBe(index);
      expect(device.nc_count).toBe(2);
      expect(device.memory_size).toBe(32 * 1024 ** 3);
      expect(device.neuroncore_ids).toEqual([2 * index, 2 * index + 1]);
      expect(device.neuron_processes).toEqual([]);
      expect(device.bdf).toMatch(/^0000:[0-9a-f]{2}:[0-9a-f]{2}\.\d$/);
      expect(typeof device.numa_node).toBe('string');
      if (devices === 1) expect(device.connected_to).toBeNull();
      else
        expect(device.connected_to).toEqual([
          (index + devices - 1) % devices,
          (index + 1) % devices,
        ]);
    });
  });

  it('answers --output-format json (SDK 2.34+) like --json-output', async () => {
    const env = { SIM_INSTANCE_TYPE: 'inf2.24xlarge' };
    const legacy = await runTool('neuron-ls', ['--json-output'], { env });
    const current = await runTool('neuron-ls', ['--output-format', 'json'], { env });
    const inline = await runTool('neuron-ls', ['--output-format=json'], { env });
    expect(current.code).toBe(0);
    expect(current.stdout).toBe(legacy.stdout);
    expect(inline.stdout).toBe(legacy.stdout);
  });

  it('prints a table with the instance type and one row per device without flags', async () => {
    const { stdout, code } = await runTool('neuron-ls', [], {
      env: { SIM_INSTANCE_TYPE: 'inf2.24xlarge' },
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^instance-type: inf2\.24xlarge\ninstance-id: i-0sim[0-9a-f]{12}\n/);
    const rows = stdout.split('\n').filter((line) => /^\| \d+ /.test(line));
    expect(rows).toHaveLength(6);
    expect(rows[5]).toMatch(/^\| 5 +\| 2 +\| 10-11 +\| 32 GB /);
  });

  it('prints a version line', async () => {
    const { stdout, code } = await runTool('neuron-ls', ['--version']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^neuron-ls \d+\.\d+\.\d+\.\d+/);
  });

  it('runs through its shebang and executable bit', async () => {
    const { stdout, code } = await runTool('neuron-ls', ['-j'], { viaShebang: true });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toHaveLength(1);
  });

  it('exits 2 with the usage on stderr for an unknown flag or a bad format', async () => {
    for (const args of [['--bogus'], ['--output-format', 'yaml'], ['--output-format']]) {
      const { code, stdout, stderr } = await runTool('neuron-ls', args);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^usage: neuron-ls/);
    }
  });

  it('exits 2 naming SIM_INSTANCE_TYPE when it is not an inf2 size', async () => {
    const { code, stderr } = await runTool('neuron-ls', ['-j'], {
      env: { SIM_INSTANCE_TYPE: 'trn1.2xlarge' },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('SIM_INSTANCE_TYPE');
    expect(stderr).toContain('trn1.2xlarge');
  });
});

describe('neuron-ls on a simulated trn2', () => {
  const fixture = (name: string) =>
    readFile(new URL(`../fixtures/neuron-ls/${name}`, import.meta.url), 'utf8').then(
      (text) => JSON.parse(text) as Record<string, unknown>[],
    );

  it("prints the Neuron docs' trn2.48xlarge at LNC 2, with the instance on each device", async () => {
    const { stdout, code } = await runTool('neuron-ls', ['-j'], {
      env: { SIM_INSTANCE_TYPE: 'trn2.48xlarge' },
    });
    expect(code).toBe(0);
    const devices = JSON.parse(stdout) as Record<string, unknown>[];
    const documented = await fixture('trn2.48xlarge-lnc2.json');
    expect(devices).toHaveLength(16);
    devices.forEach((device, i) => {
      const { instance_type, instance_id, bdf, ...rest } = device;
      expect(instance_type).toBe('trn2.48xlarge');
      expect(instance_id).toMatch(/^i-0sim[0-9a-f]{12}$/);
      // The docs' -j example prints the short BDF; tools 2.32 print it with the domain.
      expect(bdf).toBe(`0000:${String(documented[i]!.bdf)}`);
      expect(rest).toEqual(omit(documented[i]!, 'bdf'));
    });
  });

  it('counts eight logical cores a chip at LNC 1, and refuses LNC 2 on inf2', async () => {
    const lnc1 = await runTool('neuron-ls', ['-j'], {
      env: { SIM_INSTANCE_TYPE: 'trn2.48xlarge', NEURON_LOGICAL_NC_CONFIG: '1' },
    });
    const documented = await fixture('trn2.48xlarge-lnc1.json');
    const devices = JSON.parse(lnc1.stdout) as Record<string, unknown>[];
    expect(devices.map((d) => d.neuroncore_ids)).toEqual(documented.map((d) => d.neuroncore_ids));
    expect(devices.every((d) => d.logical_neuroncore_config === 1 && d.nc_count === 8)).toBe(true);
    const inf2 = await runTool('neuron-ls', ['-j'], {
      env: { SIM_INSTANCE_TYPE: 'inf2.xlarge', NEURON_LOGICAL_NC_CONFIG: '2' },
    });
    expect(inf2.code).toBe(2);
    expect(inf2.stderr).toContain('on inf2.xlarge, only lnc=1 is supported');
  });
});

function omit(object: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
}

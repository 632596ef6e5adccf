// neuron-ls's JSON as trn2 hosts print it (test/fixtures/neuron-ls/README.md says where each
// shape comes from): the devices, the logical cores, the LNC and the instance type.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLogicalNcConfig } from '../../src/environment/lnc.js';
import { parseNeuronLs } from '../../src/environment/neuron-ls.js';

const fixture = (name: string) =>
  readFileSync(resolve(import.meta.dirname, '../fixtures/neuron-ls', name), 'utf8');

describe('parseNeuronLs', () => {
  it('reads the documented trn2.48xlarge at LNC 2: 16 devices, 64 logical cores', () => {
    expect(parseNeuronLs(fixture('trn2.48xlarge-lnc2.json'))).toEqual({
      devices: 16,
      cores: 64,
      logicalNcConfig: 2,
    });
  });

  it('reads the same host at LNC 1: 128 logical cores, LNC 1', () => {
    expect(parseNeuronLs(fixture('trn2.48xlarge-lnc1.json'))).toEqual({
      devices: 16,
      cores: 128,
      logicalNcConfig: 1,
    });
  });

  it('takes the instance type a container capture names on its one visible device', () => {
    expect(parseNeuronLs(fixture('trn2.48xlarge-container.json'))).toEqual({
      devices: 1,
      cores: 4,
      logicalNcConfig: 2,
      instanceType: 'trn2.48xlarge',
    });
    expect(parseNeuronLs(fixture('trn2.3xlarge-lnc2.json'))).toMatchObject({
      cores: 4,
      instanceType: 'trn2.3xlarge',
    });
  });

  it('reads an object holding the devices beside instance-wide fields (SDK 2.34)', () => {
    expect(parseNeuronLs(fixture('sdk-2.34-object-guess.json'))).toEqual({
      devices: 16,
      cores: 64,
      logicalNcConfig: 2,
      instanceType: 'trn2.48xlarge',
    });
  });

  it('counts the ids a device lists over its nc_count, and says no LNC on inf2', () => {
    const inf2 = [{ neuron_device: 0, nc_count: 2, neuroncore_ids: [0, 1] }];
    expect(parseNeuronLs(JSON.stringify(inf2))).toEqual({ devices: 1, cores: 2 });
    const disagree = [{ neuron_device: 0, nc_count: 8, neuroncore_ids: [0, 1, 2, 3] }];
    expect(parseNeuronLs(JSON.stringify(disagree))?.cores).toBe(4);
  });

  it('leaves out a count it cannot read, never 0, and counts an id once', () => {
    const text = JSON.stringify([{ nc_count: '4', logical_neuroncore_config: '2' }]);
    expect(parseNeuronLs(text)).toEqual({ devices: 1, cores: 4, logicalNcConfig: 2 });
    const bad = JSON.stringify([{ nc_count: -4, neuroncore_ids: '0-3' }]);
    expect(parseNeuronLs(bad)).toEqual({ devices: 1 });
    const twice = JSON.stringify([{ nc_count: 4, neuroncore_ids: [0, 0, 1, 1] }]);
    expect(parseNeuronLs(twice)?.cores).toBe(2);
  });

  it("keeps an object's own instance type and LNC when its devices are not recognised", () => {
    const text = JSON.stringify({
      instance_type: 'trn2.48xlarge',
      logical_neuroncore_config: 2,
      devices: [{ core_count: 4 }],
    });
    expect(parseNeuronLs(text)).toEqual({ instanceType: 'trn2.48xlarge', logicalNcConfig: 2 });
    const other = JSON.stringify({ devices: [{ neuron_device: 0, neuroncore_ids: [0, 1, 2, 3] }] });
    expect(parseNeuronLs(other)).toEqual({ devices: 1, cores: 4 });
  });

  it('names no LNC when the devices say two different ones, and refuses what is not devices', () => {
    const mixed = [
      { nc_count: 4, logical_neuroncore_config: 2 },
      { nc_count: 8, logical_neuroncore_config: 1 },
    ];
    expect(parseNeuronLs(JSON.stringify(mixed))).toEqual({ devices: 2, cores: 12 });
    expect(parseNeuronLs('{}')).toBeUndefined();
    expect(parseNeuronLs('[1, 2]')).toBeUndefined();
    expect(parseNeuronLs('instance-type: trn2.48xlarge')).toBeUndefined();
  });
});

describe('readLogicalNcConfig', () => {
  const missing = '/nonexistent/logical_nc_config';

  it("trusts neuron-ls first, then the runtime's variable, then the host-wide file", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lnc-'));
    const file = join(dir, 'logical_nc_config');
    await writeFile(file, 'NEURON_LOGICAL_NC_CONFIG=1\n');
    expect(await readLogicalNcConfig({ NEURON_LOGICAL_NC_CONFIG: '1' }, 2, undefined, file)).toBe(
      2,
    );
    expect(
      await readLogicalNcConfig({ NEURON_LOGICAL_NC_CONFIG: '2' }, undefined, undefined, file),
    ).toBe(2);
    expect(await readLogicalNcConfig({}, undefined, undefined, file)).toBe(1);
    expect(await readLogicalNcConfig({}, undefined, 'trn2.3xlarge', file)).toBe(1);
    await writeFile(file, '2\n');
    expect(await readLogicalNcConfig({}, undefined, undefined, file)).toBe(2);
  });

  it('takes only 1 or 2, the settings the runtime knows', async () => {
    expect(
      await readLogicalNcConfig({ NEURON_LOGICAL_NC_CONFIG: '4' }, undefined, undefined, missing),
    ).toBe(undefined);
    expect(
      await readLogicalNcConfig({ NEURON_LOGICAL_NC_CONFIG: ' 1 ' }, undefined, undefined, missing),
    ).toBe(1);
    expect(await readLogicalNcConfig({}, undefined, undefined, missing)).toBeUndefined();
  });

  it('says no LNC on inf2 or trn1, where a core is one physical core whatever a variable says', async () => {
    const env = { NEURON_LOGICAL_NC_CONFIG: '1' };
    expect(await readLogicalNcConfig(env, undefined, 'inf2.xlarge', missing)).toBeUndefined();
    expect(await readLogicalNcConfig(env, undefined, 'trn1.32xlarge', missing)).toBeUndefined();
    expect(await readLogicalNcConfig(env, undefined, 'trn2.48xlarge', missing)).toBe(1);
    // neuron-ls printing a setting on inf2 says nothing either.
    expect(await readLogicalNcConfig(env, 1, 'inf2.xlarge', missing)).toBeUndefined();
  });
});

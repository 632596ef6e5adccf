// Reads `neuron-ls`'s JSON: the array of devices `--json-output` prints (SDK 2.33 and
// before), or an object holding that array beside instance-wide fields (`--output-format
// json`, which replaces it from SDK 2.34; its schema is not published, so any member that
// is an array of device-like objects is taken, and the object's own instance type and LNC
// are kept even without one).
//
// On trn2 each device also says `logical_neuroncore_config` (LNC: 1 or 2 physical
// NeuronCores make one logical core) and `nc_count` counts logical cores; real captures
// carry `instance_type` per device (aws-neuron-sdk, tools/neuron-sys-tools/neuron-ls.rst;
// test/fixtures/neuron-ls/). A value of a kind neuron-ls never prints is left out, never
// counted as 0.

export interface NeuronDevices {
  devices?: number;
  /** Logical NeuronCores: the ids a process can be given (NEURON_RT_VISIBLE_CORES). */
  cores?: number;
  /** LNC, when the devices say one (trn2 and later); undefined on inf2/trn1. */
  logicalNcConfig?: number;
  /** The instance type neuron-ls names (per device, or at the top of the newer format). */
  instanceType?: string;
}

type Fields = Record<string, unknown>;

/** Keys only a device object has. */
const DEVICE_KEYS = ['nc_count', 'neuroncore_ids', 'neuron_device'];

export function parseNeuronLs(stdout: string): NeuronDevices | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const top = isObject(data) ? data : {};
  const devices = Array.isArray(data) ? data : deviceList(top);
  if (devices !== undefined && !devices.every(isObject)) return undefined;
  const all = [top, ...(devices ?? [])];
  const lnc = oneValue(all.map(lncOf));
  const instanceType = oneValue(all.map((fields) => textOf(fields.instance_type)));
  const cores = devices === undefined ? undefined : totalCores(devices);
  const read: NeuronDevices = {
    ...(devices !== undefined && devices.length > 0 ? { devices: devices.length } : {}),
    ...(cores !== undefined ? { cores } : {}),
    ...(lnc !== undefined ? { logicalNcConfig: lnc } : {}),
    ...(instanceType !== undefined ? { instanceType } : {}),
  };
  return Object.keys(read).length > 0 ? read : undefined;
}

/** The newer format's device array: the member whose items look like devices. */
function deviceList(top: Fields): Fields[] | undefined {
  for (const value of Object.values(top)) {
    if (
      Array.isArray(value) &&
      value.some((item) => isObject(item) && DEVICE_KEYS.some((key) => key in item))
    ) {
      return value as Fields[];
    }
  }
  return undefined;
}

/** The cores of every device, or undefined when one of them does not say its count. */
function totalCores(devices: readonly Fields[]): number | undefined {
  let total = 0;
  for (const device of devices) {
    const count = coresOf(device);
    if (count === undefined) return undefined;
    total += count;
  }
  return total > 0 ? total : undefined;
}

/** The distinct ids a device lists, else its nc_count: the ids are what a process is given. */
function coresOf(device: Fields): number | undefined {
  const ids = device.neuroncore_ids;
  if (Array.isArray(ids) && ids.length > 0 && ids.every((id) => Number.isInteger(id))) {
    return new Set(ids).size;
  }
  const count = wholeNumber(device.nc_count);
  return count !== undefined && count > 0 ? count : undefined;
}

function lncOf(fields: Fields): number | undefined {
  const value = wholeNumber(fields.logical_neuroncore_config);
  return value === 1 || value === 2 ? value : undefined;
}

function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The value the fields agree on; undefined when none says one or two say different ones. */
function oneValue<T>(values: readonly (T | undefined)[]): T | undefined {
  const said = new Set(values.filter((value): value is T => value !== undefined));
  return said.size === 1 ? [...said][0] : undefined;
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

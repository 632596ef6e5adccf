// Reads `neuron-ls`'s JSON: the array of devices `--json-output` prints (SDK 2.33 and
// before), or an object holding that array beside instance-wide fields (`--output-format
// json`, which replaces it from SDK 2.34; its schema is not published, so any member that
// is an array of devices is taken).
//
// On trn2 each device also says `logical_neuroncore_config` (LNC: 1 or 2 physical
// NeuronCores make one logical core) and `nc_count` counts logical cores; real captures
// carry `instance_type` per device (aws-neuron-sdk, tools/neuron-sys-tools/neuron-ls.rst;
// test/fixtures/neuron-ls/).

export interface NeuronDevices {
  devices: number;
  /** Logical NeuronCores: the ids a process can be given (NEURON_RT_VISIBLE_CORES). */
  cores: number;
  /** LNC, when the devices say one (trn2 and later); undefined on inf2/trn1. */
  logicalNcConfig?: number;
  /** The instance type neuron-ls names (per device, or at the top of the newer format). */
  instanceType?: string;
}

type Fields = Record<string, unknown>;

export function parseNeuronLs(stdout: string): NeuronDevices | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const top = isObject(data) ? data : {};
  const devices = Array.isArray(data) ? data : deviceList(top);
  if (devices === undefined || !devices.every(isObject)) return undefined;
  let cores = 0;
  for (const device of devices) cores += coresOf(device);
  const lnc = oneValue([top, ...devices].map((fields) => lncOf(fields)));
  const instanceType = oneValue([top, ...devices].map((fields) => textOf(fields.instance_type)));
  return {
    devices: devices.length,
    cores,
    ...(lnc !== undefined ? { logicalNcConfig: lnc } : {}),
    ...(instanceType !== undefined ? { instanceType } : {}),
  };
}

/** The newer format's device array: the member whose items look like devices. */
function deviceList(top: Fields): Fields[] | undefined {
  for (const value of Object.values(top)) {
    if (Array.isArray(value) && value.some((item) => isObject(item) && 'nc_count' in item)) {
      return value as Fields[];
    }
  }
  return undefined;
}

/** The ids a device lists, else its nc_count: the ids are what a process is given. */
function coresOf(device: Fields): number {
  const ids = device.neuroncore_ids;
  if (Array.isArray(ids) && ids.length > 0) return ids.length;
  const count = device.nc_count;
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
}

function lncOf(fields: Fields): number | undefined {
  const value = fields.logical_neuroncore_config;
  const number = typeof value === 'string' ? Number(value) : value;
  return number === 1 || number === 2 ? number : undefined;
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

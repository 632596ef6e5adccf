// Reads `neuron-ls --json-output`: a JSON array with one object per Neuron device.

export interface NeuronDevices {
  devices: number;
  cores: number;
}

export function parseNeuronLs(stdout: string): NeuronDevices | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (!Array.isArray(data)) return undefined;
  let cores = 0;
  for (const device of data) {
    if (typeof device !== 'object' || device === null) return undefined;
    const count = (device as Record<string, unknown>).nc_count;
    if (typeof count === 'number' && Number.isFinite(count)) cores += count;
  }
  return { devices: data.length, cores };
}

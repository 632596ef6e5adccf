// The inf2 instance family as the simulator sees it: how many Inferentia2 chips each
// size has, and the devices neuron-ls reports for it.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/** Devices (Inferentia2 chips) and vCPUs per instance size. */
export const INSTANCE_TYPES = Object.freeze({
  'inf2.xlarge': { devices: 1, vcpus: 4 },
  'inf2.8xlarge': { devices: 1, vcpus: 32 },
  'inf2.24xlarge': { devices: 6, vcpus: 96 },
  'inf2.48xlarge': { devices: 12, vcpus: 192 },
});

export const CORES_PER_DEVICE = 2;
export const DEVICE_MEMORY_BYTES = 32 * 1024 ** 3;

/** A stable, obviously fake EC2 instance id ("i-0sim" + 12 hex digits) for this host. */
export function instanceId(instanceType) {
  const hex = createHash('sha1').update(`${instanceType}@${hostname()}`).digest('hex');
  return `i-0sim${hex.slice(0, 12)}`;
}

export function coreCount(instanceType) {
  return INSTANCE_TYPES[instanceType].devices * CORES_PER_DEVICE;
}

/** CPUs local to a NUMA node: the first half of each hyperthread sibling range. */
function cpuRanges(vcpus, node, nodes) {
  if (nodes === 1) return `0-${vcpus - 1}`;
  const half = vcpus / 2;
  const perNode = half / nodes;
  const first = node * perNode;
  return `${first}-${first + perNode - 1},${half + first}-${half + first + perNode - 1}`;
}

/** The devices of an instance in the shape of `neuron-ls --json-output`. */
export function neuronDevices(instanceType) {
  const { devices, vcpus } = INSTANCE_TYPES[instanceType];
  const nodes = devices > 1 ? 2 : 1;
  return Array.from({ length: devices }, (_, index) => {
    const node = Math.floor((index * nodes) / devices);
    return {
      neuron_device: index,
      bdf: devices === 1 ? '0000:00:1e.0' : `0000:${(0x10 + index).toString(16)}:1e.0`,
      cpu_affinity: cpuRanges(vcpus, node, nodes),
      numa_node: nodes === 1 ? '-1' : String(node),
      // Multi-chip sizes connect their chips in a ring.
      connected_to: devices === 1 ? null : [(index + devices - 1) % devices, (index + 1) % devices],
      nc_count: CORES_PER_DEVICE,
      memory_size: DEVICE_MEMORY_BYTES,
      neuroncore_ids: Array.from(
        { length: CORES_PER_DEVICE },
        (_, c) => index * CORES_PER_DEVICE + c,
      ),
      neuron_processes: [],
    };
  });
}

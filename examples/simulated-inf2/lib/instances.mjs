// The Neuron instance families as the simulator sees them: how many chips each size has,
// the NeuronCores a chip shows at its LNC, and the devices neuron-ls reports for it.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { UsageError } from './errors.mjs';
import { TRN2_48XLARGE_DEVICES } from './trn2-topology.mjs';

/** Devices (chips), vCPUs and chip family per instance size. */
export const INSTANCE_TYPES = Object.freeze({
  'inf2.xlarge': { devices: 1, vcpus: 4, family: 'inf2' },
  'inf2.8xlarge': { devices: 1, vcpus: 32, family: 'inf2' },
  'inf2.24xlarge': { devices: 6, vcpus: 96, family: 'inf2' },
  'inf2.48xlarge': { devices: 12, vcpus: 192, family: 'inf2' },
  'trn2.3xlarge': { devices: 1, vcpus: 12, family: 'trn2' },
  'trn2.48xlarge': { devices: 16, vcpus: 192, family: 'trn2' },
});

/**
 * Per chip: physical NeuronCores, memory, and one physical core's Tensor Engine peak (what
 * the profiler's MFU divides by: 2 × rows × columns × clock) and one HBM stack's bandwidth
 * (what its MBU divides by). Inferentia2: 2 NeuronCore-v2, 32 GiB, 190 TFLOPS and 820 GB/s
 * a chip. Trainium2: 8 NeuronCore-v3 (128 × 128 at 2.4 GHz), 96 GiB in 4 stacks, 2.9 TB/s.
 */
export const CHIPS = Object.freeze({
  inf2: {
    physicalCores: 2,
    memoryBytes: 32 * 1024 ** 3,
    tensorPeak: 95e12,
    stackBytesPerSecond: 410e9,
  },
  trn2: {
    physicalCores: 8,
    memoryBytes: 96 * 1024 ** 3,
    tensorPeak: 2 * 128 * 128 * 2.4e9,
    stackBytesPerSecond: 2.9e12 / 4,
  },
});

export const CORES_PER_DEVICE = 2;
export const DEVICE_MEMORY_BYTES = 32 * 1024 ** 3;

export function chipOf(instanceType) {
  return CHIPS[INSTANCE_TYPES[instanceType].family];
}

/**
 * NEURON_LOGICAL_NC_CONFIG as the runtime takes it: 1 or 2 on trn2 (2 when unset), only 1
 * on inf2 ("On trn1, only lnc=1 is supported", the compiler's EARG001).
 */
export function readLnc(env, instanceType) {
  const trn2 = INSTANCE_TYPES[instanceType].family === 'trn2';
  const value = env.NEURON_LOGICAL_NC_CONFIG?.trim();
  if (value === undefined || value === '') return trn2 ? 2 : 1;
  if (value !== '1' && value !== '2') {
    throw new UsageError(`NEURON_LOGICAL_NC_CONFIG must be 1 or 2 (got "${value}")`);
  }
  if (!trn2 && value === '2') {
    throw new UsageError(`NEURON_LOGICAL_NC_CONFIG=2: on ${instanceType}, only lnc=1 is supported`);
  }
  return Number(value);
}

/** A stable, obviously fake EC2 instance id ("i-0sim" + 12 hex digits) for this host. */
export function instanceId(instanceType) {
  const hex = createHash('sha1').update(`${instanceType}@${hostname()}`).digest('hex');
  return `i-0sim${hex.slice(0, 12)}`;
}

/** Logical NeuronCores of the instance at `lnc`. */
export function coreCount(instanceType, lnc = 1) {
  return INSTANCE_TYPES[instanceType].devices * (chipOf(instanceType).physicalCores / lnc);
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
export function neuronDevices(instanceType, lnc = 1) {
  if (INSTANCE_TYPES[instanceType].family === 'trn2') return trn2Devices(instanceType, lnc);
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

/**
 * A trn2's devices as aws-neuronx-tools 2.32 print them: the instance on each device, the
 * LNC, `nc_count` and ids counting logical cores. trn2.48xlarge's topology is the Neuron
 * docs' (trn2-topology.mjs); trn2.3xlarge has one chip and no neighbours.
 */
function trn2Devices(instanceType, lnc) {
  const perDevice = chipOf(instanceType).physicalCores / lnc;
  const topology =
    instanceType === 'trn2.48xlarge'
      ? TRN2_48XLARGE_DEVICES
      : [{ bdf: '0000:33:00.0', cpu_affinity: '0-11', numa_node: '0', connected_to: null }];
  return topology.map((device, index) => ({
    instance_type: instanceType,
    instance_id: instanceId(instanceType),
    neuron_device: index,
    ...device,
    nc_count: perDevice,
    logical_neuroncore_config: lnc,
    memory_size: chipOf(instanceType).memoryBytes,
    neuroncore_ids: Array.from({ length: perDevice }, (_, c) => index * perDevice + c),
    neuron_processes: [],
  }));
}

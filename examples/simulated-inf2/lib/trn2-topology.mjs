// A trn2.48xlarge's sixteen Trainium2 chips as the Neuron docs' neuron-ls page lists them
// (aws-neuron-sdk tools/neuron-sys-tools/neuron-ls.rst: PCI BDF, CPU affinity, NUMA node
// and the four chips each is connected to in its 4 × 4 torus).
const ROWS = [
  ['cc', '48-95,144-191', '1', [12, 3, 4, 1]],
  ['b5', '48-95,144-191', '1', [13, 0, 5, 2]],
  ['b6', '48-95,144-191', '1', [14, 1, 6, 3]],
  ['cb', '48-95,144-191', '1', [15, 2, 7, 0]],
  ['6f', '0-47,96-143', '0', [0, 7, 8, 5]],
  ['58', '0-47,96-143', '0', [1, 4, 9, 6]],
  ['59', '0-47,96-143', '0', [2, 5, 10, 7]],
  ['6e', '0-47,96-143', '0', [3, 6, 11, 4]],
  ['9b', '0-47,96-143', '0', [4, 11, 12, 9]],
  ['84', '0-47,96-143', '0', [5, 8, 13, 10]],
  ['85', '0-47,96-143', '0', [6, 9, 14, 11]],
  ['9a', '0-47,96-143', '0', [7, 10, 15, 8]],
  ['f8', '48-95,144-191', '1', [8, 15, 0, 13]],
  ['e1', '48-95,144-191', '1', [9, 12, 1, 14]],
  ['e2', '48-95,144-191', '1', [10, 13, 2, 15]],
  ['f7', '48-95,144-191', '1', [11, 14, 3, 12]],
];

export const TRN2_48XLARGE_DEVICES = Object.freeze(
  ROWS.map(([bus, cpus, node, connected]) => ({
    bdf: `0000:${bus}:00.0`,
    cpu_affinity: cpus,
    numa_node: node,
    connected_to: connected,
  })),
);

// The human-readable output of neuron-ls: instance lines, then a boxed table with
// two-line headers, one row per Neuron device.

const COLUMNS = [
  { head: ['NEURON', 'DEVICE'], cell: (d) => String(d.neuron_device) },
  { head: ['NEURON', 'CORES'], cell: (d) => String(d.nc_count) },
  { head: ['NEURON CORE', 'IDS'], cell: (d) => compactRange(d.neuroncore_ids) },
  { head: ['NEURON', 'MEMORY'], cell: (d) => `${d.memory_size / 1024 ** 3} GB` },
  { head: ['CONNECTED', 'DEVICES'], cell: (d) => (d.connected_to ?? []).join(', ') },
  { head: ['PCI', 'BDF'], cell: (d) => d.bdf.replace(/^0000:/, '') },
  { head: ['CPU', 'AFFINITY'], cell: (d) => d.cpu_affinity },
  { head: ['NUMA', 'NODE'], cell: (d) => d.numa_node },
];

function compactRange(ids) {
  return ids.length > 1 ? `${ids[0]}-${ids[ids.length - 1]}` : String(ids[0]);
}

function center(text, width) {
  const left = Math.floor((width - text.length) / 2);
  return ' '.repeat(left) + text + ' '.repeat(width - text.length - left);
}

export function renderDeviceTable(devices, { instanceType, instanceId, lnc }) {
  const rows = devices.map((device) => COLUMNS.map((column) => column.cell(device)));
  const widths = COLUMNS.map((column, i) =>
    Math.max(...column.head.map((h) => h.length), ...rows.map((row) => row[i].length)),
  );
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells, align) =>
    `| ${cells.map((cell, i) => align(cell, widths[i])).join(' | ')} |`;
  return [
    `instance-type: ${instanceType}`,
    `instance-id: ${instanceId}`,
    ...(lnc !== undefined ? [`logical-neuroncore-config: ${lnc}`] : []),
    rule,
    line(
      COLUMNS.map((c) => c.head[0]),
      center,
    ),
    line(
      COLUMNS.map((c) => c.head[1]),
      center,
    ),
    rule,
    ...rows.map((row) => line(row, (cell, width) => cell.padEnd(width))),
    rule,
  ].join('\n');
}

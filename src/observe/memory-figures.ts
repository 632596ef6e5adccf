// What one clean run's watching comes to (peaks and a mean), and the metrics of a
// benchmark's clean runs, one value per run: device memory peak (and per kind), NeuronCore
// use, host peak RSS of the benchmark's processes and of its server's. Pure.

import { healthProblems } from '../formats/neuron-monitor-health.js';
import {
  DEVICE_MEMORY_KINDS,
  type DeviceMemoryKind,
  type MonitorStream,
} from '../formats/neuron-monitor.js';
import type { Metric, NotMeasuredNote, ObservedMemory, RunOutcome } from '../model.js';

const MIB = 1024 * 1024;

/** The metrics `monitor:` adds, all lower-is-better. */
export const MEMORY_METRICS = {
  device: { id: 'device_memory_peak', unit: 'MiB' },
  host: { id: 'host_rss_peak', unit: 'MiB' },
  server: { id: 'server_rss_peak', unit: 'MiB' },
  utilization: { id: 'neuroncore_utilization_mean', unit: '%' },
} as const;

/** `device_memory_<kind>_peak`: one kind of device memory at its peak. */
export function deviceKindMetricId(kind: DeviceMemoryKind): string {
  return `device_memory_${kind}_peak`;
}

/** One run: the highest of each figure over its reports, the mean utilisation. */
export function observedMemory(
  stream: MonitorStream,
  host: { peakBytes?: number },
  warnings: readonly string[] = [],
): ObservedMemory {
  const peak = (values: (number | undefined)[]): number | undefined => {
    const known = values.filter((value): value is number => value !== undefined);
    return known.length > 0 ? Math.max(...known) : undefined;
  };
  const device = peak(stream.samples.map((s) => s.deviceBytes));
  const kinds: Record<string, number> = {};
  for (const kind of DEVICE_MEMORY_KINDS) {
    const value = peak(stream.samples.map((s) => s.kinds[kind]));
    if (value !== undefined) kinds[kind] = value;
  }
  const use = stream.samples.flatMap((s) => (s.utilization === undefined ? [] : [s.utilization]));
  const noRuntime =
    stream.reports > 0 && stream.samples.length === 0
      ? [
          `neuron-monitor wrote ${stream.reports} report(s) but none saw a Neuron runtime: the benchmark ran no model on the NeuronCores while it was watched`,
        ]
      : stream.reports === 0 && warnings.length === 0 && stream.warnings.length === 0
        ? ['neuron-monitor wrote no report while the run lasted (a run shorter than its period?)']
        : [];
  const unhealthy = healthProblems(stream.health);
  return {
    monitorSamples: stream.samples.length,
    ...(unhealthy.length > 0 ? { unhealthy } : {}),
    ...(device !== undefined ? { devicePeakBytes: device } : {}),
    ...(Object.keys(kinds).length > 0 ? { kindPeakBytes: kinds } : {}),
    ...(use.length > 0
      ? { utilizationMean: use.reduce((sum, value) => sum + value, 0) / use.length }
      : {}),
    ...(host.peakBytes !== undefined ? { hostPeakBytes: host.peakBytes } : {}),
    warnings: [...warnings, ...stream.warnings, ...noRuntime],
  };
}

export interface MemoryMetrics {
  metrics: Metric[];
  notMeasured: Record<string, NotMeasuredNote>;
  /** Each warning once, with the runs it came from. */
  warnings: string[];
}

/**
 * The clean runs' figures as metrics: a figure every clean run has becomes a metric with
 * one value per run; one that some run lacks is "not measured", with the reason.
 */
export function memoryMetrics(clean: readonly RunOutcome[]): MemoryMetrics {
  // A figure some run lacks is "not measured" when it is required; the kinds an older
  // neuron-monitor does not break down are simply absent, as is a server's on a benchmark
  // without one.
  const served = clean.some((run) => run.memory?.server !== undefined);
  const figures: {
    id: string;
    unit: string;
    of: (m: ObservedMemory) => number | undefined;
    required?: boolean;
  }[] = [
    { ...MEMORY_METRICS.device, of: (m) => mib(m.devicePeakBytes), required: true },
    ...DEVICE_MEMORY_KINDS.map((kind) => ({
      id: deviceKindMetricId(kind),
      unit: 'MiB',
      of: (m: ObservedMemory) => mib(m.kindPeakBytes?.[kind]),
    })),
    { ...MEMORY_METRICS.utilization, of: (m) => m.utilizationMean },
    { ...MEMORY_METRICS.host, of: (m) => mib(m.hostPeakBytes), required: true },
    { ...MEMORY_METRICS.server, of: (m) => mib(m.server?.peakBytes), required: served },
  ];
  const metrics: Metric[] = [];
  const notMeasured: Record<string, NotMeasuredNote> = {};
  for (const figure of figures) {
    const values = clean.map((run) => (run.memory ? figure.of(run.memory) : undefined));
    const missing = values.findIndex((value) => value === undefined);
    if (missing < 0) {
      metrics.push({
        id: figure.id,
        unit: figure.unit,
        direction: 'lower-is-better',
        values: values as number[],
      });
      continue;
    }
    if (figure.required !== true) continue;
    notMeasured[figure.id] = {
      reason: `not measured in clean run ${clean[missing]?.index ?? '?'} (see the warnings)`,
      unit: figure.unit,
      direction: 'lower-is-better',
    };
  }
  return { metrics, notMeasured, warnings: runWarnings(clean) };
}

function mib(bytes: number | undefined): number | undefined {
  // Four decimals: a kind of a few KiB (runtime) keeps its change.
  return bytes === undefined ? undefined : Math.round((bytes / MIB) * 10_000) / 10_000;
}

/** "clean run 1, 2: <warning>", each warning once. */
function runWarnings(clean: readonly RunOutcome[]): string[] {
  const runsOf = new Map<string, number[]>();
  for (const run of clean) {
    for (const warning of run.memory?.warnings ?? []) {
      runsOf.set(warning, [...(runsOf.get(warning) ?? []), run.index]);
    }
  }
  return [...runsOf].map(([warning, runs]) => `clean run ${runs.join(', ')}: ${warning}`);
}

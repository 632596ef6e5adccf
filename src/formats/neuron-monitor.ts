// neuron-monitor's stdout: one JSON report per period, one per line (Neuron docs, "Neuron
// Monitor User Guide": `neuron_runtime_data[]` per runtime process, each `report` with
// `memory_used.neuron_runtime_used_bytes` {host, neuron_device, usage_breakdown} and
// `neuroncore_counters.neuroncores_in_use.<core>.neuroncore_utilization` in percent; see
// test/fixtures/neuron-monitor/excerpt.json). Any group may carry an `error`
// string instead of data, and a stopped runtime drops out of the list. Pure: text in,
// samples and warnings (naming the file and line) out; a bad line never costs the others.

import { HealthTally, type MonitorHealth } from './neuron-monitor-health.js';

/** The kinds of device memory the gate reports, in the order it shows them. */
export const DEVICE_MEMORY_KINDS = [
  'model_code',
  'constants',
  'tensors',
  'scratchpad',
  'runtime',
] as const;
export type DeviceMemoryKind = (typeof DEVICE_MEMORY_KINDS)[number];

/** One report that saw at least one Neuron runtime. */
export interface MonitorSample {
  /** 1-based line of the stream. */
  line: number;
  /** Device memory of every runtime together, bytes; absent when no runtime reported it. */
  deviceBytes?: number;
  /** The same by kind, over every runtime and NeuronCore. */
  kinds: Partial<Record<DeviceMemoryKind, number>>;
  /** Mean utilisation (percent) of the NeuronCores in use; absent when none reported it. */
  utilization?: number;
}

export interface MonitorStream {
  samples: MonitorSample[];
  /** Reports read (with or without a runtime in them). */
  reports: number;
  /** The distinct `pid`s of the runtimes that reported (0 and absent pids left out). */
  runtimePids?: number[];
  /** The distinct `neuron_runtime_tag`s of the runtimes that reported (NEURON_PROCESS_TAG). */
  runtimeTags?: string[];
  /** Execution errors of the counted runtimes and the devices' new ECC events. */
  health?: MonitorHealth;
  warnings: string[];
}

/** A runtime as a filter sees it: its pid (absent for 0) and tag. */
export interface RuntimeId {
  pid?: number;
  tag?: string;
}

/** Which runtimes to count. */
export type RuntimeFilter = (runtime: RuntimeId) => boolean;

/** Line problems named one by one; beyond this, counted. */
const MAX_LINE_WARNINGS = 5;

/** `neuroncore_memory_usage` key → the gate's kind; other keys count in the total only. */
function kindOf(key: string): DeviceMemoryKind | undefined {
  if (key === 'model_code') return 'model_code';
  if (key === 'constants') return 'constants';
  if (key === 'tensors') return 'tensors';
  if (key === 'runtime_memory') return 'runtime';
  if (key.includes('scratchpad')) return 'scratchpad';
  return undefined;
}

export function parseNeuronMonitorStream(
  text: string,
  file: string,
  keep: RuntimeFilter = () => true,
): MonitorStream {
  // One report pretty-printed over many lines (a saved excerpt, as the docs show one) is
  // read as one line.
  const lines = isOneDocument(text) ? [text.replace(/\s*\n\s*/g, ' ')] : text.split('\n');
  const endsCut = !text.endsWith('\n') && text !== '';
  const problems: string[] = [];
  const groupErrors = new Map<string, number>();
  const samples: MonitorSample[] = [];
  const pids = new Set<number>();
  const tags = new Set<string>();
  const health = new HealthTally();
  let reports = 0;
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const number = index + 1;
    let report: unknown;
    try {
      report = JSON.parse(line);
    } catch (error) {
      const cut = endsCut && index === lines.length - 1;
      problems.push(
        cut
          ? `${file} line ${number}: cut off (the stream ended in the middle of a report); the line is skipped`
          : `${file} line ${number}: not a JSON report (${(error as Error).message}); the line is skipped`,
      );
      return;
    }
    if (!isObject(report) || !Array.isArray(report.neuron_runtime_data)) {
      problems.push(
        `${file} line ${number}: no neuron_runtime_data list (not a neuron-monitor report); the line is skipped`,
      );
      return;
    }
    reports += 1;
    const runtimes = report.neuron_runtime_data.filter((runtime) => {
      const id = idOf(runtime);
      if (id.pid !== undefined) pids.add(id.pid);
      if (id.tag !== undefined) tags.add(id.tag);
      return keep(id);
    });
    health.addRuntimes(runtimes);
    health.addSystem(report.system_data);
    const sample = sampleOf(runtimes, number, (group, message) => {
      const key = `${group}: ${message}`;
      if (!groupErrors.has(key)) groupErrors.set(key, number);
    });
    if (sample) samples.push(sample);
  });
  const warnings = problems.slice(0, MAX_LINE_WARNINGS);
  if (problems.length > MAX_LINE_WARNINGS) {
    warnings.push(`${file}: ${problems.length - MAX_LINE_WARNINGS} more lines skipped`);
  }
  for (const [key, first] of groupErrors) {
    warnings.push(`${file} line ${first}: neuron-monitor reported ${key}`);
  }
  return {
    samples,
    reports,
    runtimePids: [...pids].sort((a, b) => a - b),
    runtimeTags: [...tags].sort(),
    health: health.result(),
    warnings,
  };
}

/**
 * A runtime's process id, when it names one (the docs' excerpt shows 0: unknown), and its
 * tag, when it has one.
 */
function idOf(runtime: unknown): RuntimeId {
  if (!isObject(runtime)) return {};
  const { pid, neuron_runtime_tag: tag } = runtime;
  return {
    ...(typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? { pid } : {}),
    ...(typeof tag === 'string' && tag !== '' ? { tag } : {}),
  };
}

/** One report's runtimes summed; undefined when it saw no runtime at all. */
function sampleOf(
  runtimes: unknown[],
  line: number,
  groupError: (group: string, message: string) => void,
): MonitorSample | undefined {
  let deviceBytes: number | undefined;
  const kinds: Partial<Record<DeviceMemoryKind, number>> = {};
  const utilizations: number[] = [];
  let seen = 0;
  for (const runtime of runtimes) {
    if (!isObject(runtime)) continue;
    if (typeof runtime.error === 'string' && runtime.error !== '') {
      groupError('a runtime error', runtime.error);
      continue;
    }
    if (!isObject(runtime.report)) continue;
    seen += 1;
    const memory = memoryOf(runtime.report.memory_used, groupError);
    if (memory) {
      deviceBytes = (deviceBytes ?? 0) + memory.total;
      for (const [kind, bytes] of Object.entries(memory.kinds) as [DeviceMemoryKind, number][]) {
        kinds[kind] = (kinds[kind] ?? 0) + bytes;
      }
    }
    utilizations.push(...utilizationsOf(runtime.report.neuroncore_counters, groupError));
  }
  if (seen === 0) return undefined;
  const utilization =
    utilizations.length > 0
      ? utilizations.reduce((sum, value) => sum + value, 0) / utilizations.length
      : undefined;
  return {
    line,
    ...(deviceBytes !== undefined ? { deviceBytes } : {}),
    kinds,
    ...(utilization !== undefined ? { utilization } : {}),
  };
}

/** `memory_used`: the device total (or the sum of its breakdown) and the breakdown by kind. */
function memoryOf(
  group: unknown,
  groupError: (group: string, message: string) => void,
): { total: number; kinds: Partial<Record<DeviceMemoryKind, number>> } | undefined {
  if (!isObject(group)) return undefined;
  if (typeof group.error === 'string' && group.error !== '') {
    groupError('a memory_used error', group.error);
    return undefined;
  }
  const used = group.neuron_runtime_used_bytes;
  if (!isObject(used)) return undefined;
  const kinds: Partial<Record<DeviceMemoryKind, number>> = {};
  let breakdownTotal = 0;
  const cores = isObject(used.usage_breakdown)
    ? used.usage_breakdown.neuroncore_memory_usage
    : undefined;
  for (const core of isObject(cores) ? Object.values(cores) : []) {
    if (!isObject(core)) continue;
    for (const [key, value] of Object.entries(core)) {
      if (!isCount(value)) continue;
      breakdownTotal += value;
      const kind = kindOf(key);
      if (kind) kinds[kind] = (kinds[kind] ?? 0) + value;
    }
  }
  const total = isCount(used.neuron_device) ? used.neuron_device : breakdownTotal;
  if (!isCount(used.neuron_device) && Object.keys(kinds).length === 0) return undefined;
  return { total, kinds };
}

function utilizationsOf(
  group: unknown,
  groupError: (group: string, message: string) => void,
): number[] {
  if (!isObject(group)) return [];
  if (typeof group.error === 'string' && group.error !== '') {
    groupError('a neuroncore_counters error', group.error);
    return [];
  }
  const cores = group.neuroncores_in_use;
  if (!isObject(cores)) return [];
  return Object.values(cores).flatMap((core) =>
    isObject(core) && isCount(core.neuroncore_utilization) ? [core.neuroncore_utilization] : [],
  );
}

function isOneDocument(text: string): boolean {
  if (!/^\s*\{\s*\n/.test(text)) return false;
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

// The host memory of a benchmark's process tree, watched through /proc while it runs.
//
// Why /proc and not wait4's rusage: ru_maxrss is the peak of the single largest process
// that was waited for, not of the tree at once (vLLM's engine and workers are separate
// processes), and Node hands out no rusage of a child anyway. So every period the gate
// finds the run's processes (their environment holds the run's own PERF_GATE_OUTPUT, as
// every process the benchmark starts inherits it) and sums their VmRSS; a process's own
// VmHWM (its peak, kept by the kernel) is a floor for what a period between two samples
// missed. Linux only; elsewhere nothing is measured and the report says so.

import { readdirSync, readFileSync } from 'node:fs';
import { processEnvironHolds } from '../runner/environ-entry.js';

/** The pids of a run's processes: as this process sees them, and inside their sandboxes. */
export interface RunPids {
  here: number[];
  inner: number[];
}

export interface HostRssSampler {
  /**
   * Stops sampling; the peak in bytes, undefined when no process of the run was seen, and
   * the pids the run's processes had, for neuron-monitor's runtimes: in this PID namespace,
   * and in the ones below it (NSpid: a sandboxed run's processes have one in each).
   */
  stop(): { peakBytes?: number; samples: number; pids: RunPids };
}

/** Samples every `periodMs` the processes whose environment holds `variable=value`. */
export function startHostRssSampler(
  variable: string,
  value: string,
  periodMs: number,
): HostRssSampler {
  const entry = `${variable}=${value}`;
  let peak: number | undefined;
  let samples = 0;
  const here = new Set<number>();
  const inner = new Set<number>();
  const sample = (): void => {
    const found = processesHolding(entry);
    if (found.length === 0) return;
    samples += 1;
    for (const run of found) {
      here.add(run.pid);
      for (const pid of run.pids.slice(1)) inner.add(pid);
    }
    const sum = found.reduce((total, p) => total + p.rss, 0);
    const highest = Math.max(sum, ...found.map((p) => p.hwm));
    peak = Math.max(peak ?? 0, highest);
  };
  sample();
  const timer = setInterval(sample, periodMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return {
        ...(peak !== undefined ? { peakBytes: peak } : {}),
        samples,
        pids: { here: sorted(here), inner: sorted(inner) },
      };
    },
  };
}

const sorted = (pids: Set<number>) => [...pids].sort((a, b) => a - b);

interface RunProcess {
  pid: number;
  rss: number;
  hwm: number;
  /** Its pid here and in each PID namespace below (NSpid), or just `pid`. */
  pids: number[];
}

/** Live processes (not zombies) whose environment holds `entry`, with VmRSS and VmHWM. */
function processesHolding(entry: string): RunProcess[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: RunProcess[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    if (!processEnvironHolds(name, entry)) continue;
    const memory = residentMemory(name);
    if (memory) found.push({ pid: Number(name), ...memory });
  }
  return found;
}

/** VmRSS and VmHWM in bytes, and NSpid; undefined for a zombie (it has none) or a process gone. */
function residentMemory(pid: string): { rss: number; hwm: number; pids: number[] } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (name: string): number | undefined => {
    const match = new RegExp(`^${name}:\\s*(\\d+)\\s*kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const rss = kib('VmRSS');
  if (rss === undefined) return undefined;
  const nspid = /^NSpid:\s*([\d\s]+)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number);
  return { rss, hwm: kib('VmHWM') ?? rss, pids: nspid ?? [Number(pid)] };
}

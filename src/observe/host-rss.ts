// The host memory of a process tree, watched through /proc while a run runs: the
// benchmark's (host_rss_peak) and its server's (server-rss.ts).
//
// Why /proc and not wait4's rusage: ru_maxrss is the peak of the single largest process
// that was waited for, not of the tree at once (vLLM's engine and workers are separate
// processes), and Node hands out no rusage of a child anyway. So every period the gate
// finds the tree's processes (their environment holds a marker unique to it, as every
// process started below inherits it: a run's own PERF_GATE_OUTPUT, a server's
// PERF_GATE_SERVER) and sums their VmRSS; a process's own VmHWM (its peak, kept by the
// kernel) may be a floor for what a period between two samples missed. Linux only;
// elsewhere nothing is measured and the report says so.

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

/** Which processes a sampler counts: whether /proc entry `pid` is one of them. */
export type ProcessSelector = (pid: string) => boolean;

/** The processes whose environment holds `variable=value` as one whole entry. */
export function holdingEntry(variable: string, value: string): ProcessSelector {
  const entry = `${variable}=${value}`;
  return (pid) => processEnvironHolds(pid, entry);
}

export interface RssSamplerOptions {
  periodMs: number;
  /**
   * Whether each process's VmHWM is a floor for the peak. Right for a run's own processes,
   * which start with it; wrong for a server up since before the run: its VmHWM holds the
   * peak of its start and of every run before.
   */
  hwmFloor: boolean;
}

/** Samples every `periodMs` the processes whose environment holds `variable=value`. */
export function startHostRssSampler(
  variable: string,
  value: string,
  periodMs: number,
): HostRssSampler {
  return startRssSampler(holdingEntry(variable, value), { periodMs, hwmFloor: true });
}

/** Samples every period the resident memory of the processes `select` picks, summed. */
export function startRssSampler(
  select: ProcessSelector,
  options: RssSamplerOptions,
): HostRssSampler {
  let peak: number | undefined;
  let samples = 0;
  const here = new Set<number>();
  const inner = new Set<number>();
  const sample = (): void => {
    const found = selectedProcesses(select);
    if (found.length === 0) return;
    samples += 1;
    for (const run of found) {
      here.add(run.pid);
      for (const pid of run.pids.slice(1)) inner.add(pid);
    }
    const sum = found.reduce((total, p) => total + p.rss, 0);
    const highest = options.hwmFloor ? Math.max(sum, ...found.map((p) => p.hwm)) : sum;
    peak = Math.max(peak ?? 0, highest);
  };
  sample();
  const timer = setInterval(sample, options.periodMs);
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

/** Live processes (not zombies) `select` picks, with VmRSS and VmHWM. */
function selectedProcesses(select: ProcessSelector): RunProcess[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: RunProcess[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    if (!select(name)) continue;
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

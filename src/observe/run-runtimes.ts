// neuron-monitor reports every Neuron runtime of the host, not only the benchmark's: on a
// runner that runs two jobs at once the other's device memory would count as this run's.
// Each runtime names its process (`pid`), so only those whose pid belongs to the run's
// processes are counted (host-rss.ts collects their pids). A sandboxed run's processes have
// a pid of their own inside their PID namespace too (NSpid), which a runtime may report
// instead; those small numbers can collide with another sandbox's, so the gate's own view
// of the pids is tried first. When neuron-monitor names none of the run's processes (a
// runtime of pid 0, a namespace the gate cannot see into), the gate cannot tell and counts
// every runtime, as it did before, saying so when there were several.

import { parseNeuronMonitorStream, type MonitorStream } from '../formats/neuron-monitor.js';
import type { RunPids } from './host-rss.js';

export function runtimesOfRun(text: string, file: string, runPids: RunPids): MonitorStream {
  const all = parseNeuronMonitorStream(text, file);
  const seen = all.runtimePids ?? [];
  for (const pids of [runPids.here, runPids.inner]) {
    const ours = new Set(pids);
    if (seen.some((pid) => ours.has(pid))) {
      return parseNeuronMonitorStream(text, file, (pid) => ours.has(pid));
    }
  }
  if (seen.length <= 1) return all;
  return {
    ...all,
    warnings: [
      ...all.warnings,
      `neuron-monitor saw ${seen.length} Neuron runtimes (pids ${seen.join(', ')}), none of them a process of this run (another PID namespace?): all of them are counted, so device memory may include another job's`,
    ],
  };
}

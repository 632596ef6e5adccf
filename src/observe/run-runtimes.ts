// neuron-monitor reports every Neuron runtime of the host, not only the benchmark's: on a
// runner that runs two jobs at once the other's device memory would count as this run's.
// Each runtime names its process (`pid`), so only those whose pid belongs to the run's
// processes are counted (host-rss.ts collects their pids). A sandboxed run's processes have
// a pid of their own inside their PID namespace too (NSpid), which a runtime may report
// instead; those small numbers can collide with another sandbox's, so the gate's own view
// of the pids is tried first. Some hosts report `pid: 0` for every runtime: then the
// runtime's tag tells, which is the run's NEURON_PROCESS_TAG (the gate gives each run its
// own, unless the benchmark sets one). When neither names the run, the gate cannot tell and
// counts every runtime, saying so when there were several.

import { parseNeuronMonitorStream, type MonitorStream } from '../formats/neuron-monitor.js';
import type { RunPids } from './host-rss.js';

export function runtimesOfRun(
  text: string,
  file: string,
  runPids: RunPids,
  runTag?: string,
): MonitorStream {
  const all = parseNeuronMonitorStream(text, file);
  const seen = all.runtimePids ?? [];
  for (const pids of [runPids.here, runPids.inner]) {
    const ours = new Set(pids);
    if (seen.some((pid) => ours.has(pid))) {
      // A runtime without a pid beside them counts only when its tag is the run's too.
      return parseNeuronMonitorStream(text, file, ({ pid, tag }) =>
        pid === undefined
          ? runTag === undefined || tag === undefined || tag === runTag
          : ours.has(pid),
      );
    }
  }
  if (runTag !== undefined && (all.runtimeTags ?? []).includes(runTag)) {
    return parseNeuronMonitorStream(text, file, ({ tag }) => tag === runTag);
  }
  const runtimes = Math.max(seen.length, all.runtimeTags?.length ?? 0);
  if (runtimes <= 1) return all;
  return {
    ...all,
    warnings: [
      ...all.warnings,
      `neuron-monitor saw ${runtimes} Neuron runtimes (pids ${seen.join(', ') || 'all 0'}; tags ${(all.runtimeTags ?? []).join(', ') || 'none'}), none of them a process or tag of this run (another PID namespace, a tag the benchmark set?): all of them are counted, so device memory may include another job's`,
    ],
  };
}

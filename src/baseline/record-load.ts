// The host's load during one gate run, as one figure: what compare/host-load.ts relates its
// timings to. A busy host slows a whole gate run, every run of it alike, so the figure
// belongs to the record (the gate run), not to each value.

import type { HostLoad, RunInfo } from '../model.js';

/** The share of the host's CPU others took (other processes and the hypervisor's steal). */
export function loadShare(load: HostLoad): number {
  return load.other + load.steal;
}

/** The mean share over the clean runs that measured it; null when none did. */
export function gateRunLoad(runs: readonly RunInfo[]): number | null {
  const shares = runs.flatMap((run) =>
    run.kind === 'clean' && run.hostLoad ? [loadShare(run.hostLoad)] : [],
  );
  if (shares.length === 0) return null;
  return shares.reduce((sum, share) => sum + share, 0) / shares.length;
}

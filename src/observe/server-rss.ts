// The host memory of a run's server (server_rss_peak): the server's process tree, found by
// the marker its session put in its environment (runner/server-marker.ts), summed each
// period while the run runs, as host-rss.ts does for the run's own tree. The server is up
// before the run and after it, so its processes' VmHWM (the peak since they started: the
// model's loading, every run before) is no floor for this run's peak: only what was
// resident at the samples counts.

import type { ProcessMarker } from '../runner/server-marker.js';
import { holdingEntry, startRssSampler } from './host-rss.js';

export interface ServerRssWatch {
  /** `server` is set when the run had a server; its peak when a process of it was seen. */
  stop(): { server?: { peakBytes?: number }; warnings: string[] };
}

/** Watches the server `marker` names (nothing without one) every `periodMs`. */
export function watchServerRss(
  marker: ProcessMarker | undefined,
  periodMs: number,
): ServerRssWatch {
  if (!marker) return { stop: () => ({ warnings: [] }) };
  const sampler = startRssSampler(holdingEntry(marker.variable, marker.value), {
    periodMs,
    hwmFloor: false,
  });
  return {
    stop: () => {
      const { peakBytes } = sampler.stop();
      if (peakBytes !== undefined) return { server: { peakBytes }, warnings: [] };
      return {
        server: {},
        warnings: [
          `no process of the server was seen in /proc while the run ran, so the server's host peak RSS was not measured (not Linux, or a server whose processes run as another user or clear ${marker.variable} from their environment)`,
        ],
      };
    },
  };
}

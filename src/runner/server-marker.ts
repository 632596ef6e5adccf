// The mark every process of a server the gate starts carries: PERF_GATE_SERVER, with a
// value of its own per session, in the environment the server starts with and so in every
// process it starts. The gate finds the server's process tree by it (observe/server-rss.ts),
// in a sandbox too, as it finds a run's by the run's PERF_GATE_OUTPUT.

import { randomBytes } from 'node:crypto';

export const SERVER_VARIABLE = 'PERF_GATE_SERVER';

/** One `variable=value` entry of a process's environment that marks a process tree. */
export interface ProcessMarker {
  variable: string;
  value: string;
}

/** A marker no other session's server has. */
export function newServerMarker(): ProcessMarker {
  return { variable: SERVER_VARIABLE, value: randomBytes(8).toString('hex') };
}

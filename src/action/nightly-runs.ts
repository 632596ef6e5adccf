// Scheduled (nightly) runs measure each benchmark more times than a pull request does:
// nobody waits on a nightly, and the history that finds regressions is built from the
// nights. With 3 runs a night a 3% step at run CV 5% takes weeks to tell from noise; with
// 24 it is found by its 2nd night (docs/history.md, npm run bench:changepoints, on the
// bench's own synthetic nights: no measured inf2 history was at hand to calibrate on).

import type { GateConfig } from '../config/types.js';

/**
 * On a `schedule` event, every benchmark runs at least `nightlyRuns` clean runs. The
 * config hash is the configured one: the same benchmark measured more times is the same
 * config, so pull requests still compare with what the nights stored.
 */
export function withNightlyRuns(
  config: GateConfig,
  eventName: string,
  nightlyRuns: number,
): GateConfig {
  if (eventName !== 'schedule') return config;
  return {
    ...config,
    benchmarks: config.benchmarks.map((spec) =>
      spec.runs >= nightlyRuns ? spec : { ...spec, runs: nightlyRuns },
    ),
  };
}

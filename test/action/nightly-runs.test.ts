import { describe, expect, it } from 'vitest';
import { withNightlyRuns } from '../../src/action/nightly-runs.js';
import { resolveGateConfig } from '../../src/config/load.js';

describe('withNightlyRuns', () => {
  it('runs every benchmark at least nightly-runs times on a schedule, keeping its config hash', async () => {
    const config = await resolveGateConfig(
      { command: 'python bench.py', runs: '3' },
      { workspace: process.cwd() },
    );
    const [spec] = config.benchmarks;
    const nightly = withNightlyRuns(config, 'schedule', 24);
    expect(nightly.benchmarks[0]).toEqual({ ...spec, runs: 24 });
    // Pull requests and pushes keep their runs.
    for (const event of ['pull_request', 'push', 'workflow_dispatch']) {
      expect(withNightlyRuns(config, event, 24)).toBe(config);
    }
    // A benchmark configured for more runs keeps them.
    expect(withNightlyRuns(config, 'schedule', 2).benchmarks[0]).toBe(spec);
  });
});

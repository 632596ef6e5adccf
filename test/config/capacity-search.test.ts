// `capacity:` in an SLO block: grid (the default) or a boundary search, each field checked
// and named; a valid search is carried on the SloSpec for the gate to run.
import { describe, expect, it } from 'vitest';

import { readCapacityMode } from '../../src/config/capacity-search.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

const entry = (capacity: string) =>
  `benchmarks:\n  - name: serve\n    command: ./bench.sh\n    slo:\n      ttft: 500ms\n      capacity: ${capacity}\n`;

async function configOf(yaml: string) {
  return resolveGateConfig({}, { workspace: await makeWorkspace({ [FILE]: yaml }) });
}

async function errorOf(capacity: string): Promise<string> {
  const error = await rejection(configOf(entry(capacity)));
  expect(error.kind).toBe('config');
  return error.message;
}

describe('capacity in an SLO block', () => {
  it('reads the search and its fields', () => {
    expect(readCapacityMode('search')).toEqual({
      capacity: { mode: 'search', search: {} },
      issues: [],
    });
    const read = readCapacityMode({
      search: { from: 1, to: 8, resolution: '5%', 'max-runs': 15 },
    });
    expect(read).toEqual({
      capacity: {
        mode: 'search',
        search: { from: 1, to: 8, resolution: { relative: 0.05 }, maxRuns: 15 },
      },
      issues: [],
    });
    expect(readCapacityMode({ search: { resolution: 0.25 } }).capacity).toEqual({
      mode: 'search',
      search: { resolution: { absolute: 0.25 } },
    });
  });

  it('keeps the grid as it was', async () => {
    const config = await configOf(entry('grid'));
    expect(config.benchmarks[0]!.slo).toEqual({
      objectives: [{ metric: 'ttft', limitMs: 500 }],
      attainment: 0.9,
    });
  });

  it('carries a valid search on the SloSpec, and no capacity for the grid', async () => {
    const sloOf = async (written: string) => (await configOf(entry(written))).benchmarks[0]!.slo;
    expect((await sloOf('search'))?.capacity).toEqual({ mode: 'search', search: {} });
    expect(
      (await sloOf('{ search: { from: 1, to: 8, resolution: 5%, max-runs: 15 } }'))?.capacity,
    ).toEqual({
      mode: 'search',
      search: { from: 1, to: 8, resolution: { relative: 0.05 }, maxRuns: 15 },
    });
    expect(await sloOf('grid')).not.toHaveProperty('capacity');
  });

  it('names each wrong field of the search, all at once', async () => {
    const message = await errorOf(
      '{ search: { from: 0, to: fast, resolution: 150%, max-runs: 1.5, step: 2 } }',
    );
    expect(message).toContain(
      'benchmarks[0].slo.capacity.search.from: found 0; allowed: a load above 0',
    );
    expect(message).toContain(
      'benchmarks[0].slo.capacity.search.to: found "fast"; allowed: a load above 0',
    );
    expect(message).toContain(
      'benchmarks[0].slo.capacity.search.resolution: found "150%"; allowed: a share of the load above 0% and below 100%',
    );
    expect(message).toContain(
      'benchmarks[0].slo.capacity.search.max-runs: found 1.5; allowed: a whole number',
    );
    expect(message).toContain(
      'benchmarks[0].slo.capacity.search.step: found "step"; unknown key "step"; allowed keys: from, to, resolution, max-runs',
    );
    expect(message).not.toContain('not yet');
  });

  it('refuses a range upside down and a mode it does not know', async () => {
    expect(await errorOf('{ search: { from: 8, to: 2 } }')).toContain(
      'benchmarks[0].slo.capacity.search.to: found 2; to (2) must be above from (8)',
    );
    expect(await errorOf('bisect')).toContain(
      'benchmarks[0].slo.capacity: found "bisect"; allowed: grid (the default: read off the sweep), search,',
    );
  });
});

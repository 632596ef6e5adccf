// `capacity:` in an SLO block: how the capacity is found. `grid` (the default) reads it off
// the sweep's variants; `search` probes the loads a boundary search chooses
// (src/derive/boundary-search.ts), as vLLM's `serve_sla` and AIPerf do:
//
//   capacity: search
//   capacity: { search: { from: 1, to: 8, resolution: 5%, max-runs: 15 } }
//
// `from`/`to` start the search (it expands past them); `resolution` is a share of the load
// (5%) or a load (0.25); `max-runs` the runs one search may take, the grid's runs it starts
// from included. Absent, they come from the sweep: its lowest and highest load, 5%, and the
// variants' count + 10. The gate runs it in compare/capacity-search-run.ts.

import { readPercent } from './percent.js';

export interface CapacitySearchSpec {
  from?: number;
  to?: number;
  resolution?: { relative: number } | { absolute: number };
  maxRuns?: number;
}

export type CapacityMode = { mode: 'grid' } | { mode: 'search'; search: CapacitySearchSpec };

type Issue = { path: (string | number)[]; message: string; input: unknown };

export const CAPACITY_ALLOWED =
  'allowed: grid (the default: read off the sweep), search, or { search: { from, to, resolution, max-runs } }';
const SEARCH_KEYS = ['from', 'to', 'resolution', 'max-runs'] as const;
const LOAD_ALLOWED = 'allowed: a load above 0, such as 1 (requests/s or a concurrency)';
const RESOLUTION_ALLOWED =
  'allowed: a share of the load above 0% and below 100%, such as 5%, or a load above 0, such as 0.25';
const MAX_RUNS_ALLOWED = 'allowed: a whole number of runs of at least 2, such as 15';

function positiveLoad(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function resolutionOf(value: unknown): CapacitySearchSpec['resolution'] {
  const read = readPercent(value);
  if (read.kind === 'percent') {
    return read.percent > 0 && read.percent < 100 ? { relative: read.percent / 100 } : undefined;
  }
  const absolute = positiveLoad(value);
  return absolute === undefined ? undefined : { absolute };
}

/** `search: { ... }`'s fields, each checked; every problem at once. */
function searchSpecOf(raw: unknown, issues: Issue[]): CapacitySearchSpec {
  const at = (key: string) => ['capacity', 'search', key];
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    issues.push({ path: ['capacity', 'search'], message: CAPACITY_ALLOWED, input: raw });
    return {};
  }
  const spec: CapacitySearchSpec = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key === 'from' || key === 'to') {
      const load = positiveLoad(value);
      if (load === undefined) issues.push({ path: at(key), message: LOAD_ALLOWED, input: value });
      else spec[key] = load;
    } else if (key === 'resolution') {
      const resolution = resolutionOf(value);
      if (resolution === undefined) {
        issues.push({ path: at(key), message: RESOLUTION_ALLOWED, input: value });
      } else spec.resolution = resolution;
    } else if (key === 'max-runs') {
      if (Number.isInteger(value) && (value as number) >= 2) spec.maxRuns = value as number;
      else issues.push({ path: at(key), message: MAX_RUNS_ALLOWED, input: value });
    } else {
      const message = `unknown key ${JSON.stringify(key)}; allowed keys: ${SEARCH_KEYS.join(', ')}`;
      issues.push({ path: at(key), message, input: key });
    }
  }
  if (spec.from !== undefined && spec.to !== undefined && spec.to <= spec.from) {
    issues.push({
      path: at('to'),
      message: `to (${spec.to}) must be above from (${spec.from}): the search starts between them`,
      input: spec.to,
    });
  }
  return spec;
}

/** `capacity:` as written → the mode, with every problem of it. */
export function readCapacityMode(value: unknown): { capacity: CapacityMode; issues: Issue[] } {
  const issues: Issue[] = [];
  if (value === 'grid') return { capacity: { mode: 'grid' }, issues };
  if (value === 'search') return { capacity: { mode: 'search', search: {} }, issues };
  const keys =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  if (keys.length !== 1 || keys[0] !== 'search') {
    issues.push({ path: ['capacity'], message: CAPACITY_ALLOWED, input: value });
    return { capacity: { mode: 'grid' }, issues };
  }
  const search = searchSpecOf((value as { search: unknown }).search, issues);
  return { capacity: { mode: 'search', search }, issues };
}

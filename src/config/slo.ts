// `slo:` in a benchmark entry: the latency objectives a serving team plans with, in the
// words of vLLM's own options. A bare time is per request, as `vllm bench serve --goodput
// ttft:500` takes it (every request must meet it; vllm/benchmarks/serve.py,
// calculate_metrics); a mapping of percentiles is on the run's percentile, as
// `vllm bench sweep serve_sla --sla-params '{"p99_e2el_ms": "<=500"}'` takes it
// (docs.vllm.ai, benchmarking/sweeps). The derive stage (src/derive/) reads the result.

import { z } from 'zod';

import { readCapacityMode, type CapacityMode } from './capacity-search.js';
import { closestKey } from './did-you-mean.js';
import { readPercent } from './percent.js';

/** The per-request latency families of vllm bench serve (--percentile-metrics). */
export const SLO_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type SloMetric = (typeof SLO_METRICS)[number];

/** The load a sweep's variants differ in, as vllm bench serve echoes it (--sla-variable). */
export const LOAD_SETTINGS = ['request_rate', 'max_concurrency'] as const;
export type LoadSetting = (typeof LOAD_SETTINGS)[number];

/** One objective: a latency limit, per request or on one percentile of each run. */
export interface SloObjective {
  metric: SloMetric;
  limitMs: number;
  /** The run's percentile that must be within the limit; absent: every request must be. */
  percentile?: number;
}

export interface SloSpec {
  objectives: SloObjective[];
  /** Share of requests (fraction) meeting the per-request objectives at which a load still holds. */
  attainment: number;
  /** The load the capacity is measured in; absent: the one the variants differ in. */
  load?: LoadSetting;
  /** How the capacity is found (`capacity: search`); absent: read off the grid. */
  capacity?: Extract<CapacityMode, { mode: 'search' }>;
}

/**
 * DistServe's goodput asks 90% of requests to meet the SLO (Zhong et al., OSDI 2024), the
 * definition `--goodput` refers to.
 */
export const DEFAULT_ATTAINMENT = 0.9;

const OTHER_KEYS = ['attainment', 'load', 'capacity'] as const;
const KEYS = [...SLO_METRICS, ...OTHER_KEYS];

export const SLO_ALLOWED =
  'allowed: a mapping of ttft, tpot, itl, e2el (each a time per request, such as 500ms, ' +
  'or percentiles, such as { p99: 2s }), with optional attainment (a percentage), load ' +
  '(request_rate or max_concurrency) and capacity (grid or search)';
const TIME_ALLOWED =
  'allowed: a time above 0 such as 500ms or 0.5s (a bare number is milliseconds, as --goodput takes it)';
const PERCENTILES_ALLOWED =
  'allowed: a time per request (500ms) or a mapping of percentiles to times, such as { p99: 500ms, p50: 200ms }';
const PERCENTILE_KEY_ALLOWED =
  'allowed: a percentile key p<P> with 0 < P ≤ 100, such as p50, p99 or p99.9';
const ATTAINMENT_ALLOWED =
  'allowed: a percentage above 0% and at most 100%, such as 90% (the share of requests that must meet the per-request objectives)';
const LOAD_ALLOWED = `allowed: ${LOAD_SETTINGS.join(' or ')} (the setting the sweep's variants differ in)`;

type Issue = { path: (string | number)[]; message: string; input: unknown };

/** `500ms`, `0.5s`, `500` (ms) → ms; undefined when it is not a time above 0. */
export function parseTimeMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d*)?|\.\d+)\s*(ms|s)?$/.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (match[2] === 's' ? 1000 : 1);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** `p99` → 99, `p99.9` → 99.9; undefined unless 0 < P ≤ 100. */
export function parsePercentileKey(key: string): number | undefined {
  const match = /^p(\d{1,3}(?:\.\d+)?)$/.exec(key);
  const p = match ? Number(match[1]) : NaN;
  return p > 0 && p <= 100 ? p : undefined;
}

function objectivesOf(metric: SloMetric, value: unknown, issues: Issue[]): SloObjective[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const limitMs = parseTimeMs(value);
    if (limitMs !== undefined) return [{ metric, limitMs }];
    const typo = typeof value === 'string' || typeof value === 'number';
    issues.push({
      path: [metric],
      message: typo ? TIME_ALLOWED : PERCENTILES_ALLOWED,
      input: value,
    });
    return [];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) {
    issues.push({ path: [metric], message: PERCENTILES_ALLOWED, input: value });
  }
  return entries.flatMap(([key, limit]) => {
    const percentile = parsePercentileKey(key);
    if (percentile === undefined) {
      issues.push({ path: [metric, key], message: PERCENTILE_KEY_ALLOWED, input: key });
      return [];
    }
    const limitMs = parseTimeMs(limit);
    if (limitMs === undefined) {
      issues.push({ path: [metric, key], message: TIME_ALLOWED, input: limit });
      return [];
    }
    return [{ metric, limitMs, percentile }];
  });
}

function attainmentOf(value: unknown, issues: Issue[]): number {
  const read = readPercent(value);
  if (read.kind === 'percent' && read.percent > 0 && read.percent <= 100) return read.percent / 100;
  issues.push({ path: ['attainment'], message: ATTAINMENT_ALLOWED, input: value });
  return DEFAULT_ATTAINMENT;
}

function unknownKeyMessage(key: string): string {
  const meant = closestKey(key, KEYS) ?? (/^(e2e|latency)$/i.test(key) ? 'e2el' : undefined);
  const hint = meant === undefined ? '' : ` (did you mean "${meant}"?)`;
  return `unknown key ${JSON.stringify(key)}${hint}; allowed keys: ${KEYS.join(', ')}`;
}

/** The block as written → SloSpec, with every problem of it at once. */
export function readSlo(raw: Record<string, unknown>): { slo: SloSpec; issues: Issue[] } {
  const issues: Issue[] = [];
  const objectives: SloObjective[] = [];
  let attainment = DEFAULT_ATTAINMENT;
  let load: LoadSetting | undefined;
  let capacity: SloSpec['capacity'];
  for (const [key, value] of Object.entries(raw)) {
    if ((SLO_METRICS as readonly string[]).includes(key)) {
      objectives.push(...objectivesOf(key as SloMetric, value, issues));
    } else if (key === 'attainment') {
      attainment = attainmentOf(value, issues);
    } else if (key === 'capacity') {
      const read = readCapacityMode(value);
      issues.push(...read.issues);
      if (read.capacity.mode === 'search') capacity = read.capacity;
    } else if (key === 'load') {
      if ((LOAD_SETTINGS as readonly unknown[]).includes(value)) load = value as LoadSetting;
      else issues.push({ path: ['load'], message: LOAD_ALLOWED, input: value });
    } else {
      issues.push({ path: [key], message: unknownKeyMessage(key), input: key });
    }
  }
  if (issues.length === 0 && objectives.length === 0) {
    issues.push({ path: [], message: `no objective: ${SLO_ALLOWED}`, input: raw });
  }
  if (raw.attainment !== undefined && !objectives.some((o) => o.percentile === undefined)) {
    issues.push({
      path: ['attainment'],
      message:
        'attainment is the share of requests meeting the per-request objectives, and there is none: give one (ttft: 500ms), or remove attainment',
      input: raw.attainment,
    });
  }
  const slo = {
    objectives,
    attainment,
    ...(load ? { load } : {}),
    ...(capacity ? { capacity } : {}),
  };
  return { slo, issues };
}

export const sloSchema = z
  .record(z.string(), z.unknown(), { error: SLO_ALLOWED })
  .transform((raw, context): SloSpec => {
    const { slo, issues } = readSlo(raw);
    for (const issue of issues) context.addIssue({ code: 'custom', ...issue });
    return issues.length > 0 ? z.NEVER : slo;
  });

/** `ttft ≤ 500 ms per request`, `e2el P99 ≤ 2000 ms`: for notes and the report. */
export function objectiveText(objective: SloObjective): string {
  return objective.percentile === undefined
    ? `${objective.metric} ≤ ${objective.limitMs} ms per request`
    : `${objective.metric} P${objective.percentile} ≤ ${objective.limitMs} ms`;
}

/** The whole SLO in one line: `ttft ≤ 500 ms per request (90% of requests), e2el P99 ≤ 2000 ms`. */
export function sloText(slo: SloSpec): string {
  const perRequest = slo.objectives.filter((o) => o.percentile === undefined);
  const percentiles = slo.objectives.filter((o) => o.percentile !== undefined);
  const share = `${Number((slo.attainment * 100).toPrecision(4))}% of requests`;
  const parts = [
    ...(perRequest.length > 0 ? [`${perRequest.map(objectiveText).join(', ')} (${share})`] : []),
    ...percentiles.map(objectiveText),
  ];
  return `${parts.join(', ')}${slo.load ? `; load: ${slo.load}` : ''}`;
}

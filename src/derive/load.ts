// The load each variant of a sweep ran at. The result file says what the benchmark really
// did (vllm bench serve echoes request_rate and max_concurrency), so it comes first; the
// variant's own parameter is the fallback for files that do not echo it.

import { LOAD_SETTINGS, type LoadSetting } from '../config/slo.js';
import type { BenchmarkResult } from '../model.js';

/** Parameter names a sweep may give each load under, besides the setting's own. */
const PARAM_NAMES: Record<LoadSetting, readonly string[]> = {
  request_rate: ['request_rate', 'request-rate', 'rate', 'qps'],
  max_concurrency: ['max_concurrency', 'max-concurrency', 'concurrency'],
};

/** The capacity's unit in each load. */
export const LOAD_UNITS: Record<LoadSetting, string> = {
  request_rate: 'requests/s',
  max_concurrency: 'concurrency',
};

/** A finite load above 0 from a number or a numeric text; `inf` and null are none. */
function loadValue(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

/** The variant's load in `setting`: the file's echo, else its parameter. */
export function loadOf(result: BenchmarkResult, setting: LoadSetting): number | undefined {
  const echoed = loadValue(result.info?.[setting]);
  if (echoed !== undefined) return echoed;
  const params = result.sweep?.params ?? {};
  for (const name of PARAM_NAMES[setting]) {
    const value = loadValue(params[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Every variant's load in `setting`, when each has one and no two share it. */
function distinctLoads(
  results: readonly BenchmarkResult[],
  setting: LoadSetting,
): number[] | undefined {
  const loads = results.map((result) => loadOf(result, setting));
  if (loads.some((load) => load === undefined)) return undefined;
  return new Set(loads).size === loads.length ? (loads as number[]) : undefined;
}

/** The setting the variants differ in (or the one the SLO names), with each variant's load. */
export function sweepLoads(
  results: readonly BenchmarkResult[],
  chosen: LoadSetting | undefined,
): { setting: LoadSetting; loads: number[] } | { reason: string } {
  const settings = chosen ? [chosen] : LOAD_SETTINGS;
  const fitting = settings.flatMap((setting) => {
    const loads = distinctLoads(results, setting);
    return loads ? [{ setting, loads }] : [];
  });
  if (fitting.length === 1) return fitting[0]!;
  const names = settings.join(' or ');
  if (fitting.length > 1) {
    return {
      reason:
        'the variants differ in both request_rate and max_concurrency: say which is the load ' +
        'with slo: { load: request_rate } (or max_concurrency)',
    };
  }
  return {
    reason:
      `each variant needs its own ${names}: in its result file (vllm bench serve echoes ` +
      `them) or as its sweep parameter (${settings.flatMap((s) => PARAM_NAMES[s]).join(', ')}), ` +
      'a number above 0, no two variants alike',
  };
}

// Benchmark names of guidellm reports, shared by the reader of the current report
// (guidellm.ts) and of 0.1.x reports (guidellm-v01.ts), so a user moving between
// versions meets the same names: synchronous, throughput, constant@2.5, constant@25%.

import type { ParsedBenchmark } from '../model.js';
import { isObject, type JsonObject } from './fields.js';

/** Where a sweep point ran: its place among its type's points, and the sweep's rates. */
export interface SweepPlace {
  position: number;
  /** The request rates the sweep's synchronous and throughput benchmarks measured. */
  range: [number, number] | undefined;
}

export function strategyOf(entry: JsonObject): JsonObject | undefined {
  for (const holder of [entry.config, entry.args]) {
    if (isObject(holder) && isObject(holder.strategy)) return holder.strategy;
  }
  return undefined;
}

/**
 * synchronous, throughput, concurrent-4, constant@2.5, poisson@1; else benchmark-<index>.
 * The rates of a sweep are computed from the measured throughput, so they change every
 * run and would never match a baseline: points of a sweep (or rates that look measured,
 * when the file does not say) are named by their share of the sweep's range, constant@25%,
 * constant@50%, ... (sweepPercent), or, when the file lacks the synchronous or throughput
 * benchmark that sets the range, by their position among points of that type, constant#1,
 * constant#2, ...; `position` counts from 1.
 */
export function nameOf(entry: JsonObject, path: string, place: SweepPlace): string {
  const strategy = strategyOf(entry);
  const type = strategy?.type_;
  if (strategy && typeof type === 'string' && type !== '') {
    if (typeof strategy.streams === 'number') return `${type}-${strategy.streams}`;
    if (typeof strategy.rate === 'number') {
      if (rateIsConfigured(entry, strategy.rate)) return `${type}@${strategy.rate}`;
      return place.range
        ? `${type}@${sweepPercent(strategy.rate, place.range)}%`
        : `${type}#${place.position}`;
    }
    return type;
  }
  return `benchmark-${/\[(\d+)\]$/.exec(path)?.[1] ?? '0'}`;
}

/**
 * A sweep point's rate as a share of the way from the synchronous rate to the throughput
 * rate, in percent: the same point of every run of the sweep (the rates themselves
 * change with what each run measured), and a point missing on one side shifts no other.
 */
function sweepPercent(rate: number, [low, high]: [number, number]): number {
  // Four decimals, not whole percent: a sweep of 10 puts points at k/8 of the range, and
  // 12.5% computed from two measured rates lands on either side of .5 by rounding error.
  return Number((((rate - low) / (high - low)) * 100).toFixed(4));
}

/** Whether a strategy's rate was given by the user rather than derived from a measurement. */
function rateIsConfigured(entry: JsonObject, rate: number): boolean {
  for (const holder of [entry.config, entry.args]) {
    if (!isObject(holder) || !isObject(holder.profile)) continue;
    const profile = holder.profile;
    if (profile.type_ === 'sweep') return false;
    const given = Array.isArray(profile.rate) ? profile.rate : [profile.rate];
    if (given.some((value) => typeof value === 'number')) return given.includes(rate);
    return typeof profile.type_ === 'string';
  }
  // No profile in the file: a user writes a rate like 2.5, a sweep computes 3.1127449.
  return Number(rate.toFixed(3)) === rate;
}

/** Results are matched to the baseline by name: same-named benchmarks get their index. */
export function uniqueNames(benchmarks: (ParsedBenchmark & { name: string })[]): ParsedBenchmark[] {
  const counts = new Map<string, number>();
  for (const { name } of benchmarks) counts.set(name, (counts.get(name) ?? 0) + 1);
  const taken = new Set(benchmarks.filter(({ name }) => counts.get(name) === 1).map((b) => b.name));
  return benchmarks.map((benchmark, index) => {
    if (counts.get(benchmark.name) === 1) return benchmark;
    let name = `${benchmark.name}-${index}`;
    while (taken.has(name)) name = `${name}-${index}`;
    taken.add(name);
    return { ...benchmark, name };
  });
}

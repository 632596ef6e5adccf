// `sweep: settings:` as sweeps: each server setting of an entry is a sweep of its own,
// named `<entry>/<setting>`, whose variants are the entry's variants (the loads). A sweep
// without settings is the entry's one sweep, named after the entry.

import { sweepSettings, type ServerSetting, type SweepSetting } from './sweep.js';
import type { BenchmarkSpec } from './types.js';

export const SETTINGS_ALLOWED = {
  withoutServer:
    'settings: needs a server: block in the same entry: each setting restarts the server the gate starts with its parameters (PERF_GATE_PARAM_<NAME>); allowed: add server:, or vary the benchmark with variants: alone',
};

/** One sweep of an entry: its name, and the server setting it runs with, if any. */
export interface SettingSweep {
  name: string;
  setting?: ServerSetting;
}

/** The entry's sweeps in order: one per setting, or the entry's own without settings. */
export function settingSweeps(entry: string, sweep: SweepSetting): SettingSweep[] {
  const settings = sweepSettings(sweep);
  if (settings.length === 0) return [{ name: entry }];
  return settings.map((setting) => ({ name: `${entry}/${setting.name}`, setting }));
}

/** An entry with server settings and an SLO, whose best setting the gate names. */
export interface SettingEntry {
  entry: string;
  /** Each setting's sweep (`<entry>/<setting>`) and the setting, in the file's order. */
  settings: { sweep: string; setting: ServerSetting }[];
  /** Every benchmark of the entry (each setting's variants). */
  specs: BenchmarkSpec[];
}

/** The entries with `sweep: settings:` and an `slo:`, from the expanded benchmarks. */
export function settingEntries(specs: readonly BenchmarkSpec[]): SettingEntry[] {
  const entries = new Map<string, SettingEntry>();
  for (const spec of specs) {
    const { sweep } = spec;
    if (!sweep?.setting || sweep.entry === undefined || !spec.slo) continue;
    let entry = entries.get(sweep.entry);
    if (!entry) {
      entry = { entry: sweep.entry, settings: [], specs: [] };
      entries.set(sweep.entry, entry);
    }
    entry.specs.push(spec);
    if (!entry.settings.some((s) => s.sweep === sweep.name)) {
      entry.settings.push({ sweep: sweep.name, setting: sweep.setting });
    }
  }
  return [...entries.values()];
}

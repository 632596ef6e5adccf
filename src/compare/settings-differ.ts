// A result and its baseline matched by name but measured with other settings (a baseline
// file of `--metadata config=tp2` lines against a run of `config=tp4`, or of another
// request rate): the gate compares them as asked, and says what differs, since a
// change between different workloads is no regression and no improvement of the code.

import { findFormat } from '../formats/index.js';
import type { BenchmarkResult } from '../model.js';

/** One warning naming the settings the two sides were measured with, when they differ. */
export function settingsDifferWarning(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
): string[] {
  const keys = findFormat(current.format)?.runSettings;
  if (!keys || !baseline || baseline.format !== current.format) return [];
  const now = settingsOf(current, keys);
  const before = settingsOf(baseline, keys);
  const differing = [...new Set([...now.keys(), ...before.keys()])].filter(
    (key) => now.get(key) !== before.get(key),
  );
  if (differing.length === 0) return [];
  const side = (settings: Map<string, string>) =>
    differing.map((key) => `${key}=${settings.get(key) ?? 'none'}`).join(', ');
  return [
    `the baseline was measured with ${side(before)} and this run with ${side(now)}: ` +
      'compared as one benchmark, though the workloads differ',
  ];
}

/** The run settings a result's info echoes, its --metadata tags among them, as text. */
function settingsOf(result: BenchmarkResult, keys: readonly string[]): Map<string, string> {
  const settings = new Map<string, string>();
  const info = result.info ?? {};
  for (const key of keys) {
    if (key === 'metadata') continue;
    if (info[key] !== undefined && info[key] !== null) settings.set(key, String(info[key]));
  }
  const metadata = info.metadata;
  if (typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)) {
    for (const [key, value] of Object.entries(metadata)) settings.set(key, String(value));
  }
  return settings;
}

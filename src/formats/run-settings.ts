// A JSON Lines file (`vllm bench serve --append-result`) may hold lines measured with
// different settings: a sweep over request rates, concurrencies or models appended to one
// file. Pooling them as runs of one benchmark mixes different workloads, so lines whose
// settings differ are different benchmarks, named from the settings that differ; only
// lines of the same settings are runs of one benchmark. A semantic step on parsed runs,
// independent of how the file was read.

import type { ParsedBenchmark } from '../model.js';

/** Short names for the settings in benchmark names: `rate=4,concurrency=16`. */
const SHORT: Record<string, string> = {
  request_rate: 'rate',
  max_concurrency: 'concurrency',
  num_prompts: 'prompts',
  model_id: 'model',
  tokenizer_id: 'tokenizer',
};

/**
 * --metadata tags that label a run rather than a setting (`run=3`, `run_id=…`, `seed=7`,
 * `timestamp=…`): every line has its own, and splitting by them would leave each run a
 * benchmark of its own.
 */
const RUN_LABEL =
  /^(run|runs|run[_-]?(id|number|no|index)|iter|iteration|attempt|repeat|repetition|rep|trial|seed|timestamp|time|date|started|start[_-]?time|job|job[_-]?id|commit|sha)$/i;

/**
 * `runs`: one entry per line, as parsed. `keys`: the info keys that define a setting. When
 * every line has the same settings, returns `runs` unchanged; otherwise each benchmark is
 * named by the settings that differ between lines (prefixed by its own name, if any).
 */
export function nameRunsBySettings(
  runs: ParsedBenchmark[][],
  known: readonly string[],
): ParsedBenchmark[][] {
  // Tags the user gave (vLLM's --metadata) are settings too: `config=tp2` on some lines.
  const tags = [...new Set(runs.flat().flatMap((b) => Object.keys(metadataOf(b))))]
    .filter((tag) => !RUN_LABEL.test(tag))
    .sort();
  const keys = [...known, ...tags];
  const valueOf = (benchmark: ParsedBenchmark, key: string) =>
    known.includes(key) ? benchmark.info?.[key] : metadataOf(benchmark)[key];
  const settingsOf = (benchmark: ParsedBenchmark) =>
    keys.map((key) => settingText(valueOf(benchmark, key)));
  const all = runs.flatMap((run) => run.map(settingsOf));
  const differing = keys.filter((_, index) => new Set(all.map((s) => s[index])).size > 1);
  if (differing.length === 0) return runs;
  return runs.map((run) =>
    run.map((benchmark) => {
      const settings = settingsOf(benchmark);
      const label = differing
        .map((key) => `${SHORT[key] ?? key}=${settings[keys.indexOf(key)]}`)
        .join(',');
      return { ...benchmark, name: benchmark.name ? `${benchmark.name}/${label}` : label };
    }),
  );
}

/** The benchmark's --metadata tags, as the parser kept them in `info.metadata`. */
function metadataOf(benchmark: ParsedBenchmark): Record<string, unknown> {
  const metadata = benchmark.info?.metadata;
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
    ? (metadata as Record<string, unknown>)
    : {};
}

function settingText(value: unknown): string {
  if (value === undefined || value === null) return 'none';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

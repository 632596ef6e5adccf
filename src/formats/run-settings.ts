// A JSON Lines file (`vllm bench serve --append-result`) may hold lines measured with
// different settings: a sweep over request rates, concurrencies or models appended to one
// file. Pooling them as runs of one benchmark mixes different workloads, so lines whose
// settings differ are different benchmarks; only lines of the same settings are runs of
// one benchmark. A semantic step on parsed runs, independent of how the file was read.
//
// A benchmark is named by its settings themselves, all of them in a fixed order with the
// defaults left out (`prompts=20,concurrency=16,input_len=1000,kvcache=cpu`), not by the
// ones that happen to differ in one file: the next night's file, with a warm-up line less
// or a tag that stopped varying, then names the same workload the same way.

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
 * The tools' defaults (vllm/benchmarks/serve.py, sglang/bench_serving.py argparse), by
 * short name: a setting at its default is left out of the name, so a file that starts
 * writing it does not rename its benchmarks. `none` (absent, null) is a default of every key.
 */
const DEFAULTS: Record<string, readonly string[]> = {
  rate: ['inf'],
  burstiness: ['1'],
  prompts: ['1000'],
};

/**
 * Settings that say which server and client ran rather than what load they ran: the
 * model is also in the configured benchmark's name and the environment's fingerprint.
 * They name a benchmark only when the lines of a file differ in them (a sweep over models).
 */
const IDENTITY = new Set(['model_id', 'model', 'tokenizer_id', 'backend', 'endpoint_type']);

/**
 * --metadata tags that label a run rather than a setting (`run=3`, `run_id=…`, `seed=7`,
 * `timestamp=…`): every line has its own, and splitting by them would leave each run a
 * benchmark of its own.
 */
const RUN_LABEL =
  /^(run|runs|run[_-]?(id|number|no|index)|iter|iteration|attempt|repeat|repetition|rep|trial|seed|timestamp|time|date|started|start[_-]?time|job|job[_-]?id|commit|sha)$/i;

/** A tag value that marks a line as a warm-up (`--metadata type=warmup`), not a measurement. */
const WARM_UP = /^warm[-_ ]?up$/i;

/**
 * `runs`: one entry per line, as parsed. `known`: the info keys that define a setting.
 * Warm-up lines become empty runs (unless every line is one). When every other line has
 * the same settings, returns them unnamed: runs of the configured benchmark. Otherwise
 * each benchmark is named by its settings (prefixed by its own name, if any).
 */
export function nameRunsBySettings(
  runs: ParsedBenchmark[][],
  known: readonly string[],
): ParsedBenchmark[][] {
  const measured = runs.every((run) => run.every(isWarmUp))
    ? runs
    : runs.map((run) => run.filter((benchmark) => !isWarmUp(benchmark)));
  // Tags the user gave (vLLM's --metadata) are settings too: `config=tp2` on some lines.
  const tags = [...new Set(measured.flat().flatMap((b) => Object.keys(metadataOf(b))))]
    .filter((tag) => !RUN_LABEL.test(tag))
    .sort();
  const keys = [...known, ...tags];
  const valueOf = (benchmark: ParsedBenchmark, key: string) =>
    settingText(known.includes(key) ? benchmark.info?.[key] : metadataOf(benchmark)[key]);
  const all = measured.flat();
  const varies = (key: string) => new Set(all.map((b) => valueOf(b, key))).size > 1;
  if (!keys.some(varies)) return measured;
  const naming = keys.filter((key) => !IDENTITY.has(key) || varies(key));
  return measured.map((run) =>
    run.map((benchmark) => {
      const label = naming
        .map((key) => [SHORT[key] ?? key, valueOf(benchmark, key)] as const)
        .filter(([short, value]) => !isDefault(short, value))
        .map(([short, value]) => `${short}=${value}`)
        .join(',');
      return { ...benchmark, name: benchmark.name ? `${benchmark.name}/${label}` : label };
    }),
  );
}

/**
 * The settings a benchmark name of nameRunsBySettings spells out, defaults left out: the
 * `prefix/` before them and `short → value`. Undefined for a name that is not made of
 * settings. Names written before settings were named in full (`rate=4,concurrency=none`)
 * read the same way, so they can be matched to today's names.
 */
export function settingsOfName(
  name: string,
): { prefix: string; settings: Map<string, string> } | undefined {
  // The prefix ends at the last `/` before the first setting: values hold paths too.
  const slash = name.lastIndexOf('/', name.indexOf('='));
  const [prefix, list] = slash < 0 ? ['', name] : [name.slice(0, slash), name.slice(slash + 1)];
  const settings = new Map<string, string>();
  for (const part of list.split(',')) {
    const match = /^([^=]+)=(.*)$/.exec(part);
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (!isDefault(key, value)) settings.set(key, value);
  }
  return { prefix, settings };
}

/** The runs left once warm-up lines are taken out (nameRunsBySettings empties them). */
export function withoutEmptyRuns(runs: ParsedBenchmark[][]): ParsedBenchmark[][] {
  return runs.filter((run) => run.length > 0);
}

function isDefault(short: string, value: string): boolean {
  return value === 'none' || (DEFAULTS[short]?.includes(value) ?? false);
}

function isWarmUp(benchmark: ParsedBenchmark): boolean {
  return Object.values(metadataOf(benchmark)).some(
    (value) => typeof value === 'string' && WARM_UP.test(value),
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

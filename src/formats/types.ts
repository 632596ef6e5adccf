import type { ParsedBenchmark, WarmupRule, WarmupRun } from '../model.js';

/** One result-file format: a shape test for auto-detection and a parser. Pure. */
export interface ResultFormat {
  id: string;
  /** One line for help texts and error messages. */
  description: string;
  /**
   * When `data` unambiguously has this format's shape: the keys that decided, in words
   * (for error messages, e.g. 'top-level request_throughput and output_throughput');
   * undefined when it does not.
   */
  detect(data: unknown): string | undefined;
  /**
   * When `data` has some of the keys that define this format but not all, so `detect`
   * refuses it: the keys it lacks. Auto-detection then refuses the file naming them ("looks
   * like X output but lacks Y") unless another format detects it. Absent: names none.
   */
  lacks?(data: unknown): readonly string[] | undefined;
  /** Throws GateError('input') naming `file` and the field when the data are not usable. */
  parse(data: unknown, file: string): ParsedBenchmark[];
  /**
   * True for the output of a load generator run against an inference server (vllm bench
   * serve): its profiled run records a `session` device profile unless profile-mode says
   * otherwise, as the Neuron docs advise for inference serving.
   */
  serving?: true;
  /**
   * False when the shape is recognisable but the file does not say everything the format
   * needs (the direction of custom metrics): 'auto' then asks the user to choose the
   * format instead of guessing. Absent means true.
   */
  autoDetect?: false;
  /**
   * True when the tool can append runs to one file, one JSON document per line (JSON
   * Lines, like `vllm bench serve --append-result`): each line is parsed by `parse` as
   * one run. Absent means a file holds exactly one JSON document, one run.
   */
  jsonLines?: true;
  /**
   * True when a value may be negative whatever its unit (a delta in a custom file): shown,
   * not judged (compare.ts). Absent: a negative time is an error of the figures.
   */
  negativeValues?: true;
  /**
   * For JSON Lines formats: the info keys that define a benchmark's settings (request_rate,
   * max_concurrency, ...). Lines that differ in them are different benchmarks, not runs.
   */
  runSettings?: readonly string[];
  /**
   * Top-level keys this format never reads and that can be most of a file (the texts
   * `vllm bench serve --save-detailed` generated): left out while the file is read. With
   * 'auto' the keys every format lists are left out, so list only keys no format reads.
   */
  unusedKeys?: readonly string[];
  /**
   * `warmup:`: the document without the run's warm-up requests, before `parse` reads it,
   * and what was cut. Absent: the format lists no requests to cut.
   */
  excludeWarmup?(data: unknown, rule: WarmupRule, file: string): { data: unknown; run: WarmupRun };
}

// The time the gate can take in a job of an example workflow, from the config that example
// runs: the README's `# .github/perf-gate.yml` block, or a config of its own. The docs
// tests hold each job's timeout-minutes, and the totals its comments state, to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { AB_DEFAULTS } from '../../src/ab/gate-ab.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { readDurationSeconds } from '../../src/config/duration.js';
import { ROOT } from './bundled.js';
import { gateStepInputs, loadWorkflowExample } from './workflow-example.js';

/** A job's time limit when its workflow sets none. */
export const GITHUB_JOB_TIMEOUT_MINUTES = 360;

export interface ExampleConfig {
  runs?: number;
  'confirm-runs'?: number;
  'timeout-minutes'?: number;
  benchmarks: {
    runs?: number;
    'confirm-runs'?: number;
    'timeout-minutes'?: number;
    profile?: boolean | string;
    sweep?: { variants?: unknown[] };
    slo?: unknown;
    server?: { 'start-timeout'?: string | number };
    accuracy?: unknown;
  }[];
}

/** Examples that come with a config of their own (the others use the README's). */
export const EXAMPLE_CONFIGS: Readonly<Record<string, string>> = {
  'vllm-serve.yml': 'examples/vllm-serve/perf-gate.yml',
  'nxdi-to-vllm-neuron.yml': 'examples/stacks/vllm-neuron.yml',
};

/** The README's `# .github/perf-gate.yml` block, as text. */
export function readmeConfigText(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /```yaml\n(# \.github\/perf-gate\.yml\n[\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('README.md has no # .github/perf-gate.yml block');
  return match[1]!;
}

/** The config an example workflow runs: its own, or the README's. */
export function configOfExample(file: string): ExampleConfig {
  const own = EXAMPLE_CONFIGS[file];
  const text = own ? readFileSync(join(ROOT, own), 'utf8') : readmeConfigText();
  return parse(text) as ExampleConfig;
}

/**
 * The most minutes the gate can take in one job of an example (docs/running.md): per
 * benchmark, (runs + 1 profiled + confirm-runs) × its timeout-minutes, runs raised to
 * nightly-runs on a scheduled workflow, times the variants of a sweep (whose capacity, with
 * an slo, may take confirm-runs passes of one run a variant more), and for a benchmark
 * with a server its start-timeout for each start (1, and 2 more for each variant's profiled
 * run: its own server, then a clean one again; and up to confirm-runs confirmation restarts
 * of the first variant's); with compare-with (A/B, docs/ab.md) each
 * side's setup once (the longest timeout-minutes) and, for each variant, 4 runs a block for the blocks and confirmation blocks, each run with a
 * server its own start, and with `accuracy:` three passes more, each on a server of its own
 * (docs/agreement.md); plus 15 for the rest.
 * Undefined for a job that runs no benchmark.
 */
export function worstMinutes(
  file: string,
  jobId: string,
  config: ExampleConfig = configOfExample(file),
): number | undefined {
  const example = loadWorkflowExample(file);
  const steps = example.jobs[jobId]!.steps ?? [];
  const gate = steps.find((step) => step.uses?.includes('neuron-perf-gate'));
  const inputs = gate ? gateStepInputs(file, jobId) : {};
  if (!gate || inputs.mode === 'comment') return undefined;
  const on = example.on;
  const scheduled = typeof on === 'object' && on !== null && 'schedule' in on;
  const nightlyRuns = Number(inputs['nightly-runs'] ?? DEFAULTS.nightlyRuns);
  const ab = inputs['compare-with'] !== undefined;
  const timeoutOf = (b: ExampleConfig['benchmarks'][number]) =>
    b['timeout-minutes'] ?? config['timeout-minutes'] ?? DEFAULTS.timeoutMinutes;
  // A/B sets each side up once, within the longest run timeout.
  const setup = ab ? 2 * Math.max(...config.benchmarks.map(timeoutOf)) : 0;
  const total = config.benchmarks.reduce((sum, b) => {
    const timeout = timeoutOf(b);
    const startMinutes =
      (readDurationSeconds(b.server?.['start-timeout']) ?? DEFAULTS.serverStartTimeoutSeconds) / 60;
    const variants = b.sweep?.variants?.length ?? 1;
    if (ab) {
      // Each variant of a sweep is a benchmark of its own blocks.
      const blocks = AB_DEFAULTS.blocks + AB_DEFAULTS.confirmBlocks;
      const passes = b.server && b.accuracy ? 3 : 0;
      const starts = b.server ? blocks * 4 + passes : 0;
      return sum + variants * ((blocks * 4 + passes) * timeout + starts * startMinutes);
    }
    const runs = Math.max(b.runs ?? config.runs ?? DEFAULTS.runs, scheduled ? nightlyRuns : 0);
    const confirm = b['confirm-runs'] ?? config['confirm-runs'] ?? DEFAULTS.confirmRuns;
    const profiled = b.profile === false ? 0 : 1;
    // The first variant's confirmation restarts of its server_startup: up to confirm-runs.
    const starts = b.server ? 1 + 2 * profiled * variants + confirm : 0;
    const passes = b.sweep && b.slo ? confirm : 0;
    return sum + variants * (runs + profiled + confirm + passes) * timeout + starts * startMinutes;
  }, 0);
  return setup + total + 15;
}

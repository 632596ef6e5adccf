#!/usr/bin/env node
// A stand-in for `vllm bench sweep serve` with `--num-runs 2`: writes one combination's
// summary.json (two vllm bench serve results with run_number 0 and 1, the shape of
// test/fixtures/formats/vllm-bench-sweep/summary.json) to $PERF_GATE_OUTPUT. Every latency
// is SWEEP_FACTOR times the fixture's and every rate divided by it, each figure of each run
// with its own lognormal noise of SD SWEEP_CV (default 0.02), seeded by SWEEP_SEED; with
// SWEEP_APART (a log difference, default 0) run 1 is that much slower than run 0 in every
// figure, as on a noisy host.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, '..', 'fixtures', 'formats', 'vllm-bench-sweep', 'summary.json');
const runs = JSON.parse(readFileSync(fixture, 'utf8'));
const factor = Number(process.env.SWEEP_FACTOR ?? '1');
const cv = Number(process.env.SWEEP_CV ?? '0.02');
const apart = Number(process.env.SWEEP_APART ?? '0');
let state = (Number(process.env.SWEEP_SEED ?? '1') * 2654435761) >>> 0 || 1;
const uniform = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return ((state >>> 0) + 0.5) / 4294967296;
};
const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
const RATES = ['request_throughput', 'output_throughput', 'total_token_throughput'];
const out = runs.map((run, index) => {
  const copy = { ...run, run_number: index };
  for (const [key, value] of Object.entries(run)) {
    if (typeof value !== 'number') continue;
    const slower = Math.exp((index === 0 ? -apart : apart) / 2);
    const noise = Math.exp(cv * normal());
    if (/^(mean|median|p\d+)_\w+_ms$/.test(key)) copy[key] = value * factor * slower * noise;
    else if (RATES.includes(key)) copy[key] = (value / factor / slower) * noise;
  }
  return copy;
});
writeFileSync(process.env.PERF_GATE_OUTPUT, JSON.stringify(out, null, 2));

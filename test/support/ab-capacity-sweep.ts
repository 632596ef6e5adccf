// A sweep's runs for the A/B capacity tests: one side's `vllm bench serve` result at one
// rate and run (1-based), two runs a side a block, each block's host speed (up to 30%
// slower) shared by both sides and each run's own noise (±noise/2), from a queue that
// saturates at `saturation` (serve-result.ts). Seeded: the same arguments, the same text.
import { seededRandom } from '../../src/stats/rng.js';
import { serveResult } from './serve-result.js';

export const SWEEP_RATES = [1, 2, 4, 6, 8];

export function sweepRunText(
  side: string,
  rate: number,
  saturation: number,
  run: number,
  noise: number,
): string {
  const block = Math.floor((run - 1) / 2);
  const host = 1 + 0.3 * seededRandom(`host-${block}`).next();
  const seed = `${side}-${rate}-${run}`;
  const runFactor = host * (1 + noise * (seededRandom(seed).next() - 0.5));
  const options = { rate, saturation, seed, runFactor, requests: 200, requestSpread: 0.05 };
  return JSON.stringify(serveResult(options));
}

// One value a gate run (github-action-benchmark's one number per commit, a benchmark with
// runs: 1): the bare threshold against the gate's rule, replayed commit by commit on noise
// shaped like real histories (one-value-replay.ts). bench:accuracy runs the same replay
// after its own scenarios.
//
//   npm run bench:one-value -- [--series 1000] [--seed perf-gate]

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { runOneValueReplay } from './one-value-replay.js';

const { values } = parseArgs({
  options: {
    series: { type: 'string', default: '1000' },
    seed: { type: 'string', default: 'perf-gate' },
  },
});
const series = Number(values.series);
if (!Number.isInteger(series) || series < 1) {
  throw new Error(`--series must be a positive integer, got ${values.series}`);
}
const started = performance.now();
const missed = runOneValueReplay({ series, seed: values.seed });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `\nwall time ${seconds} s` +
    (missed.length > 0 ? `; target(s) MISSED: ${missed.join(', ')}` : '; all targets met'),
);

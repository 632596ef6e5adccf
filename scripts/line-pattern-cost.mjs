// What matching one 64 KiB chunk of output costs the gate's event loop with the slowest
// ready-log patterns tried at the 1,000-instruction cap (src/text/line-pattern.ts), on
// lines at the 10,000-character cap; a fresh compile per try, so each try is a first pass.
// Usage: node scripts/line-pattern-cost.mjs   (docs/security.md quotes its figures)
import { performance } from 'node:perf_hooks';
import { RE2JS } from 're2js';

const CHUNK = 64 * 1024;
const lines = `${'a'.repeat(9_999)}b\n`
  .repeat(Math.ceil(CHUNK / 10_000))
  .slice(0, CHUNK)
  .split('\n');
const TRIES = 5;

for (const source of ['.{990}b', '(?:[a-z]{30}){33}b', '^(a+)+$', 'Application startup complete']) {
  const times = [];
  let size = 0;
  for (let i = 0; i < TRIES; i++) {
    const pattern = RE2JS.compile(source);
    size = pattern.programSize();
    const started = performance.now();
    for (const line of lines) pattern.test(line);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = (t) => t.toFixed(0);
  console.log(
    `${source}: ${size} instructions; per 64 KiB chunk: median ${ms(times[TRIES >> 1])} ms, max ${ms(times[TRIES - 1])} ms (${TRIES} tries)`,
  );
}

// The plain test behind the geomean's verdict at `compare`'s look, on bench:accuracy's own
// draws, for far more unchanged pull requests than the gate can be run on. When the older
// records lend their spread (lent-variance.ts: 93% of pareto-1.5's pull requests), the
// geomean's test is a pooled Student t test of the runs' mean log: 3 current runs against
// the window's 15, the variance pooled with the older records' runs in blocks of the
// window's size (58 degrees of freedom). Replayed here on the same streams as
// accuracy-pairs.ts (`${seed}/${scenario}/${pair}`), pull request by pull request, it tells
// a rate of the bench's 4,000 that is the rule's from one that is the draws'.
//
//   npm run bench:lent-t -- --scenario pareto-1.5 --pairs 100000 [--seed perf-gate] [--level 0.004]

import { parseArgs } from 'node:util';
import { studentTQuantile } from '../src/stats/distributions.js';
import { meanOf } from '../src/stats/mean.js';
import { RECORDS, RUNS, storedRecords } from './accuracy-pairs.js';
import { SCENARIOS, type PairWorld } from './noise-models.js';
import { lentPooledT } from './plain-tests.js';
import { createRng, type Rng } from './random.js';
import { percent, table, wilson } from './text.js';

/** Records the bench's store holds by default (accuracy.ts: --history). */
const HISTORY = 20;
/** Pull requests a bench:accuracy A/A case draws, the block the rates are shown for. */
const BLOCK = 4000;

interface Draws {
  current: number[];
  window: number[][];
  older: number[][];
}

/** One pull request's runs as mean logs, drawn as accuracy-pairs.ts draws them (A/A). */
function drawMeanLogs(world: PairWorld, stream: string, stored: number): Draws {
  const meanLog = (times: number[]) => meanOf(times.map(Math.log));
  const baselineRng = createRng(`${stream}/baseline`);
  const olderRng = createRng(`${stream}/older`);
  const currentRng = createRng(`${stream}/current`);
  const recordOf = (rng: Rng, record: number) =>
    Array.from({ length: RUNS }, () => meanLog(world.run(rng, { side: 'baseline', record }, 0)));
  const older = stored - RECORDS;
  const window = Array.from({ length: RECORDS }, (_, i) => recordOf(baselineRng, older + i));
  const olderRecords = Array.from({ length: older }, (_, i) => recordOf(olderRng, older - 1 - i));
  const place = { side: 'current', record: stored } as const;
  const current = Array.from({ length: RUNS }, () => meanLog(world.run(currentRng, place, 0)));
  return { current, window, older: olderRecords };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', default: 'pareto-1.5' },
      seed: { type: 'string', default: 'perf-gate' },
      pairs: { type: 'string', default: '20000' },
      // The geomean's one-sided level at compare's look (judge.ts lookLevels: 0.40% of the 0.5%).
      level: { type: 'string', default: '0.004' },
    },
  });
  const scenario = SCENARIOS.find((s) => s.name === values.scenario);
  if (!scenario) throw new Error(`--scenario ${values.scenario}: no such scenario`);
  const pairs = Number(values.pairs);
  const level = Number(values.level);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('--pairs must be a positive integer');
  if (!(level > 0 && level < 0.5)) throw new Error('--level must lie in (0, 0.5)');
  const stored = storedRecords(scenario, HISTORY);
  const blocks: number[] = [];
  let failed = 0;
  let critical = 0;
  for (let pair = 0; pair < pairs; pair += 1) {
    const stream = `${values.seed}/${scenario.name}/${pair}`;
    const world = scenario.world(createRng(`${stream}/world`), stored);
    const draws = drawMeanLogs(world, stream, stored);
    const { t, df } = lentPooledT(draws.current, draws.window.flat(), draws.older, RECORDS);
    critical = studentTQuantile(1 - level, df);
    const fails = t > critical;
    if (pair % BLOCK === 0) blocks.push(0);
    if (fails) {
      failed += 1;
      blocks[blocks.length - 1]! += 1;
    }
  }
  const [low, high] = wilson(failed, pairs);
  console.log(
    `${scenario.name}, seed "${values.seed}": the pooled t test of the runs' mean log, 3 runs ` +
      `against 15 with the older records' spread (critical t ${critical.toFixed(3)} at ${percent(level, 2)} one-sided)`,
  );
  console.log(
    table(
      ['pull requests', 'failed', 'rate (95% interval)'],
      [
        ...blocks.map((count, i) => {
          const size = Math.min(BLOCK, pairs - i * BLOCK);
          return [`${i * BLOCK}–${i * BLOCK + size - 1}`, String(count), percent(count / size, 2)];
        }),
        [
          `all ${pairs}`,
          String(failed),
          `${percent(failed / pairs, 3)} (${percent(low, 3)}–${percent(high, 3)})`,
        ],
      ],
    ),
  );
}

main();

// Writes a simulated history as record files, for looking at the dashboard as a person
// would: `node dist/cli.js dashboard --dir DIR --out SITE` then renders it.
//
//   npm run bench:dashboard-history -- --out DIR                 # 40 nights × 3 benchmarks
//   npm run bench:dashboard-history -- --out DIR --year          # 365 nights × 100 series

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathOfRecord } from '../src/baseline/record-paths.js';
import { serializeRecord } from '../src/baseline/record-text.js';
import { ATTENTION_SHAPE, recordsOfNight, type HistoryShape } from './history-sim.js';

const { values } = parseArgs({
  options: { out: { type: 'string' }, year: { type: 'boolean', default: false } },
});
if (!values.out)
  throw new Error('bench:dashboard-history needs --out DIR: where to write the records');
// The year: bench:dashboard's shape (the SDK upgrade half way, a regression at 3/4).
const shape: HistoryShape = values.year
  ? { nights: 365, benchmarks: 20, requests: 200, sdkUpgradeAt: 182, regressionAt: 273 }
  : ATTENTION_SHAPE;
let count = 0;
for (let night = 0; night < shape.nights; night += 1) {
  for (const record of recordsOfNight(shape, night)) {
    const file = join(values.out, pathOfRecord(record));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, serializeRecord(record));
    count += 1;
  }
}
console.log(
  `${count} records of ${shape.nights} nights × ${shape.benchmarks} benchmarks in ${values.out}`,
);

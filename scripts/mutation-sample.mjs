// npm run mutate: the mutation kill rate of the verdict and history code on a seeded random
// sample of its mutants. The files in scope hold about 3,400 StrykerJS mutants, days of test
// runs on 2 cores; a sample of 40 (about 80 mutants run: those at a drawn location) takes
// 30–40 minutes on a loaded machine and gives the rate to about ±11 points.
//
//   npm run mutate [-- --size 40 --seed 49 --files judge,changepoints --again]
//
// 1. Lists every mutant of stryker.config.json's `mutate` files with Stryker's own
//    instrumenter (the mutators and locations `stryker run` uses).
// 2. Draws `--size` of them at random from `--seed` (the same sample on every machine).
// 3. Runs `stryker run` on the sample's locations, every other mutant ignored
//    (scripts/mutation-sample-ignorer.mjs).
// 4. Prints killed, survived, no coverage and timeout per file, the score (killed and timed
//    out over all that ran) with its 95% Wilson interval, and each surviving mutant; keeps
//    each drawn mutant's status in .tmp/mutation/sample-SEED-SIZE-results.json.
// --again: runs only the drawn mutants the last run left alive, after tests were added.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { percent, wilson } from './wilson.mjs';

const CONFIG = 'stryker.config.json';
const OUT = '.tmp/mutation';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}

/** mulberry32: a small seeded generator, so a seed names one sample everywhere. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const quiet = () => false;
const silent = () => {};
const logger = {
  isTraceEnabled: quiet,
  isDebugEnabled: quiet,
  isInfoEnabled: quiet,
  isWarnEnabled: () => true,
  isErrorEnabled: () => true,
  isFatalEnabled: () => true,
  trace: silent,
  debug: silent,
  info: silent,
  warn: console.warn,
  error: console.error,
  fatal: console.error,
};

async function allMutants(files) {
  const inputs = files.map((name) => ({ name, content: readFileSync(name, 'utf8'), mutate: true }));
  const result = await new Instrumenter(logger).instrument(inputs, {
    plugins: null,
    excludedMutations: [],
    ignorers: [],
  });
  return result.mutants;
}

function draw(mutants, size, seed) {
  const random = seeded(seed);
  const pool = [...mutants];
  for (let i = pool.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, size);
}

// The instrumenter counts lines from 0 and columns from 0; a mutate range counts lines from 1
// and columns from 0; the JSON report counts both from 1.
const range = ({ fileName, location: { start, end } }) =>
  `${fileName}:${start.line + 1}:${start.column}-${end.line + 1}:${end.column}`;
// A mutant's name: mutants of one mutator can start at one place (`a < b` in `a < b || c`).
const keyOf = (file, mutator, replacement, { start, end }) =>
  `${file}|${mutator}|${replacement}|${start.line}:${start.column}-${end.line}:${end.column}`;
const fromOne = ({ line, column }) => ({ line: line + 1, column: column + 1 });
const drawnKey = (m) =>
  keyOf(m.fileName, m.mutatorName, m.replacement, {
    start: fromOne(m.location.start),
    end: fromOne(m.location.end),
  });

function tally(results) {
  const rows = new Map();
  for (const m of results) {
    const row = rows.get(m.file) ?? { Killed: 0, Survived: 0, NoCoverage: 0, Timeout: 0, other: 0 };
    if (m.status in row) row[m.status] += 1;
    else row.other += 1;
    rows.set(m.file, row);
  }
  return rows;
}

function printTable(rows) {
  const sum = { Killed: 0, Survived: 0, NoCoverage: 0, Timeout: 0, other: 0 };
  console.log(
    'file                                  mutants killed survived no-cov timeout  score',
  );
  for (const [file, row] of [...rows].sort()) {
    for (const k of Object.keys(sum)) sum[k] += row[k];
    printRow(file, row);
  }
  printRow('all', sum);
  const ran = sum.Killed + sum.Timeout + sum.Survived + sum.NoCoverage;
  const [low, high] = wilson(sum.Killed + sum.Timeout, ran);
  console.log(
    `score ${percent((sum.Killed + sum.Timeout) / ran)} (95% Wilson ${percent(low)} to ${percent(high)}); ` +
      `${sum.other} compile or run-time errors not counted`,
  );
}

function printRow(file, row) {
  const ran = row.Killed + row.Timeout + row.Survived + row.NoCoverage;
  const score = ran ? percent((row.Killed + row.Timeout) / ran) : '-';
  console.log(
    `${file.padEnd(38)}${String(ran).padStart(7)}${String(row.Killed).padStart(7)}` +
      `${String(row.Survived).padStart(9)}${String(row.NoCoverage).padStart(7)}` +
      `${String(row.Timeout).padStart(8)}${score.padStart(7)}`,
  );
}

const config = JSON.parse(readFileSync(CONFIG, 'utf8'));
const size = Number(option('size', '40'));
const seed = Number(option('seed', '49'));
const only = option('files', '').split(',').filter(Boolean);
const files = config.mutate.filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
const mutants = await allMutants(files);
mkdirSync(OUT, { recursive: true });
const results = `${OUT}/sample-${seed}-${size}-results.json`;
const again = process.argv.includes('--again');
// --again: the last run's drawn mutants, not a new draw (dead code deleted since would shift
// it). Tests are only added between runs and a mutant a test kills stays killed, so only
// those it left alive run again; a drawn mutant whose code is gone leaves the count.
const before = again
  ? new Map(JSON.parse(readFileSync(results, 'utf8')).map((r) => [r.key, r]))
  : new Map();
const sample = again ? mutants.filter((m) => before.has(drawnKey(m))) : draw(mutants, size, seed);
console.log(
  `${mutants.length} mutants in ${files.length} files; drawn ${sample.length} (seed ${seed})`,
);
if (again) {
  const gone = [...before.keys()].filter((key) => !sample.some((m) => drawnKey(m) === key));
  for (const key of gone) console.log(`gone with its code: ${key}`);
  for (const key of gone) before.delete(key);
}
const unsettled = (m) => !['Killed', 'Timeout'].includes(before.get(drawnKey(m))?.status);
const toRun = again ? sample.filter(unsettled) : sample;
console.log(`${toRun.length} to run${again ? ' again' : ''}`);
const ran = toRun.length > 0 ? runStryker(toRun, `${OUT}/sample-${seed}-${size}.json`) : [];
const merged = new Map([...before, ...ran.map((r) => [r.key, r])]);
writeFileSync(results, JSON.stringify([...merged.values()], null, 2));
printTable(tally([...merged.values()]));
for (const m of [...merged.values()].filter((r) => ['Survived', 'NoCoverage'].includes(r.status))) {
  console.log(
    `${m.status} ${m.file}:${m.location.start.line}:${m.location.start.column} ` +
      `${m.mutatorName} -> ${JSON.stringify(m.replacement).slice(0, 80)}`,
  );
}

/** Runs StrykerJS on these mutants alone; their results as the JSON report has them. */
function runStryker(chosen, report) {
  const locations = resolve(OUT, 'drawn-locations.json');
  // As a syntax node's location: lines from 1, columns from 0.
  const babelLocation = ({ start, end }) => ({
    start: { line: start.line + 1, column: start.column },
    end: { line: end.line + 1, column: end.column },
  });
  writeFileSync(
    locations,
    JSON.stringify(chosen.map((m) => ({ file: m.fileName, ...babelLocation(m.location) }))),
  );
  const sampleConfig = {
    ...config,
    mutate: chosen.map(range),
    plugins: ['@stryker-mutator/*', resolve('scripts/mutation-sample-ignorer.mjs')],
    ignorers: ['drawn-sample'],
    jsonReporter: { fileName: report },
  };
  delete sampleConfig.$schema;
  writeFileSync(`${OUT}/stryker.sample.json`, JSON.stringify(sampleConfig, null, 2));
  if (!process.argv.includes('--report-only')) {
    const run = spawnSync('npx', ['stryker', 'run', `${OUT}/stryker.sample.json`], {
      stdio: 'inherit',
      env: { ...process.env, MUTATION_SAMPLE: locations },
    });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
  const wanted = new Set(chosen.map(drawnKey));
  const found = [];
  for (const [file, { mutants }] of Object.entries(
    JSON.parse(readFileSync(report, 'utf8')).files,
  )) {
    for (const m of mutants) {
      const key = keyOf(file, m.mutatorName, m.replacement, m.location);
      if (wanted.delete(key)) found.push({ key, file, ...m });
    }
  }
  if (wanted.size > 0) console.warn(`${wanted.size} drawn mutants not found in the report`);
  return found;
}

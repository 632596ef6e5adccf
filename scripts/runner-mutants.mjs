// npm run bench:runner-mutants: the kill rate of hand mutants of src/runner/ (issue 51).
// StrykerJS (npm run mutate) is too slow for tests that spawn servers and sandboxes, so the
// mutants are written by hand as data (bench/runner-mutants.json): realistic bugs of the
// server, readiness, sandbox and benchmark code, each a `find` → `replace` in one file.
//
//   npm run bench:runner-mutants [-- --only ID[,ID] --area NAME --timeout-minutes 5]
//
// For each mutant: checks that `find` occurs exactly once in its file, writes the mutant into
// a scratch copy of the worktree (never into src/ here; the copy goes on exit, Ctrl-C or
// failure), runs its area's quick-tier test files there (vitest --bail 1) and records:
//   Killed    a test failed;
//   Timeout   the tests ran past --timeout-minutes: counted as killed, as StrykerJS counts
//             it (a change that hangs the suite does not pass it);
//   Survived  every test passed.
// Mutants marked `equivalent` (no test can tell them apart, said why) are listed, not run,
// and left out of the rate. Prints each outcome, then the kill rate per area and overall with
// its 95% Wilson interval; keeps the results in .tmp/mutation/runner-mutants-results.json.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { percent, wilson } from './wilson.mjs';

const DATA = 'bench/runner-mutants.json';
const OUT = '.tmp/mutation';
/** Not copied into the scratch tree: big, or the state of this one. */
const SKIPPED = new Set(['node_modules', '.git', '.tmp', 'coverage', 'demo-output']);

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}

/** Every mutant's `find` must name one place: a second match would mutate the wrong one. */
function checkFinds(mutants) {
  const problems = [];
  for (const m of mutants) {
    const count = readFileSync(m.file, 'utf8').split(m.find).length - 1;
    if (count !== 1) problems.push(`${m.id}: \`find\` occurs ${count} times in ${m.file}`);
  }
  return problems;
}

/** A copy of this worktree (node_modules linked) to mutate; removed on any way out. */
function scratchCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'perf-gate-mutants-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      remove();
      process.exit(130);
    });
  }
  cpSync('.', dir, { recursive: true, filter: (src) => !SKIPPED.has(src.split('/')[0]) });
  symlinkSync(realpathSync('node_modules'), join(dir, 'node_modules'));
  return dir;
}

/**
 * Ctrl-C reaches vitest too, and spawnSync holds the event loop, so no signal handler here
 * runs while it does: an interrupted vitest (by a signal, or its exit code 130) ends the
 * script, whose exit handler removes the scratch copy.
 */
function exitIfInterrupted(result) {
  if (result.signal === 'SIGINT' || result.signal === 'SIGTERM' || result.status === 130) {
    console.error('interrupted');
    process.exit(130);
  }
}

/** Runs the scratch copy's vitest with `args`, killed past `timeoutMs`; Ctrl-C ends the script. */
function vitestIn(dir, args, timeoutMs) {
  const result = spawnSync(join(dir, 'node_modules', '.bin', 'vitest'), args, {
    cwd: dir,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CI: '1', NO_COLOR: '1' },
  });
  exitIfInterrupted(result);
  return result;
}

/** The tests on the unmutated copy must pass, or every mutant would look killed. */
function checkBaseline(dir, tests, timeoutMs) {
  const result = vitestIn(dir, ['run', ...tests], timeoutMs);
  if (result.status === 0) return;
  console.error(`${result.stdout}${result.stderr}`.slice(-4_000));
  console.error('the tests fail without a mutant: fix them first');
  process.exit(1);
}

/** Runs the mutant's tests in `dir` with the mutant written in; the original put back after. */
function runMutant(dir, m, tests, timeoutMs) {
  const file = join(dir, m.file);
  const original = readFileSync(file, 'utf8');
  writeFileSync(
    file,
    original.replace(m.find, () => m.replace),
  );
  const started = performance.now();
  try {
    const result = vitestIn(dir, ['run', '--bail', '1', ...tests], timeoutMs);
    const seconds = (performance.now() - started) / 1000;
    if (result.error?.code === 'ETIMEDOUT') return { status: 'Timeout', seconds };
    if (result.status === 0) return { status: 'Survived', seconds };
    // eslint-disable-next-line no-control-regex
    const output = `${result.stdout}${result.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
    const failed = output
      .match(/(?:FAIL|×)\s+(.+)/)?.[1]
      ?.trim()
      .slice(0, 110);
    return { status: 'Killed', seconds, by: failed };
  } finally {
    writeFileSync(file, original);
  }
}

function printRates(results, areas) {
  console.log('\narea        mutants killed timeout survived  rate    95% Wilson');
  for (const area of [...areas, 'all']) {
    const rows = results.filter((r) => area === 'all' || r.area === area);
    const detected = rows.filter((r) => r.status !== 'Survived').length;
    if (rows.length === 0) continue;
    const [low, high] = wilson(detected, rows.length);
    const count = (status) => rows.filter((r) => r.status === status).length;
    console.log(
      `${area.padEnd(12)}${String(rows.length).padStart(7)}${String(count('Killed')).padStart(7)}` +
        `${String(count('Timeout')).padStart(8)}${String(count('Survived')).padStart(9)}` +
        `${percent(detected / rows.length).padStart(7)}   ${percent(low)} to ${percent(high)}`,
    );
  }
}

const data = JSON.parse(readFileSync(DATA, 'utf8'));
const only = option('only', '').split(',').filter(Boolean);
const area = option('area', '');
const timeoutMs = Number(option('timeout-minutes', '5')) * 60_000;
const chosen = data.mutants.filter(
  (m) => (only.length === 0 || only.includes(m.id)) && (area === '' || m.area === area),
);
const problems = checkFinds(chosen);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(2);
}
if (chosen.length === 0) {
  console.error(`no mutant matches --only ${only.join(',')} --area ${area}`);
  process.exit(2);
}
const equivalent = chosen.filter((m) => m.equivalent);
const toRun = chosen.filter((m) => !m.equivalent);
console.log(`${toRun.length} mutants to run, ${equivalent.length} equivalent left out`);
const started = performance.now();
const dir = scratchCopy();
checkBaseline(dir, [...new Set(toRun.flatMap((m) => m.tests ?? data.areas[m.area]))], timeoutMs);
console.log(
  `the tests pass without a mutant (${((performance.now() - started) / 1000).toFixed(0)} s)`,
);
const results = [];
for (const m of toRun) {
  const tests = m.tests ?? data.areas[m.area];
  const outcome = runMutant(dir, m, tests, timeoutMs);
  results.push({ id: m.id, area: m.area, ...outcome });
  const by = outcome.by ? ` (${outcome.by})` : '';
  console.log(
    `${outcome.status.padEnd(9)} ${m.area.padEnd(10)} ${m.id} ${outcome.seconds.toFixed(0)} s${by}`,
  );
}
for (const m of equivalent) console.log(`equivalent ${m.area.padEnd(10)} ${m.id}: ${m.equivalent}`);
const areas = [...new Set(data.mutants.map((m) => m.area))];
printRates(results, areas);
const wall = (performance.now() - started) / 1000;
const seconds = Math.round(wall);
console.log(`wall time ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
mkdirSync(OUT, { recursive: true });
writeFileSync(
  resolve(OUT, 'runner-mutants-results.json'),
  `${JSON.stringify({ date: new Date().toISOString(), wallSeconds: wall, results }, null, 2)}\n`,
);

// Large results: `vllm bench serve --save-detailed` files of 25, 100 and 250 MB per side
// (50,000 requests × 128 ITLs at 250 MB, fewer requests in proportion below), fed to the
// bundled CLI (dist/cli.js) as a user would:
//   - `compare --baseline B --current C --out D`, timed against
//     `python3 -c 'import json; json.load(open(F))'` on the same two files;
//   - `run` with 3 runs, each writing such a result, against the baseline file.
// Peak RSS is the gate process's own maxRSS, read by a preload (`node --import`) from
// process.resourceUsage() when it exits; the benchmark commands `run` spawns are separate
// processes and not counted. Files are written under the OS temp folder and removed.
//
//   npm run bench:large                      # 25, 100, 250 MB
//   npm run bench:large -- --sizes 25,100    # quicker

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { table } from './text.js';
import { writeVllmDetailedFile } from './vllm-detailed.js';

const MB = 1024 * 1024;
/** The issue's reference file: 50,000 requests, 128 ITLs each, about 250 MB. */
const FULL_REQUESTS = 50_000;
const FULL_MB = 250;
const ITLS_PER_REQUEST = 128;
const RUNS = 3;
const GOALS = { ratio: 3, rssMb: 1024, reportMb: 5 };
const CLI = resolve('dist/cli.js');

interface Measured {
  wallMs: number;
  peakRssMb: number;
  exitCode: number | null;
  stderr: string;
}

interface SizeReport {
  mb: number;
  requests: number;
  fileMb: number;
  generateMs: number;
  pythonMs: number;
  pythonPeakRssMb: number;
  compare: Measured;
  compareReportMb: number;
  runPythonMs: number;
  run: Measured;
  runReportMb: number;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '25,100,250' },
      keep: { type: 'boolean', default: false },
    },
  });
  const sizes = values.sizes.split(',').map(Number);
  if (sizes.some((size) => !(size > 0))) throw new Error(`--sizes: ${values.sizes}`);
  statSync(CLI); // the bundled CLI must exist: npm run bundle
  const root = mkdtempSync(join(tmpdir(), 'perf-gate-large-'));
  const preload = join(root, 'rusage.mjs');
  writeFileSync(
    preload,
    "import { writeFileSync } from 'node:fs';\n" +
      "process.on('exit', () => writeFileSync(process.env.PERF_GATE_BENCH_RUSAGE, " +
      'JSON.stringify(process.resourceUsage())));\n',
  );
  console.log(
    `neuron-perf-gate with large results: vllm bench serve --save-detailed files, ` +
      `${ITLS_PER_REQUEST} ITLs per request, ${FULL_REQUESTS.toLocaleString('en-US')} requests at ${FULL_MB} MB; ` +
      `node ${process.version}, files in ${root}`,
  );
  console.log(
    'python = python3 -c "import json; json.load(open(F))" over the files the gate reads, one after ' +
      'the other; peak RSS = the gate process maxRSS',
  );
  console.log('');
  const reports: SizeReport[] = [];
  try {
    for (const mb of sizes) {
      reports.push(measureSize(root, preload, mb));
      printRow(reports.at(-1)!);
    }
  } finally {
    if (!values.keep) rmSync(root, { recursive: true, force: true });
  }
  console.log('');
  printTable(reports);
  printLinearity(reports);
  printGoals(reports);
}

function measureSize(root: string, preload: string, mb: number): SizeReport {
  const dir = join(root, `${mb}mb`);
  const requests = Math.round((FULL_REQUESTS * mb) / FULL_MB);
  const generateStart = performance.now();
  const generate = (name: string, seed: string, slowdown: number) => {
    const path = join(dir, name);
    writeVllmDetailedFile(path, {
      requests,
      itlsPerRequest: ITLS_PER_REQUEST,
      targetBytes: mb * MB,
      seed: `${mb}/${seed}`,
      slowdown,
    });
    return path;
  };
  spawnSync('mkdir', ['-p', dir]);
  const baseline = generate('baseline.json', 'baseline', 1);
  const current = generate('current.json', 'current', 1.03);
  const generateMs = performance.now() - generateStart;

  const python = pythonLoad([baseline, current]);
  const compareOut = join(dir, 'compare-out');
  const compare = gate(preload, dir, [
    'compare',
    '--baseline',
    baseline,
    '--current',
    current,
    '--out',
    compareOut,
  ]);

  // Each run writes its result where the gate says; the gate then reads all three.
  const runOut = join(dir, 'run-out');
  const run = gate(preload, dir, [
    'run',
    '--name',
    'serve',
    '--command',
    `cp '${current}' "$PERF_GATE_OUTPUT"`,
    '--format',
    'vllm-bench-serve',
    '--runs',
    String(RUNS),
    '--profile',
    'false',
    '--baseline',
    baseline,
    '--out',
    runOut,
    '--quiet',
  ]);
  const runPython = pythonLoad([baseline, current, current, current]);
  return {
    mb,
    requests,
    fileMb: statSync(current).size / MB,
    generateMs,
    pythonMs: python.wallMs,
    pythonPeakRssMb: python.peakRssMb,
    compare,
    compareReportMb: sizeMb(join(compareOut, 'report.json')),
    runPythonMs: runPython.wallMs,
    run,
    runReportMb: sizeMb(join(runOut, 'report.json')),
  };
}

/** Python's json.load of each file in turn: the yardstick of the time goal. */
function pythonLoad(files: string[]): { wallMs: number; peakRssMb: number } {
  const script = [
    'import json, resource, sys, time',
    'start = time.perf_counter()',
    'for f in sys.argv[1:]:',
    '    json.load(open(f))',
    'print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)',
  ].join('\n');
  const child = spawnSync('python3', ['-c', script, ...files], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`python3 failed: ${child.stderr}`);
  const [seconds, maxRssKb] = child.stdout.trim().split(' ').map(Number);
  return { wallMs: seconds! * 1000, peakRssMb: maxRssKb! / 1024 };
}

/** The bundled CLI in a child process, with its own maxRSS read by the preload on exit. */
function gate(preload: string, dir: string, args: string[]): Measured {
  const rusageFile = join(dir, `rusage-${args[0]}.json`);
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--import', preload, CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, PERF_GATE_BENCH_RUSAGE: rusageFile },
    maxBuffer: 64 * MB,
  });
  const wallMs = performance.now() - start;
  let peakRssMb = Number.NaN;
  try {
    // maxRSS is in kilobytes (KiB).
    peakRssMb = (JSON.parse(readFileSync(rusageFile, 'utf8')) as { maxRSS: number }).maxRSS / 1024;
  } catch {
    // The process died before its exit handler (killed, out of memory): no figure.
  }
  return { wallMs, peakRssMb, exitCode: child.status, stderr: child.stderr.slice(-2000) };
}

function sizeMb(path: string): number {
  try {
    return statSync(path).size / MB;
  } catch {
    return Number.NaN;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (mb: number) => (Number.isNaN(mb) ? 'none' : `${mb.toFixed(mb < 10 ? 2 : 0)} MB`);

function printRow(r: SizeReport): void {
  const status = (m: Measured) =>
    m.exitCode === 0 || m.exitCode === 1
      ? ''
      : ` (exit ${m.exitCode}: ${m.stderr.trim().split('\n').at(-1)})`;
  console.log(
    `${r.mb} MB per side (${r.requests.toLocaleString('en-US')} requests, generated in ${seconds(r.generateMs)}): ` +
      `compare ${seconds(r.compare.wallMs)}${status(r.compare)}, run ${seconds(r.run.wallMs)}${status(r.run)}`,
  );
}

function printTable(reports: SizeReport[]): void {
  console.log(
    table(
      ['per side', 'file', 'python ×2', 'compare --out', 'ratio', 'peak RSS', 'report.json'],
      reports.map((r) => [
        `${r.mb} MB`,
        megabytes(r.fileMb),
        seconds(r.pythonMs),
        seconds(r.compare.wallMs),
        `${(r.compare.wallMs / r.pythonMs).toFixed(2)}×`,
        megabytes(r.compare.peakRssMb),
        megabytes(r.compareReportMb),
      ]),
    ),
  );
  console.log('');
  console.log(
    table(
      ['per side', `python ×${RUNS + 1}`, `run (${RUNS} runs)`, 'ratio', 'peak RSS', 'report.json'],
      reports.map((r) => [
        `${r.mb} MB`,
        seconds(r.runPythonMs),
        seconds(r.run.wallMs),
        `${(r.run.wallMs / r.runPythonMs).toFixed(2)}×`,
        megabytes(r.run.peakRssMb),
        megabytes(r.runReportMb),
      ]),
    ),
  );
  console.log(
    `(run: ${RUNS} runs that each copy the current file to PERF_GATE_OUTPUT, against the baseline ` +
      `file; python ×${RUNS + 1} loads the baseline and the ${RUNS} results)`,
  );
}

function printLinearity(reports: SizeReport[]): void {
  if (reports.length < 2) return;
  const small = reports[0]!;
  const large = reports.at(-1)!;
  const size = large.fileMb / small.fileMb;
  console.log('');
  console.log(
    `growth ${small.mb} → ${large.mb} MB (files ${size.toFixed(1)}× larger): compare time ` +
      `${(large.compare.wallMs / small.compare.wallMs).toFixed(1)}×, run time ` +
      `${(large.run.wallMs / small.run.wallMs).toFixed(1)}×, compare peak RSS ` +
      `${(large.compare.peakRssMb / small.compare.peakRssMb).toFixed(1)}× ` +
      `(time per MB: ${reports.map((r) => `${(r.compare.wallMs / r.fileMb / 2).toFixed(0)} ms`).join(', ')})`,
  );
}

function printGoals(reports: SizeReport[]): void {
  console.log('');
  for (const r of reports) {
    const checks: [string, boolean][] = [
      [
        `compare ${(r.compare.wallMs / r.pythonMs).toFixed(2)}× python (≤ ${GOALS.ratio}×)`,
        r.compare.wallMs <= GOALS.ratio * r.pythonMs,
      ],
      [
        `compare peak RSS ${megabytes(r.compare.peakRssMb)} (≤ ${GOALS.rssMb} MB)`,
        r.compare.peakRssMb <= GOALS.rssMb,
      ],
      [
        `compare report.json ${megabytes(r.compareReportMb)} (≤ ${GOALS.reportMb} MB)`,
        r.compareReportMb <= GOALS.reportMb,
      ],
      [
        `run ${(r.run.wallMs / r.runPythonMs).toFixed(2)}× python (≤ ${GOALS.ratio}×)`,
        r.run.wallMs <= GOALS.ratio * r.runPythonMs,
      ],
      [
        `run peak RSS ${megabytes(r.run.peakRssMb)} (≤ ${GOALS.rssMb} MB)`,
        r.run.peakRssMb <= GOALS.rssMb,
      ],
      [
        `run report.json ${megabytes(r.runReportMb)} (≤ ${GOALS.reportMb} MB)`,
        r.runReportMb <= GOALS.reportMb,
      ],
    ];
    for (const [text, ok] of checks)
      console.log(`${ok ? '    PASS' : '>>> MISS'}  ${r.mb} MB: ${text}`);
  }
}

main();

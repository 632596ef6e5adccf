// `npm run demo`: the whole gate on the simulated inf2 toolchain. Records a baseline,
// then evaluates a candidate that is 8% slower, and leaves everything in demo-output/.
// `--workspace DIR` runs it in DIR instead of the clone (output in DIR/demo-output), so
// that the pictures' staleness test can run it beside a developer's own demo-output/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values: flags } = parseArgs({ options: { workspace: { type: 'string' } } });
const workspace = resolve(flags.workspace ?? root);
const out = join(workspace, 'demo-output');
const shown = relative(process.cwd(), out) || '.'; // demo-output, from the clone
const simulatorBin = join(root, 'examples', 'simulated-inf2', 'bin');
const cli = join(root, 'dist', 'cli.js');
const config = join(out, 'perf-gate.yml');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
writeFileSync(
  config,
  `# The reference workload: Qwen3-Reranker-0.6B on inf2.xlarge, simulated.
benchmarks:
  - name: qwen3-reranker
    command: offline-benchmark --max-num-seqs 4
    format: offline-benchmark
    runs: 3
    profile: auto
    timeout-minutes: 5
`,
);

function gate(title, args, env) {
  console.error(`\n=== ${title}\n$ neuron-perf-gate ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: workspace,
    // The simulator stands in for an inf2.xlarge; on a real runner the gate reads the
    // instance type from the machine (DMI), so this override is only for the demo.
    env: {
      ...process.env,
      PATH: `${simulatorBin}${delimiter}${process.env.PATH}`,
      PERF_GATE_INSTANCE_TYPE: 'inf2.xlarge',
      // A compile cache of the demo's own, empty at the start (demo-output/ is removed
      // above): the baseline compiles the simulated graphs and the candidate loads them,
      // the same on every machine, whatever another run left in the default cache.
      NEURON_COMPILE_CACHE_URL: join('demo-output', 'neuron-compile-cache'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  console.error(`(exit code ${result.status}, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result.status;
}

const baselineExit = gate(
  'Baseline: the current main branch',
  [
    'run',
    '--config',
    config,
    '--out',
    join(out, 'baseline-run'),
    '--save-baseline',
    join(out, 'baseline.json'),
    '--quiet',
  ],
  { SIM_SEED: '1' },
);
if (baselineExit !== 0) {
  console.error('demo: recording the baseline failed');
  process.exit(1);
}

const candidateExit = gate(
  'Candidate: a pull request that makes every query 8% slower',
  ['run', '--config', config, '--baseline', join(out, 'baseline.json'), '--out', out, '--quiet'],
  { SIM_SEED: '2', SIM_SLOWDOWN: '1.08' },
);

const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
console.log(`\nVerdict: ${report.verdict} (exit code ${candidateExit})\n`);
console.log(`--- ${join(shown, 'comment.md')} ---\n`);
console.log(readFileSync(join(out, 'comment.md'), 'utf8'));
console.log(
  `Left in ${shown}/: report.json, comment.md, summary.md, baseline.json, runs/ (results and logs), profiles/ (NTFF and NEFF files)`,
);
// The demo succeeds when the gate caught the regression it was shown.
process.exit(report.verdict === 'regression' && candidateExit === 1 ? 0 : 1);

// The head side's attacks on the base side of `ab` (issue 50), as shell lines a head's
// benchmark command runs before its benchmark, and the config that runs them: shared by
// test/ab/base-out-of-reach.test.ts (in-process) and test/e2e/ab-reach.test.ts (bundled).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gitIn } from './git.js';

/** Shell lines the head runs before its benchmark, one set per attack. */
export const ATTACKS = {
  // The base worktree's parent renamed, and a folder of the same name with the head's knobs.
  worktree: [
    'for p in "$(dirname "$(dirname "$TMPDIR")")"/perf-gate-bisect-*; do',
    '  case "$p" in *.moved) continue;; esac',
    '  for b in "$p"/base-*; do',
    '    [ -e "$p.moved" ] || { mv "$p" "$p.moved" && mkdir -p "$b" && cp sim-knobs.env "$b/"; }',
    '  done',
    'done',
  ],
  // The out-dir renamed before each head run, and a new one whose base results so far are
  // made by the head's own code.
  outDir: [
    'h=$(ls perf-gate-ab/head/runs/reranker/run-*.clean.json 2>/dev/null | wc -l)',
    'if mv perf-gate-ab "perf-gate-ab.old.$h" 2>/dev/null; then',
    '  mkdir -p perf-gate-ab/base/runs/reranker && cp -r "perf-gate-ab.old.$h/head" perf-gate-ab/head',
    '  for i in $(seq 1 $((h + 2))); do',
    '    offline-benchmark --output-file "perf-gate-ab/base/runs/reranker/run-$i.clean.json" >/dev/null',
    '  done',
    'fi',
  ],
  // The out-dir moved aside in one head run, so that in the next the base's real results,
  // hidden by path only, are in sight: rewritten by the head's code and put back.
  rewrite: [
    'if [ -d perf-gate-ab.moved ]; then',
    '  for f in perf-gate-ab.moved/base/runs/reranker/run-*.clean.json; do',
    '    offline-benchmark --output-file "$f" >/dev/null',
    '  done',
    '  cp -r perf-gate-ab/head/. perf-gate-ab.moved/head/',
    '  mv perf-gate-ab "$(mktemp -u -d perf-gate-ab.trash.XXXXXX)" && mv perf-gate-ab.moved perf-gate-ab',
    'elif mv perf-gate-ab perf-gate-ab.moved 2>/dev/null; then',
    '  mkdir -p perf-gate-ab/base && cp -r perf-gate-ab.moved/head perf-gate-ab/head',
    'fi',
  ],
  // No renaming: the base's results written where they are, which a runner's workspace,
  // bound back into the sandbox over what hid them, once showed.
  direct: [
    'for f in perf-gate-ab/base/runs/reranker/run-*.clean.json; do',
    '  [ -f "$f" ] && offline-benchmark --output-file "$f" >/dev/null',
    'done',
  ],
} as const;

export type Attack = keyof typeof ATTACKS;

export function configOf(attacks: readonly Attack[]): string {
  const lines = [
    'if [ "$PERF_GATE_SIDE" = head ]; then',
    ...attacks.flatMap((attack) => ATTACKS[attack].map((line) => `  ${line}`)),
    '  mkdir -p "$(dirname "$PERF_GATE_OUTPUT")"',
    'fi',
    'offline-benchmark --output-file "$PERF_GATE_OUTPUT"',
  ];
  return [
    'benchmarks:',
    '  - name: reranker',
    '    command: |',
    ...lines.map((line) => `      ${line}`),
    '    format: offline-benchmark',
    '    profile: false',
    '    timeout-minutes: 2',
    '    env: { SIM_KNOBS_FILE: sim-knobs.env }',
    '',
  ].join('\n');
}

/** A fast base commit, and a head commit whose simulated benchmark is 25% slower. */
export async function commitBaseAndSlowerHead(repo: string): Promise<void> {
  const git = (args: string[]) => gitIn(repo, args);
  git(['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(repo, '.gitignore'), 'perf-gate-ab*/\n');
  await writeFile(join(repo, 'sim-knobs.env'), 'SIM_SLOWDOWN=1\n');
  await writeFile(join(repo, 'perf-gate.yml'), configOf([]));
  git(['add', '-A']);
  git(['commit', '--quiet', '-m', 'fast']);
  await writeFile(join(repo, 'sim-knobs.env'), 'SIM_SLOWDOWN=1.25\n');
  git(['commit', '--quiet', '-am', 'a quarter slower']);
}

/** The control and the four attacks, each named. */
export const ATTACK_CASES: readonly [string, Attack[]][] = [
  ['no attack (the control)', []],
  ['the base worktree parent swapped', ['worktree']],
  ['the out-dir swapped', ['outDir']],
  ['both swapped', ['worktree', 'outDir']],
  ["the base's results rewritten between runs", ['rewrite']],
];

// A real git repository whose history a bisection walks: commit 0 (the good one) holds
// a gate config benchmarking the simulator and the simulator's knobs file; each of the
// next `commits` commits changes a source file, and from `culprit` on (1-based) the knobs
// file says the build is slower (SIM_KNOBS_FILE: commit-indexed variants). Written with
// one `git fast-import`, so 64 commits take one process.
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BisectRepoOptions {
  commits: number;
  /** 1-based index of the first slow commit among the `commits`. */
  culprit: number;
  /** SIM_SLOWDOWN from the culprit on, e.g. 1.05. */
  slowdown: number;
  /** Other knobs from the culprit on (an SDK upgrade: SIM_NEURON_TOOLS_VERSION). */
  culpritKnobs?: Record<string, string>;
  /** Knobs of every commit (SIM_NOISE, SIM_QUERIES). */
  knobs?: Record<string, string>;
  /** Knobs of single commits by index (SIM_FAIL: load, a commit whose benchmark crashes). */
  knobsAt?: Record<number, Record<string, string>>;
  /** Clean runs per commit the config asks for. */
  runs?: number;
  /** The benchmark's `monitor:` value, e.g. `{ period: 0.2s }`. */
  monitor?: string;
}

export interface BisectRepo {
  dir: string;
  /** SHAs, index 0 = the good commit, index `commits` = the bad one (HEAD). */
  shas: string[];
}

export const BISECT_CONFIG = (runs: number, monitor?: string) => `benchmarks:
  - name: reranker
    command: offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: ${runs}
    profile: false
    timeout-minutes: 2
    env: { SIM_KNOBS_FILE: sim-knobs.env }
${monitor ? `    monitor: ${monitor}\n` : ''}`;

export async function createBisectRepo(options: BisectRepoOptions): Promise<BisectRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'perf-gate-bisect-repo-'));
  const git = (args: string[], input?: string) =>
    execFileSync('git', args, { cwd: dir, input, encoding: 'utf8', env: gitEnv() });
  git(['init', '--quiet', '--initial-branch=main']);
  const blob = (path: string, text: string) =>
    `M 100644 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  let stream = '';
  for (let i = 0; i <= options.commits; i += 1) {
    const slow = i >= options.culprit;
    const knobs = {
      ...options.knobs,
      SIM_SLOWDOWN: String(slow ? options.slowdown : 1),
      ...(slow ? options.culpritKnobs : {}),
      ...options.knobsAt?.[i],
    };
    const message =
      i === 0 ? 'initial import' : `change ${i}${i === options.culprit ? ' (the slow one)' : ''}`;
    stream +=
      `commit refs/heads/main\nmark :${i + 1}\n` +
      `committer Test <test@example.com> ${1_700_000_000 + i * 60} +0000\n` +
      `data ${Buffer.byteLength(message)}\n${message}\n` +
      (i > 0 ? `from :${i}\n` : '') +
      blob('perf-gate.yml', BISECT_CONFIG(options.runs ?? 3, options.monitor)) +
      blob(
        'sim-knobs.env',
        Object.entries(knobs)
          .map(([key, value]) => `${key}=${value}\n`)
          .join(''),
      ) +
      blob('src/model.py', `# revision ${i}\n`) +
      '\n';
  }
  git(['fast-import', '--quiet'], stream);
  git(['checkout', '--quiet', '--force', 'main']);
  const shas = git(['rev-list', '--reverse', 'main']).trim().split('\n');
  return { dir, shas };
}

function gitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete env[name];
  return env;
}

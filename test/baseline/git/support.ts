// Real git repositories for the git-branch store tests: a bare `origin` in a temp folder
// and a clone of it with a commit on main, like the workspace actions/checkout leaves.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Git } from '../../../src/baseline/git/git.js';
import { type BaselineRecord } from '../../../src/baseline/record.js';
import { createRecord } from '../../../src/baseline/record-create.js';
import type { BenchmarkResult } from '../../../src/model.js';

export interface Repos {
  root: string;
  origin: string;
  checkout: string;
  /** git in the checkout, with the test identity. */
  git: Git;
}

const IDENTITY = { name: 'Test User', email: 'test@example.com' };

export async function makeRepos(options: { allowFilter?: boolean } = {}): Promise<Repos> {
  const root = await mkdtemp(join(tmpdir(), 'perf-gate-git-'));
  const origin = join(root, 'origin.git');
  const checkout = join(root, 'checkout');
  const top = new Git({ cwd: root, identity: IDENTITY });
  await top.run(['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  if (options.allowFilter) {
    await top.in(origin).run(['config', 'uploadpack.allowFilter', 'true']);
  }
  await top.run(['clone', '--quiet', origin, checkout]);
  const git = top.in(checkout);
  await git.run(['checkout', '--quiet', '-b', 'main']);
  await writeFile(join(checkout, 'README.md'), '# code\n');
  await git.run(['add', 'README.md']);
  await git.run(['commit', '--quiet', '-m', 'code']);
  await git.run(['push', '--quiet', 'origin', 'main']);
  return { root, origin, checkout, git };
}

/** The state of the user's checkout that the store must leave alone. */
export async function checkoutState(git: Git): Promise<string> {
  return [
    await git.run(['rev-parse', 'HEAD']),
    await git.run(['symbolic-ref', 'HEAD']),
    await git.run(['for-each-ref', '--format=%(refname) %(objectname)']),
    await git.run(['status', '--porcelain']),
    await git.run(['config', '--local', '--list']),
  ].join('\n---\n');
}

/** A small seeded generator so records differ but tests repeat. */
export function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

export function sampleResult(name: string, seed: number, requests = 50): BenchmarkResult {
  const random = rng(seed);
  const runs = [0, 1, 2].map(() => Array.from({ length: requests }, () => 300 + random() * 20));
  const latency = (p: number) => ({
    id: `latency_p${p}`,
    unit: 'ms',
    direction: 'lower-is-better' as const,
    values: runs.map(
      (run) => [...run].sort((a, b) => a - b)[Math.floor((p / 100) * (run.length - 1))]!,
    ),
    samples: runs,
    percentile: p,
  });
  return {
    name,
    format: 'offline-benchmark',
    metrics: [
      {
        id: 'throughput',
        unit: 'req/s',
        direction: 'higher-is-better',
        values: [10 + random(), 10 + random(), 10 + random()],
      },
      latency(50),
      latency(95),
      latency(99),
    ],
    runs: [1, 2, 3].map((index) => ({
      index,
      kind: 'clean' as const,
      ok: true,
      durationMs: 1000 + index,
      exitCode: 0,
      timedOut: false,
      resultFile: `/tmp/run-${index}.json`,
    })),
    environment: {
      instanceType: 'inf2.xlarge',
      neuronCores: 2,
      neuronSdkVersion: '2.26.0',
      configHash: 'abc123',
    },
  };
}

export function sampleRecord(
  benchmark: string,
  seed: number,
  createdAt: Date,
  overrides: Partial<{ gateKey: string; runId: string; commit: string }> = {},
): BaselineRecord {
  return createRecord({
    gateKey: overrides.gateKey ?? 'default',
    result: sampleResult(benchmark, seed),
    commit: overrides.commit ?? `${seed.toString(16).padStart(8, '0')}${'a'.repeat(32)}`,
    branch: 'main',
    event: 'push',
    runId: overrides.runId ?? String(1000 + seed),
    verdict: 'pass',
    createdAt,
  });
}

/** Seconds after a fixed start, so record names sort by `i`. */
export function at(i: number): Date {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + i * 1000);
}

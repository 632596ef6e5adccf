// `neuron-perf-gate ab` (the bundled CLI) on examples/vllm-serve/perf-gate.yml and the
// simulator: two environments of one commit, the head's server saturating 10% sooner
// (SIM_SERVE_CAPACITY 9 against 10). The sweep's capacity under the example's SLO is
// measured on each side, one value a sweep in its runs' block, and judged paired within
// the blocks: each side's capacities and the paired change with its interval are shown,
// the loss fails the gate, and the same server passes. 40 requests a
// run do not reach the queue's steady state where the example's P99 E2E objective crosses,
// and its tail is this host's wall clock: the E2E objective is the median's, 2.8 s, which
// crosses between 4 and 6 a second where the median climbs steeply (bench:ab-capacity).
import { mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { CLI, ROOT, runNode, simulatorEnv } from '../support/bundled.js';
import { gitIn } from '../support/git.js';
import { freePort } from '../support/ports.js';

const EXAMPLE = join(ROOT, 'examples', 'vllm-serve', 'perf-gate.yml');
/** The simulated server 10× faster than inf2's time, 40 requests a run, ready after 1 s. */
const SERVE = { SIM_SERVE_SPEEDUP: '10', SIM_SERVE_PROMPTS: '40', SIM_SERVE_STARTUP: '1' };

let repo: string;

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'perf-gate-ab-capacity-'));
  const example = (await readFile(EXAMPLE, 'utf8')).replace(
    'e2el: { p99: 4s }',
    'e2el: { p50: 2.8s }',
  );
  expect(example).toContain('e2el: { p50: 2.8s }');
  await mkdir(join(repo, '.github'));
  await writeFile(
    join(repo, '.github/perf-gate.yml'),
    example.replaceAll('8000', `${await freePort()}`),
  );
  await writeFile(join(repo, '.gitignore'), 'out-*/\n');
  gitIn(repo, ['init', '--quiet', '--initial-branch=main']);
  gitIn(repo, ['add', '-A']);
  gitIn(repo, ['commit', '--quiet', '-m', 'serve']);
});

/** `ab` of the base's server at capacity 10 against the head's at `head`. */
async function ab(out: string, head: string) {
  const result = await runNode(
    CLI,
    [
      'ab',
      '--config',
      '.github/perf-gate.yml',
      '--quiet',
      // Three blocks: twelve capacities, 8 degrees of freedom (2 blocks leave 5).
      '--blocks',
      '3',
      '--base-env',
      'SIM_SERVE_CAPACITY=10',
      '--head-env',
      `SIM_SERVE_CAPACITY=${head}`,
      '--out',
      out,
    ],
    { cwd: repo, env: simulatorEnv(SERVE) },
  );
  const report = JSON.parse(await readFile(join(repo, out, 'report.json'), 'utf8')) as GateReport;
  return { result, report };
}

describe('neuron-perf-gate ab (bundled) on the vllm-serve example: capacity per side', () => {
  it("shows each side's capacity and the paired interval, and fails a head whose server has 10% less capacity", async () => {
    const { result, report } = await ab('out-loss', '9');
    expect(result.code, result.stdout).toBe(1);
    const benchmark = report.benchmarks.find((b) => b.name === 'qwen3-serve/capacity')!;
    const capacity = benchmark.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.method).toBe('paired-t');
    expect(capacity.ci![0]).toBeLessThanOrEqual(capacity.change!);
    expect(capacity.ci![1]).toBeGreaterThanOrEqual(capacity.change!);
    // Its own verdict is not asserted: at three blocks a 10% loss is more often open than
    // failed at the capacity's share of the budget on a loaded host (bench:ab-capacity,
    // docs/ab.md); the variants' latencies fail the gate.
    expect(report.verdict).toBe('regression');
    // Each side's capacity, block by block, and the change with its interval.
    const runs = report.ab!.runs!['qwen3-serve/capacity']!;
    expect(runs.metric).toBe('capacity');
    // Three blocks, and a fourth when the capacity was open at three (--confirm-blocks 1).
    expect(runs.blocks.length).toBe(report.ab!.blocks['qwen3-serve/capacity']);
    expect([3, 4]).toContain(runs.blocks.length);
    for (const block of runs.blocks) {
      expect(block.base).toHaveLength(2);
      expect(block.head).toHaveLength(2);
    }
    expect(result.stdout).toMatch(
      /\| capacity \(requests\/s\) +\| +[\d.]+ +\| +[\d.]+ +\| +[−+±][\d.]+% +\| +[−+±]?[\d.]+% to [−+±]?[\d.]+% +\| +5% +\| /,
    );
    expect(result.stdout).toMatch(/\| qwen3-serve\/capacity: capacity \(requests\/s\) \| 1 /);
  }, 600_000);

  it('passes the same server on both sides', async () => {
    const { result, report } = await ab('out-same', '10.0');
    expect(result.code, result.stdout).toBe(0);
    const benchmark = report.benchmarks.find((b) => b.name === 'qwen3-serve/capacity')!;
    const capacity = benchmark.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.method).toBe('paired-t');
    expect(capacity.verdict).not.toBe('regression');
  }, 600_000);
});

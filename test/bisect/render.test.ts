// What bisect prints about the environment: which component changed at the first bad
// commit (or in the range that holds it), from the probed fingerprints of both sides.
import { describe, expect, it } from 'vitest';
import { bisectReport, renderBisectText } from '../../src/bisect/render.js';
import type { SearchResult } from '../../src/bisect/search.js';
import type { Environment } from '../../src/model.js';

const sha = (n: number) => String(n).repeat(40).slice(0, 40);
const commits = Array.from({ length: 8 }, (_, i) => ({
  sha: sha(i + 1),
  subject: `change ${i + 1}`,
}));
const good = { sha: sha(0), subject: 'initial import' };

const before: Environment = {
  instanceType: 'inf2.xlarge',
  neuronCores: 2,
  neuronSdkVersion: '2.26',
  compilerVersion: '2.21.18209.0+043b1bf7',
  runtimeVersion: '2.28.23.0',
  vllmVersion: '0.10.2',
  vllmNeuronVersion: '0.2.0',
};

function result(
  lastGood: Environment,
  firstBad: Environment,
  undecided: string[] = [],
): SearchResult {
  const end = (commit: string, environment: Environment) => ({ commit, runs: 8, environment });
  return {
    metric: {
      id: 'latency_p50',
      unit: 'ms',
      direction: 'lower-is-better',
      change: 0.08,
      ci: [0.06, 0.1],
      differs: true,
      worse: true,
    } as SearchResult['metric'],
    good: end(good.sha, before),
    bad: end(sha(8), firstBad),
    steps: [],
    firstBad: sha(5),
    lastGood: undecided.length > 0 ? sha(5 - undecided.length - 1) : sha(4),
    undecided,
    skipped: undecided.map((commit) => ({
      commit,
      index: Number(commit[0]),
      reason: `commit ${commit.slice(0, 7)}: --command "make" exited with code 2 (full log: out/command.log); the commit cannot be measured\nLast lines of its output:\nerror`,
    })),
    step: { change: 0.08, ci: [0.06, 0.1] },
    environments: { lastGood, firstBad },
    totalRuns: 30,
  };
}

const text = (r: SearchResult) =>
  renderBisectText(bisectReport('reranker', r, commits, good, 0.99));

describe('bisect output: the component that changed', () => {
  it.each([
    ['neuronSdkVersion', '2.27', 'Neuron SDK 2.26 → 2.27'],
    [
      'compilerVersion',
      '2.22.5122.0+1c2d3e4f',
      'neuronx-cc 2.21.18209.0+043b1bf7 → 2.22.5122.0+1c2d3e4f',
    ],
    ['runtimeVersion', '2.29.40.0', 'Neuron runtime 2.28.23.0 → 2.29.40.0'],
    ['vllmVersion', '0.11.1', 'vLLM 0.10.2 → 0.11.1'],
    ['vllmNeuronVersion', '0.3.0', 'vllm-neuron 0.2.0 → 0.3.0'],
  ] as const)('names %s alone when only it changed', (field, value, said) => {
    const out = text(result(before, { ...before, [field]: value }));
    expect(out).toContain(`  the environment changed at this commit: ${said}\n`);
    expect(out).toContain(`Environment of good → bad: ${said}\n`);
  });

  it('says nothing of the environment when it did not change', () => {
    expect(text(result(before, before))).not.toContain('environment');
  });

  it('names the range, each skipped commit and the change in that range', () => {
    const out = text(result(before, { ...before, compilerVersion: '2.22.1.0' }, [sha(3), sha(4)]));
    expect(out).toContain(
      `First bad commit is one of ${sha(3).slice(0, 7)}..${sha(5).slice(0, 7)} (3 commits); ${sha(3).slice(0, 7)}, ${sha(4).slice(0, 7)} could not be built or measured:\n` +
        `  ${sha(3)} "change 3" (skipped)\n  ${sha(4)} "change 4" (skipped)\n  ${sha(5)} "change 5" (measured bad)\n` +
        `  latency_p50 +8.0% (CI +6.0% to +10.0%) from the last good ${sha(2).slice(0, 7)} "change 2" to ${sha(5).slice(0, 7)} (99% CI)\n` +
        `  the environment changed in this range: neuronx-cc 2.21.18209.0+043b1bf7 → 2.22.1.0\n`,
    );
    expect(out).toContain(
      `2 commit(s) skipped, as they could not be built or measured:\n  ${sha(3).slice(0, 7)} (3 of 8): --command "make" exited with code 2 (full log: out/command.log); the commit cannot be measured\n`,
    );
  });
});

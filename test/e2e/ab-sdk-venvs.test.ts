// examples/workflows/sdk-upgrade.yml through the bundled action, with each side's SDK a
// virtualenv its variables choose (test/support/fake-venvs.ts), as on an inf2 host: a config
// whose command activates one fixed venv (the README's until issue 50) stops with the line
// named; one that activates the side's own (`${VIRTUAL_ENV:-…}`) fails a 10% slower
// candidate, naming the compiler, and passes an unchanged one.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runActionProcess, simulatorInputs } from '../support/action-run.js';
import { fakeVenv, NEW_SDK, OLD_SDK } from '../support/fake-venvs.js';
import { gitIn } from '../support/git.js';
import { tempDir } from '../support/offline-result.js';
import { gateStepInputs } from '../support/workflow-example.js';

/** The README's config on the simulator, its command starting with `activate`. */
function readmeConfig(activate: string): string {
  return `baseline-store: file
upload-profiles: false
benchmarks:
  - name: qwen3-reranker
    command: >-
      ${activate} &&
      offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    profile: false
    timeout-minutes: 15
    thresholds:
      throughput: 5%
      latency_p99: 15%
`;
}

/** A repository with the config, and the two SDK venvs beside it. */
async function workspace(activates: 'a fixed venv' | "the side's venv") {
  const root = await tempDir('perf-gate-ab-sdk-');
  const old = await fakeVenv(root, 'aws_neuronx_venv_pytorch', OLD_SDK);
  const candidate = await fakeVenv(root, 'aws_neuronx_venv_pytorch_candidate', NEW_SDK);
  const repo = join(root, 'repo');
  await mkdir(repo);
  const git = (...args: string[]) => gitIn(repo, args);
  git('init', '--quiet', '-b', 'main');
  const venv = activates === 'a fixed venv' ? old : `\${VIRTUAL_ENV:-${old}}`;
  await writeFile(join(repo, 'perf-gate.yml'), readmeConfig(`source "${venv}/bin/activate"`));
  await writeFile(join(repo, '.gitignore'), 'perf-gate-output/\n*.md\n*.txt\n*.json\n.cache/\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'main');
  return { repo, old, candidate };
}

/** The recipe's base-env/head-env with its two venvs here and its cache in the repository. */
function sideEnv(env: string, venv: string, cache: string): string {
  return env
    .replace(/\$\{\{[^}]*\}\}|\/opt\/aws_neuronx_venv_pytorch\b/g, venv)
    .replace(/^(PATH=.*)$/m, `$1:${dirname(process.execPath)}`)
    .replace('/var/tmp/neuron-compile-cache-sdk-upgrade', cache);
}

async function compare(activates: Parameters<typeof workspace>[0], candidateSlowdown: string) {
  const { repo, old, candidate } = await workspace(activates);
  const recipe = gateStepInputs('sdk-upgrade.yml');
  const cache = join(repo, '.cache', 'neuron-compile-cache-sdk-upgrade');
  await rm(cache, { recursive: true, force: true });
  return runActionProcess({
    workspace: repo,
    label: 'sdk',
    inputs: {
      ...simulatorInputs({ config: 'perf-gate.yml', command: '', name: '', format: '', runs: '' }),
      'compare-with': recipe['compare-with']!,
      'comment-key': recipe['comment-key']!,
      'base-env': sideEnv(recipe['base-env']!, old, cache),
      'head-env': sideEnv(recipe['head-env']!, candidate, cache),
      comment: 'never',
    },
    event: {
      name: 'workflow_dispatch',
      payload: { repository: { full_name: 'octo/inference', default_branch: 'main' } },
      ref: 'refs/heads/main',
      sha: 'e'.repeat(40),
    },
    // A steady host: what is tested is which SDK each side ran, not the blocks against drift.
    env: {
      SIM_COMPILER_SLOWDOWNS: `${NEW_SDK.compiler}=${candidateSlowdown}`,
    },
  });
}

describe('the SDK recipe with each side a virtualenv (bundled action, compare-with: environments)', () => {
  it("stops with the activate line named when the command activates one venv for both sides (the README's config)", async () => {
    // A 10% slower candidate, which passed when both sides ran the venv the command activates.
    const result = await compare('a fixed venv', '1.10');
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs.verdict).not.toBe('pass');
    expect(result.stdout).toMatch(
      /::error::neuron-perf-gate: benchmark qwen3-reranker: both sides' benchmarks ran Neuron SDK 2\.26 \(the sides' environments give 2\.26 on the base, 2\.27 on the head\), neuronx-cc 2\.21\.18209\.0\+043b1bf7 /,
    );
    expect(result.stdout).toMatch(
      /its command sets up an environment of its own on line 1, `source "\S+\/aws_neuronx_venv_pytorch\/bin\/activate"`/,
    );
    expect(result.stdout).toMatch(
      /Drop `source "\S+\/aws_neuronx_venv_pytorch\/bin\/activate"` from the command and let base-env\/head-env's PATH choose each side's virtualenv/,
    );
  }, 120_000);

  it("fails a 10% slower candidate SDK when the command activates the side's venv, naming the compiler it ran", async () => {
    const result = await compare("the side's venv", '1.10');
    expect(result.code, result.summary).toBe(1);
    expect(result.outputs.verdict).toBe('regression');
    expect(result.summary).toMatch(
      /The sides differ in: Neuron SDK `2\.26` → `2\.27`, Neuron compiler `2\.21\.18209\.0\+043b1bf7` → `2\.22\.5122\.0\+1c2d3e4f`, as each side's benchmark ran \(read in its shell after the command's own set-up\)\./,
    );
  }, 120_000);

  it("passes an unchanged candidate SDK when the command activates the side's venv", async () => {
    const result = await compare("the side's venv", '1');
    expect(result.code, result.stdout).toBe(0);
    expect(result.outputs.verdict).toBe('pass');
  }, 120_000);
});

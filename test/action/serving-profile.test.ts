// A serving benchmark through the whole gate: its config's warm-up reaches the profiled run
// only, profile-mode auto records a session profile, and report.json and the comment say
// which mode and warm-up were used. A real child process writes a vllm bench serve result.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import { runGate } from '../../src/pipeline.js';
import { renderComment } from '../../src/report/markdown.js';
import { reportJsonText } from '../../src/report/report-json.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { ROOT } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const SERVE_RESULT = join(ROOT, 'test/fixtures/formats/vllm-bench-serve/detailed.json');

/** Each run keeps its NEURON_RT_INSPECT_* variables beside the workspace and writes a result. */
const BENCH = `env | grep '^NEURON_RT_INSPECT_' | sort > "inspect-$PERF_GATE_RUN.txt" || true
cp "${SERVE_RESULT}" "$PERF_GATE_OUTPUT"`;

describe('a serving benchmark with a warm-up in its env', () => {
  it('profiles in session mode with the warm-up, and says so in report.json and the comment', async () => {
    const workspace = await tempDir('perf-gate-serving-');
    workspaces.push(workspace);
    await mkdir(join(workspace, '.github'));
    await writeFile(join(workspace, 'bench.sh'), BENCH);
    await writeFile(
      join(workspace, '.github/perf-gate.yml'),
      [
        'profile: true',
        'benchmarks:',
        '  - name: qwen3-serve',
        '    command: bash bench.sh',
        '    runs: 2',
        '    confirm-runs: 0',
        '    env: { NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: 5 }',
      ].join('\n'),
    );
    const config = await resolveGateConfig({}, { workspace });
    const report = await runGate(config, {
      runner: createProcessRunner(),
      log: new MemoryLogger(),
      baselineStore: { load: async () => undefined },
      env: { PATH: process.env.PATH, NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '99' },
    });

    const inspect = async (run: number) => readFile(join(workspace, `inspect-${run}.txt`), 'utf8');
    expect(await inspect(1)).toBe('');
    expect(await inspect(2)).toBe('');
    expect((await inspect(3)).split('\n')).toEqual(
      expect.arrayContaining([
        'NEURON_RT_INSPECT_DEVICE_PROFILE=session',
        'NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP=5',
      ]),
    );

    const capture = {
      mode: 'session',
      modeFrom: 'serving',
      format: 'vllm-bench-serve',
      warmup: '5',
    };
    expect(report.benchmarks[0]?.profile?.capture).toEqual(capture);
    expect(JSON.parse(reportJsonText(report)).benchmarks[0].profile.capture).toEqual(capture);
    expect(renderComment(report)).toContain(
      'Recorded with device profile mode `session` (profile-mode auto: vllm-bench-serve is a serving format); ' +
        'warm-up: 5 execution(s) (`NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP`), which the Neuron docs support in model mode only.',
    );
  });
});

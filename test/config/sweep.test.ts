import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { paramEnvironment } from '../../src/config/sweep.js';
import { useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const REFERENCE_SWEEP = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'offline_benchmark_sweep_config.json',
);

const entry = (sweep: string) =>
  `benchmarks:\n  - name: reranker\n    command: run-it\n    sweep:\n${sweep}`;

async function load(files: Record<string, string>) {
  const workspace = await makeWorkspace(files);
  return resolveGateConfig({}, { workspace });
}

async function loadError(files: Record<string, string>): Promise<string> {
  try {
    await load(files);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('sweep', () => {
  it('expands inline variants over a shared base, one benchmark each with its own hash', async () => {
    const config = await load({
      '.github/perf-gate.yml': entry(
        '      base: { max_model_len: 2048, max_num_seqs: 4 }\n' +
          '      variants:\n' +
          '        - { name: seqs4 }\n' +
          '        - { name: seqs16, max_num_seqs: 16 }\n',
      ),
    });
    expect(config.benchmarks.map((b) => b.name)).toEqual(['reranker/seqs4', 'reranker/seqs16']);
    expect(config.benchmarks[1]?.sweep).toEqual({
      name: 'reranker',
      variant: 'seqs16',
      params: { max_model_len: 2048, max_num_seqs: 16 },
    });
    expect(config.benchmarks[0]?.configHash).not.toBe(config.benchmarks[1]?.configHash);
  });

  it('reads the reference sweep file: base_config and top-level scalars are shared', async () => {
    const config = await load({
      '.github/perf-gate.yml': entry('      file: sweep.json\n'),
      'sweep.json': await readFile(REFERENCE_SWEEP, 'utf8'),
    });
    expect(config.benchmarks.map((b) => b.name)).toEqual([
      'reranker/cache_ON_bucketing_ON',
      'reranker/cache_OFF_bucketing_ON',
    ]);
    const params = config.benchmarks[0]?.sweep?.params;
    expect(params).toMatchObject({
      model: './models/Qwen3-0.6B-Reranker',
      tensor_parallel_size: 2,
      batch_size: 8,
      enable_prefix_caching: true,
    });
    expect(params).not.toHaveProperty('name');
  });

  it('names the problem: both or neither of variants and file, duplicates, bad names, a bad file', async () => {
    expect(await loadError({ '.github/perf-gate.yml': entry('      base: { a: 1 }\n') })).toContain(
      'benchmarks[0].sweep: found a mapping; allowed: either variants (with an optional base) or file, exactly one of them',
    );
    expect(
      await loadError({
        '.github/perf-gate.yml': entry(
          '      variants:\n        - { name: a }\n        - { name: a }\n',
        ),
      }),
    ).toContain('benchmarks[0].sweep.variants[1].name: found');
    expect(
      await loadError({
        '.github/perf-gate.yml': entry('      variants:\n        - { name: "a b" }\n'),
      }),
    ).toMatch(/benchmarks\[0\]\.sweep\.variants\[0\]\.name: found "a b"; allowed: a variant name/);
    expect(
      await loadError({ '.github/perf-gate.yml': entry('      file: missing.json\n') }),
    ).toMatch(/^missing\.json: cannot read the sweep file/);
    expect(
      await loadError({
        '.github/perf-gate.yml': entry('      file: sweep.json\n'),
        'sweep.json': '{"base_config": {}, "test_configs": [{"max_num_seqs": 4}]}',
      }),
    ).toMatch(
      /^sweep\.json: test_configs\.0\.name: .*base_config and test_configs with a name each/,
    );
  });
});

describe('paramEnvironment', () => {
  it('turns parameters into PERF_GATE_PARAM_ variables', () => {
    expect(
      paramEnvironment({
        max_num_seqs: 16,
        'input-file': 'a.csv',
        enable_bucketing: false,
        list: [1, 2],
      }),
    ).toEqual({
      PERF_GATE_PARAM_MAX_NUM_SEQS: '16',
      PERF_GATE_PARAM_INPUT_FILE: 'a.csv',
      PERF_GATE_PARAM_ENABLE_BUCKETING: 'false',
      PERF_GATE_PARAM_LIST: '[1,2]',
    });
  });
});

// `sweep: settings:`: each server setting of an entry becomes a sweep of its own, its
// variants `<entry>/<setting>/<variant>`, named by the setting's own name or by its
// parameters; bad settings are refused naming the field.
import { describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { paramEnvironment, settingName } from '../../src/config/sweep.js';
import { useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();

const SERVER =
  '    server: { command: vllm serve m --max-num-seqs "$PERF_GATE_PARAM_MAX_NUM_SEQS", ready-log: ready }\n';

const entry = (sweep: string, server = SERVER) =>
  `benchmarks:\n  - name: serve\n    command: run-it\n${server}    sweep:\n${sweep}`;

const RATES =
  '      variants:\n        - { name: rate-1, request-rate: 1 }\n        - { name: rate-2, request-rate: 2 }\n';

async function load(text: string) {
  return resolveGateConfig(
    {},
    { workspace: await makeWorkspace({ '.github/perf-gate.yml': text }) },
  );
}

async function loadError(text: string): Promise<string> {
  try {
    await load(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('settingName', () => {
  it('is the given name, else key-value pairs sorted by key and joined with _', () => {
    expect(settingName({ 'max-num-seqs': 8 })).toBe('max-num-seqs-8');
    expect(settingName({ name: 'small', 'max-num-seqs': 8 })).toBe('small');
    // Sorted, so the name is the setting's whatever order the file lists them in.
    expect(settingName({ 'max-num-seqs': 8, 'block-size': 32 })).toBe(
      'block-size-32_max-num-seqs-8',
    );
    expect(settingName({ 'block-size': 32, 'max-num-seqs': 8 })).toBe(
      'block-size-32_max-num-seqs-8',
    );
    expect(settingName({ buckets: [128, 512], quant: 'fp8 e4m3', on: true })).toBe(
      'buckets-128-512_on-true_quant-fp8-e4m3',
    );
  });
});

describe('sweep: settings:', () => {
  it('makes one sweep per setting, its variants named <entry>/<setting>/<variant>', async () => {
    const config = await load(
      entry(
        `      settings:\n        - { max-num-seqs: 4 }\n        - { name: big, max-num-seqs: 16 }\n${RATES}`,
      ),
    );
    expect(config.benchmarks.map((b) => b.name)).toEqual([
      'serve/max-num-seqs-4/rate-1',
      'serve/max-num-seqs-4/rate-2',
      'serve/big/rate-1',
      'serve/big/rate-2',
    ]);
    expect(config.benchmarks[3]?.sweep).toEqual({
      name: 'serve/big',
      variant: 'rate-2',
      // The setting's parameters under the variant's own.
      params: { 'max-num-seqs': 16, 'request-rate': 2 },
      setting: { name: 'big', params: { 'max-num-seqs': 16 } },
      entry: 'serve',
    });
    // Each setting's rate has its own baseline: the config hashes all differ.
    expect(new Set(config.benchmarks.map((b) => b.configHash)).size).toBe(4);
    expect(paramEnvironment(config.benchmarks[3]!.sweep!.setting!.params)).toEqual({
      PERF_GATE_PARAM_MAX_NUM_SEQS: '16',
    });
  });

  it('keeps a sweep without settings as it was', async () => {
    const config = await load(entry(RATES));
    expect(config.benchmarks.map((b) => b.name)).toEqual(['serve/rate-1', 'serve/rate-2']);
    expect(config.benchmarks[0]?.sweep).toEqual({
      name: 'serve',
      variant: 'rate-1',
      params: { 'request-rate': 1 },
    });
  });

  it('refuses settings on an entry without a server, naming the field', async () => {
    const message = await loadError(
      entry(
        `      settings:\n        - { max-num-seqs: 4 }\n        - { max-num-seqs: 8 }\n${RATES}`,
        '',
      ),
    );
    expect(message).toContain('benchmarks[0].sweep.settings');
    expect(message).toContain('settings: needs a server: block in the same entry');
  });

  it('refuses one setting, duplicate names, equal parameters, an empty setting, a reserved name', async () => {
    const cases: [string, string][] = [
      [
        '        - { max-num-seqs: 4 }\n',
        'benchmarks[0].sweep.settings: found a list of 1 item; allowed: a list of at least two server settings',
      ],
      [
        '        - { max-num-seqs: 4 }\n        - { name: max-num-seqs-4, max-num-seqs: 8 }\n',
        'benchmarks[0].sweep.settings[1].name: found "max-num-seqs-4"; setting name "max-num-seqs-4" is also the name of settings[0]',
      ],
      [
        '        - { max-num-seqs: 8 }\n        - { max-num-seqs: "8" }\n',
        'benchmarks[0].sweep.settings[1]: found a mapping; setting name "max-num-seqs-8" (made from its parameters) is also the name of settings[0]',
      ],
      [
        '        - { name: a, max-num-seqs: 4 }\n        - { name: b, max-num-seqs: 4 }\n',
        'benchmarks[0].sweep.settings[1]: found a mapping; setting "b" has the same parameters as settings[0]',
      ],
      [
        '        - { name: a }\n        - { max-num-seqs: 4 }\n',
        'benchmarks[0].sweep.settings[0]: found a mapping; a setting without parameters',
      ],
      [
        '        - { name: best-setting, max-num-seqs: 4 }\n        - { max-num-seqs: 8 }\n',
        `benchmarks[0].sweep.settings[0].name: found "best-setting"; setting name "best-setting" is the gate's own`,
      ],
      [
        '        - { max-num-seqs: 4, "9x": 1 }\n        - { max-num-seqs: 8 }\n',
        'benchmarks[0].sweep.settings[0].9x',
      ],
    ];
    for (const [settings, expected] of cases) {
      expect(await loadError(entry(`      settings:\n${settings}${RATES}`)), settings).toContain(
        expected,
      );
    }
  });
});

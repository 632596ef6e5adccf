// Every way the settings can be wrong: the error names the file (or input), the field,
// what was found and what is allowed; file problems carry line and column.

import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { resolveGateConfig } from '../../src/config/load.js';
import type { RawSettings } from '../../src/config/types.js';
import type { GateError } from '../../src/errors.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

/** The error for a `.github/perf-gate.yml` with this content. */
async function fileError(yaml: string, dirs: string[] = []): Promise<GateError> {
  const workspace = await makeWorkspace({ [FILE]: yaml }, dirs);
  const error = await rejection(resolveGateConfig({}, { workspace }));
  expect(error.kind).toBe('config');
  expect(error.file).toBe(FILE);
  return error;
}

/** The error for these action inputs (and no config file). */
async function inputError(settings: RawSettings): Promise<GateError> {
  const workspace = await makeWorkspace();
  const error = await rejection(resolveGateConfig(settings, { workspace }));
  expect(error.kind).toBe('usage');
  return error;
}

const benchmark = (extra: string) => `benchmarks:\n  - name: a\n    command: ./bench.sh\n${extra}`;

describe('YAML syntax', () => {
  it('reports the line and column of a syntax error', async () => {
    const error = await fileError('benchmarks:\n  - name: a\n    command: [x, y\nruns: 3\n');
    expect(error.message).toMatch(/^\.github\/perf-gate\.yml:4:1: YAML syntax error: .+/);
    expect(error.message).toContain('(line: "runs: 3")');
  });

  it('explains a duplicate key with its position', async () => {
    const error = await fileError('runs: 1\nruns: 2\n' + benchmark(''));
    expect(error.message).toBe(
      '.github/perf-gate.yml:2:1: YAML syntax error: this key is already given above in the same mapping; give each key once (line: "runs: 2")',
    );
  });
});

describe('unknown keys', () => {
  it('names a typo in a benchmark entry, suggests the key and lists the allowed ones', async () => {
    const error = await fileError(benchmark('    timeout_minutes: 30\n'));
    expect(error.message).toBe(
      '.github/perf-gate.yml:4:5: benchmarks[0].timeout_minutes: unknown key "timeout_minutes" (did you mean "timeout-minutes"?); ' +
        'allowed keys: name, command, format, runs, confirm-runs, profile, profile-mode, thresholds, working-directory, env, timeout-minutes, sweep, server, slo, monitor, startup, warmup, accuracy',
    );
  });

  it('says that a gate-wide setting in a benchmark entry belongs at the top level', async () => {
    const error = await fileError(benchmark('    confidence: 99%\n    baseline-window: 3\n'));
    const allowedKeys =
      'allowed keys: name, command, format, runs, confirm-runs, profile, profile-mode, thresholds, working-directory, env, timeout-minutes, sweep, server, slo, monitor, startup, warmup, accuracy';
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:4:5: benchmarks[0].confidence: unknown key "confidence" ' +
        `(a gate-wide setting: give it at the top level of the file); ${allowedKeys}`,
      '.github/perf-gate.yml:5:5: benchmarks[0].baseline-window: unknown key "baseline-window" ' +
        `(a gate-wide setting: give it at the top level of the file); ${allowedKeys}`,
    ]);
  });

  it('says that the profiler and artifact settings belong at the top level', async () => {
    const error = await fileError(
      benchmark('    profiler-path: bin/neuron-profile\n    upload-profiles: false\n'),
    );
    const allowedKeys =
      'allowed keys: name, command, format, runs, confirm-runs, profile, profile-mode, thresholds, working-directory, env, timeout-minutes, sweep, server, slo, monitor, startup, warmup, accuracy';
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:4:5: benchmarks[0].profiler-path: unknown key "profiler-path" ' +
        `(a gate-wide setting: give it at the top level of the file); ${allowedKeys}`,
      '.github/perf-gate.yml:5:5: benchmarks[0].upload-profiles: unknown key "upload-profiles" ' +
        `(a gate-wide setting: give it at the top level of the file); ${allowedKeys}`,
    ]);
  });

  it('suggests profile-mode for profile_mode', async () => {
    const error = await fileError(benchmark('    profile_mode: session\n'));
    expect(error.message).toBe(
      '.github/perf-gate.yml:4:5: benchmarks[0].profile_mode: unknown key "profile_mode" (did you mean "profile-mode"?); ' +
        'allowed keys: name, command, format, runs, confirm-runs, profile, profile-mode, thresholds, working-directory, env, timeout-minutes, sweep, server, slo, monitor, startup, warmup, accuracy',
    );
  });

  it('names an unknown top-level key', async () => {
    const error = await fileError('benchmark:\n  - name: a\n    command: x\n');
    const lines = error.message.split('\n');
    expect(lines).toContain(
      '.github/perf-gate.yml:1:1: benchmark: unknown key "benchmark" (did you mean "benchmarks"?); ' +
        'allowed keys: format, runs, confirm-runs, profile, profile-mode, thresholds, working-directory, env, timeout-minutes, ' +
        'fail-on-regression, fail-on-inconclusive, confidence, baseline-path, baseline-window, ' +
        'profiler-path, upload-profiles, artifact-retention-days, artifact-compression-level, ' +
        'baseline-store, baseline-branch, baseline-s3-bucket, baseline-s3-prefix, baseline-s3-region, baseline-s3-endpoint, baseline-match, accept-after, update-baseline, baseline-keep, ' +
        'missing-after, environment-probe, setup, price-per-hour, benchmarks',
    );
    expect(lines.some((line) => line.includes('benchmarks: missing; allowed: a list'))).toBe(true);
  });
});

describe('runs', () => {
  it.each([
    ['0', 'found 0'],
    ['three', 'found "three"'],
    ['2.5', 'found 2.5'],
    ['101', 'found 101'],
  ])('rejects runs: %s in the file', async (value, found) => {
    const error = await fileError(benchmark(`    runs: ${value}\n`));
    expect(error.message).toBe(
      `.github/perf-gate.yml:4:11: benchmarks[0].runs: ${found}; allowed: an integer from 1 to 100`,
    );
  });

  it.each(['3x', '0', '2.5', 'three'])('rejects the runs input %j', async (value) => {
    const error = await inputError({ command: './bench.sh', runs: value });
    const shown = /^[\d.]+$/.test(value) ? value : JSON.stringify(value);
    expect(error.message).toBe(
      `action input 'runs': found ${shown}; allowed: an integer from 1 to 100`,
    );
  });

  it('names the flag when the settings come from the command line', async () => {
    const workspace = await makeWorkspace();
    const error = await rejection(
      resolveGateConfig({ command: 'x', runs: '3x' }, { workspace, origin: 'cli' }),
    );
    expect(error.message).toBe('flag --runs: found "3x"; allowed: an integer from 1 to 100');
  });
});

describe('confirm-runs', () => {
  const allowedText = 'allowed: an integer from 0 to 20';

  it.each(['-1', '2.5', '21'])('rejects confirm-runs: %s in a benchmark entry', async (value) => {
    const error = await fileError(benchmark(`    confirm-runs: ${value}\n`));
    expect(error.message).toBe(
      `.github/perf-gate.yml:4:19: benchmarks[0].confirm-runs: found ${value}; ${allowedText}`,
    );
  });

  it('rejects confirm-runs at the top level of the file', async () => {
    const error = await fileError('confirm-runs: twice\n' + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:15: confirm-runs: found "twice"; ${allowedText}`,
    );
  });

  it.each(['-1', '2.5', '21'])('rejects the confirm-runs input %s', async (value) => {
    const error = await inputError({ command: './bench.sh', 'confirm-runs': value });
    expect(error.message).toBe(`action input 'confirm-runs': found ${value}; ${allowedText}`);
  });
});

describe('confidence', () => {
  const allowedText =
    'allowed: a percentage above 50% and below 100%, such as 90%, 95%, 99% or 99.9%';
  const bareNumber = `a bare number is not read as a confidence level: write it with %, e.g. 95%; ${allowedText}`;

  it.each(['0.95', '95'])('rejects the bare number %s in the file', async (value) => {
    const error = await fileError(`confidence: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:13: confidence: found ${value}; ${bareNumber}`,
    );
  });

  it.each(['100%', '50%', 'abc'])('rejects confidence: %s in the file', async (value) => {
    const error = await fileError(`confidence: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:13: confidence: found "${value}"; ${allowedText}`,
    );
  });

  it('rejects a bare number as the confidence input', async () => {
    const error = await inputError({ command: 'x', confidence: '0.95' });
    expect(error.message).toBe(`action input 'confidence': found 0.95; ${bareNumber}`);
  });

  it.each(['100%', '50%', 'abc'])('rejects the confidence input %s', async (value) => {
    const error = await inputError({ command: 'x', confidence: value });
    expect(error.message).toBe(`action input 'confidence': found "${value}"; ${allowedText}`);
  });

  it('names the flag on the command line', async () => {
    const workspace = await makeWorkspace();
    const error = await rejection(
      resolveGateConfig({ command: 'x', confidence: '95' }, { workspace, origin: 'cli' }),
    );
    expect(error.message).toBe(`flag --confidence: found 95; ${bareNumber}`);
  });
});

describe('baseline-window and fail-on-inconclusive', () => {
  it.each([
    ['0', 'found 0'],
    ['101', 'found 101'],
    ['1.5', 'found 1.5'],
    ['all', 'found "all"'],
  ])('rejects baseline-window: %s in the file', async (value, found) => {
    const error = await fileError(`baseline-window: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:18: baseline-window: ${found}; allowed: an integer from 1 to 100`,
    );
  });

  it('rejects the baseline-window input 0', async () => {
    const error = await inputError({ command: 'x', 'baseline-window': '0' });
    expect(error.message).toBe(
      `action input 'baseline-window': found 0; allowed: an integer from 1 to 100`,
    );
  });

  it('rejects fail-on-inconclusive: maybe in the file', async () => {
    const error = await fileError('fail-on-inconclusive: maybe\n' + benchmark(''));
    expect(error.message).toBe(
      '.github/perf-gate.yml:1:23: fail-on-inconclusive: found "maybe"; allowed: true or false',
    );
  });

  it('rejects the fail-on-inconclusive input maybe', async () => {
    const error = await inputError({ command: 'x', 'fail-on-inconclusive': 'maybe' });
    expect(error.message).toBe(
      `action input 'fail-on-inconclusive': found "maybe"; allowed: true or false`,
    );
  });
});

describe('profile-mode', () => {
  const allowedText = 'allowed: auto, model or session';

  it('rejects profile-mode: device in a benchmark entry', async () => {
    const error = await fileError(benchmark('    profile-mode: device\n'));
    expect(error.message).toBe(
      `.github/perf-gate.yml:4:19: benchmarks[0].profile-mode: found "device"; ${allowedText}`,
    );
  });

  it.each([
    ['device', '"device"'],
    ['Model', '"Model"'],
    ['true', 'true'],
  ])('rejects profile-mode: %s at the top level of the file', async (value, found) => {
    const error = await fileError(`profile-mode: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:15: profile-mode: found ${found}; ${allowedText}`,
    );
  });

  it('rejects the profile-mode input device', async () => {
    const error = await inputError({ command: 'x', 'profile-mode': 'device' });
    expect(error.message).toBe(`action input 'profile-mode': found "device"; ${allowedText}`);
  });

  it('names the flag on the command line', async () => {
    const workspace = await makeWorkspace();
    const error = await rejection(
      resolveGateConfig({ command: 'x', 'profile-mode': 'device' }, { workspace, origin: 'cli' }),
    );
    expect(error.message).toBe(`flag --profile-mode: found "device"; ${allowedText}`);
  });
});

describe('profiler and artifact settings', () => {
  const retentionAllowed = 'allowed: an integer number of days from 1 to 90';
  const compressionAllowed = 'allowed: an integer from 0 (no compression) to 9 (best compression)';
  const pathAllowed =
    'allowed: the path of the profiler CLI (neuron-explorer or neuron-profile), absolute or relative to the workspace';

  it.each([
    ['0', 'found 0'],
    ['91', 'found 91'],
    ['1.5', 'found 1.5'],
    ['forever', 'found "forever"'],
  ])('rejects artifact-retention-days: %s in the file', async (value, found) => {
    const error = await fileError(`artifact-retention-days: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:26: artifact-retention-days: ${found}; ${retentionAllowed}`,
    );
  });

  it.each(['0', '91', '1.5'])('rejects the artifact-retention-days input %s', async (value) => {
    const error = await inputError({ command: 'x', 'artifact-retention-days': value });
    expect(error.message).toBe(
      `action input 'artifact-retention-days': found ${value}; ${retentionAllowed}`,
    );
  });

  it.each([
    ['10', 'found 10'],
    ['-1', 'found -1'],
    ['4.5', 'found 4.5'],
    ['fast', 'found "fast"'],
  ])('rejects artifact-compression-level: %s in the file', async (value, found) => {
    const error = await fileError(`artifact-compression-level: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:29: artifact-compression-level: ${found}; ${compressionAllowed}`,
    );
  });

  it.each(['10', '-1'])('rejects the artifact-compression-level input %s', async (value) => {
    const error = await inputError({ command: 'x', 'artifact-compression-level': value });
    expect(error.message).toBe(
      `action input 'artifact-compression-level': found ${value}; ${compressionAllowed}`,
    );
  });

  it('rejects upload-profiles: maybe in the file', async () => {
    const error = await fileError('upload-profiles: maybe\n' + benchmark(''));
    expect(error.message).toBe(
      '.github/perf-gate.yml:1:18: upload-profiles: found "maybe"; allowed: true or false',
    );
  });

  it('rejects the upload-profiles input maybe', async () => {
    const error = await inputError({ command: 'x', 'upload-profiles': 'maybe' });
    expect(error.message).toBe(
      `action input 'upload-profiles': found "maybe"; allowed: true or false`,
    );
  });

  it.each([
    ['""', 'found ""'],
    ['5', 'found 5'],
    ['[a, b]', 'found a list of 2 items'],
  ])('rejects profiler-path: %s in the file', async (value, found) => {
    const error = await fileError(`profiler-path: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:16: profiler-path: ${found}; ${pathAllowed}`,
    );
  });

  it('rejects a profiler-path input of more than one line', async () => {
    const error = await inputError({ command: 'x', 'profiler-path': 'bin/a\nbin/b' });
    expect(error.message).toBe(
      `action input 'profiler-path': found "bin/a\\nbin/b"; ${pathAllowed}`,
    );
  });

  it('reports every wrong new input, one per line', async () => {
    const error = await inputError({
      command: 'x',
      'profile-mode': 'device',
      'upload-profiles': 'maybe',
      'artifact-retention-days': '0',
      'artifact-compression-level': '10',
    });
    expect(error.message.split('\n')).toEqual([
      `action input 'profile-mode': found "device"; allowed: auto, model or session`,
      `action input 'upload-profiles': found "maybe"; allowed: true or false`,
      `action input 'artifact-retention-days': found 0; ${retentionAllowed}`,
      `action input 'artifact-compression-level': found 10; ${compressionAllowed}`,
    ]);
  });
});

describe('thresholds', () => {
  const percentAllowed =
    'allowed: a percentage above 0% and at most 1000%, such as 5% or 2.5%; ' +
    'or off (also none, 0%) to show the metric without gating it';

  it('rejects a bare number and says to write it with %', async () => {
    const error = await fileError(benchmark('    thresholds: { latency_p95: 8 }\n'));
    expect(error.message).toBe(
      '.github/perf-gate.yml:4:32: benchmarks[0].thresholds.latency_p95: found 8; ' +
        `a bare number is ambiguous (0.05 or 5?): write it with %, e.g. 5%; ${percentAllowed}`,
    );
  });

  it.each([
    ['abc%', '"abc%"'],
    ['-5%', '"-5%"'],
    ['1001%', '"1001%"'],
    ['offf', '"offf"'],
  ])('rejects %s', async (value, found) => {
    const error = await fileError(`thresholds:\n  throughput: ${value}\n` + benchmark(''));
    expect(error.message).toBe(
      `.github/perf-gate.yml:2:15: thresholds.throughput: found ${found}; ${percentAllowed}`,
    );
  });

  it('rejects a metric id that is not lower_snake', async () => {
    const error = await fileError(benchmark('    thresholds:\n      Latency-P95: 5%\n'));
    expect(error.message).toBe(
      '.github/perf-gate.yml:5:7: benchmarks[0].thresholds.Latency-P95: found key "Latency-P95"; ' +
        'allowed: a metric id in lower_snake_case such as throughput or latency_p95',
    );
  });

  it('rejects a bare number and a malformed line in the thresholds input', async () => {
    const error = await inputError({
      command: 'x',
      thresholds: '# ours\nthroughput: 5\nlatency_p95 10%\n',
    });
    expect(error.message.split('\n')).toEqual([
      `action input 'thresholds': line 3: found "latency_p95 10%"; allowed: metric: percentage pairs such as "throughput: 5%", one per line or comma separated`,
      `action input 'thresholds': throughput: found "5"; a bare number is ambiguous (0.05 or 5?): write it with %, e.g. 5%; ${percentAllowed}`,
    ]);
  });

  it('rejects the same metric twice in the thresholds input', async () => {
    const error = await inputError({ command: 'x', thresholds: 'mfu: 5%, mfu: 6%' });
    expect(error.message).toBe(
      `action input 'thresholds': mfu: found "6%"; already given on line 1; allowed: one threshold per metric`,
    );
  });
});

describe('benchmark entries', () => {
  it('names both entries of a duplicate name', async () => {
    const error = await fileError(
      'benchmarks:\n  - name: rerank\n    command: a\n  - name: rerank\n    command: b\n',
    );
    expect(error.message).toBe(
      '.github/perf-gate.yml:4:11: benchmarks[1].name: found "rerank"; already the name of benchmarks[0] (line 2); ' +
        'allowed: a name no other benchmark has',
    );
  });

  it('reports a missing command at the entry that lacks it', async () => {
    const error = await fileError('benchmarks:\n  - name: a\n    runs: 2\n');
    expect(error.message).toBe(
      '.github/perf-gate.yml:2:5: benchmarks[0].command: missing; allowed: a non-empty shell command (run with bash)',
    );
  });

  it('rejects an empty command and an empty name', async () => {
    const error = await fileError('benchmarks:\n  - name: " "\n    command: ""\n');
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:2:11: benchmarks[0].name: found " "; allowed: a non-empty name on one line, at most 100 characters',
      '.github/perf-gate.yml:3:14: benchmarks[0].command: found ""; allowed: a non-empty shell command (run with bash)',
    ]);
  });

  it('rejects an empty benchmarks list', async () => {
    const error = await fileError('benchmarks: []\n');
    expect(error.message).toBe(
      '.github/perf-gate.yml:1:13: benchmarks: found a list of 0 items; allowed: a list of at least one benchmark, each a mapping with name and command',
    );
  });

  it('rejects a format the gate does not know, listing the known ones', async () => {
    const error = await fileError(benchmark('    format: csv\n'));
    expect(error.message).toContain(
      '.github/perf-gate.yml:4:13: benchmarks[0].format: found "csv"; allowed: auto, offline-benchmark, pytest-benchmark',
    );
  });

  it.each([
    ['0', 'found 0'],
    ['1441', 'found 1441'],
    ['soon', 'found "soon"'],
  ])('rejects timeout-minutes: %s', async (value, found) => {
    const error = await fileError(benchmark(`    timeout-minutes: ${value}\n`));
    expect(error.message).toBe(
      `.github/perf-gate.yml:4:22: benchmarks[0].timeout-minutes: ${found}; allowed: a number of minutes above 0 and at most 1440 (fractions allowed)`,
    );
  });

  it('rejects bad environment names, reserved names and empty values', async () => {
    const error = await fileError(
      benchmark('    env:\n      9LIVES: x\n      PERF_GATE_OUTPUT: y\n      EMPTY:\n'),
    );
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:5:7: benchmarks[0].env.9LIVES: found key "9LIVES"; allowed: a shell variable name (letters, digits and _, not starting with a digit)',
      '.github/perf-gate.yml:6:7: benchmarks[0].env.PERF_GATE_OUTPUT: found key "PERF_GATE_OUTPUT"; the gate sets PERF_GATE_* itself for each run; remove it',
      '.github/perf-gate.yml:7:7: benchmarks[0].env.EMPTY: found an empty value; allowed: a string, number or boolean',
    ]);
  });

  it('refuses the profiler variables the gate owns, naming the benchmark and what to set instead', async () => {
    const error = await fileError(
      'env:\n  NEURON_RT_INSPECT_ENABLE: 1\n' +
        benchmark(
          '    env:\n      NEURON_RT_INSPECT_OUTPUT_DIR: /tmp/p\n      NEURON_RT_INSPECT_DEVICE_PROFILE: session\n',
        ),
    );
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:2:3: env.NEURON_RT_INSPECT_ENABLE: found key "NEURON_RT_INSPECT_ENABLE" in the env every benchmark inherits; ' +
        'remove it: the gate turns the profiler on for the profiled run only; use profile (auto, on-change, true or false) to choose whether there is one',
      '.github/perf-gate.yml:7:7: benchmarks[0].env.NEURON_RT_INSPECT_OUTPUT_DIR: found key "NEURON_RT_INSPECT_OUTPUT_DIR" in the env of benchmark "a"; ' +
        'remove it: the gate writes the profile to <out-dir>/profiles/<benchmark>/, reads and uploads it from there; use out-dir to move it',
      '.github/perf-gate.yml:8:7: benchmarks[0].env.NEURON_RT_INSPECT_DEVICE_PROFILE: found key "NEURON_RT_INSPECT_DEVICE_PROFILE" in the env of benchmark "a"; ' +
        'remove it: the gate sets the device profile mode of the profiled run; use profile-mode (auto, model or session) to choose it',
    ]);
  });

  it('refuses a profiler variable a typo away from a documented one, naming the one it meant', async () => {
    const error = await fileError(
      benchmark(
        '    env:\n      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUPS: 5\n      neuron_rt_inspect_enable: 1\n',
      ),
    );
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:5:7: benchmarks[0].env.NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUPS: found key "NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUPS" in the env of benchmark "a", ' +
        'which the Neuron runtime does not read; did you mean NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP?',
      '.github/perf-gate.yml:6:7: benchmarks[0].env.neuron_rt_inspect_enable: found key "neuron_rt_inspect_enable" in the env of benchmark "a", ' +
        'which the Neuron runtime does not read; did you mean NEURON_RT_INSPECT_ENABLE?',
    ]);
  });

  it('names an unknown key inside monitor: and startup: mappings, where it is', async () => {
    const error = await fileError(
      benchmark('    monitor: { comand: x }\n    startup: { redy-log: x }\n'),
    );
    expect(error.message.split('\n')).toEqual([
      '.github/perf-gate.yml:4:16: benchmarks[0].monitor.comand: unknown key "comand" (did you mean "command"?); allowed keys: command, period',
      '.github/perf-gate.yml:5:16: benchmarks[0].startup.redy-log: unknown key "redy-log" (did you mean "ready-log"?); allowed keys: ready-log, cold',
    ]);
  });

  it('takes the profiler tuning variables, and checks the warm-up count', async () => {
    const tuning =
      '    env:\n      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: 5\n' +
      '      NEURON_RT_INSPECT_EVENT_FILTER_NC: 0-1\n      NEURON_RT_INSPECT_SYSTEM_PROFILE: 0\n';
    const workspace = await makeWorkspace({ [FILE]: benchmark(tuning) });
    const config = await resolveGateConfig({}, { workspace });
    expect(config.benchmarks[0]?.env).toEqual({
      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '5',
      NEURON_RT_INSPECT_EVENT_FILTER_NC: '0-1',
      NEURON_RT_INSPECT_SYSTEM_PROFILE: '0',
    });

    const error = await fileError(
      benchmark('    env:\n      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: five\n'),
    );
    expect(error.message).toBe(
      '.github/perf-gate.yml:5:52: benchmarks[0].env.NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: found "five"; ' +
        'allowed: a whole number (0 or more) of executions of each model the device profile skips',
    );
  });

  it('reports a working directory that does not exist, with its absolute path', async () => {
    const workspace = await makeWorkspace({ [FILE]: benchmark('    working-directory: bench\n') });
    const error = await rejection(resolveGateConfig({}, { workspace }));
    expect(error.message).toBe(
      `.github/perf-gate.yml:4:24: benchmarks[0].working-directory: found "bench"; ${join(workspace, 'bench')} does not exist; ` +
        'allowed: an existing directory inside the workspace, relative to it',
    );
  });

  it('reports a working directory that is a file', async () => {
    const workspace = await makeWorkspace({
      [FILE]: 'working-directory: notes.txt\n' + benchmark(''),
      'notes.txt': 'hi',
    });
    const error = await rejection(resolveGateConfig({}, { workspace }));
    expect(error.message).toBe(
      `.github/perf-gate.yml:1:20: working-directory: found "notes.txt"; ${join(workspace, 'notes.txt')} is not a directory; ` +
        'allowed: an existing directory inside the workspace, relative to it',
    );
  });

  it('reports every problem of the file, one per line, in file order', async () => {
    const error = await fileError(
      [
        'runs: 0',
        'benchmarks:',
        '  - name: a',
        '    command: x',
        '    profile: sometimes',
        '  - name: a',
        '    command: y',
        '    timeout_minutes: 5',
      ].join('\n'),
    );
    const lines = error.message.split('\n');
    expect(lines.map((line) => line.split(': ')[0])).toEqual([
      '.github/perf-gate.yml:1:7',
      '.github/perf-gate.yml:5:14',
      '.github/perf-gate.yml:6:11',
      '.github/perf-gate.yml:8:5',
    ]);
    expect(lines[1]).toContain(
      'benchmarks[0].profile: found "sometimes"; allowed: auto, on-change, true or false',
    );
  });
});

describe('file shape', () => {
  it.each(['', '# nothing here yet\n'])('rejects an empty file (%j)', async (content) => {
    const error = await fileError(content);
    expect(error.message).toMatch(
      /^\.github\/perf-gate\.yml: the file is empty; allowed: a mapping with a benchmarks list, e\.g\.\n {2}benchmarks:/,
    );
  });

  it('rejects a file that is not a mapping', async () => {
    const error = await fileError('- name: a\n  command: x\n');
    expect(error.message).toBe(
      '.github/perf-gate.yml:1:1: found a list of 1 item; allowed: a mapping with the keys format, runs, confirm-runs, profile, profile-mode, thresholds, ' +
        'working-directory, env, timeout-minutes, fail-on-regression, fail-on-inconclusive, confidence, baseline-path, baseline-window, ' +
        'profiler-path, upload-profiles, artifact-retention-days, artifact-compression-level, ' +
        'baseline-store, baseline-branch, baseline-s3-bucket, baseline-s3-prefix, baseline-s3-region, baseline-s3-endpoint, baseline-match, accept-after, update-baseline, baseline-keep, ' +
        'missing-after, environment-probe, setup, price-per-hour, benchmarks',
    );
  });

  it('rejects fail-on-regression that is not a boolean', async () => {
    const error = await fileError('fail-on-regression: "no"\n' + benchmark(''));
    expect(error.message).toBe(
      '.github/perf-gate.yml:1:21: fail-on-regression: found "no"; allowed: true or false',
    );
  });
});

describe('where the benchmarks come from', () => {
  it('reports a config file that does not exist, naming the input', async () => {
    const workspace = await makeWorkspace();
    const error = await rejection(resolveGateConfig({ config: 'perf/gate.yml' }, { workspace }));
    expect(error.kind).toBe('config');
    expect(error.file).toBe('perf/gate.yml');
    expect(error.message).toBe(
      `perf/gate.yml: found "perf/gate.yml"; given by action input 'config', but ${join(workspace, 'perf/gate.yml')} does not exist; ` +
        'allowed: the path of a YAML config file, relative to the workspace',
    );
  });

  it('refuses both config and command', async () => {
    const workspace = await makeWorkspace({ 'perf.yml': benchmark('') });
    const error = await rejection(
      resolveGateConfig({ config: 'perf.yml', command: './bench.sh' }, { workspace }),
    );
    expect(error.kind).toBe('usage');
    expect(error.message).toBe(
      "action input 'config' and action input 'command' are both given; choose one: " +
        "action input 'command' runs one benchmark described by the inputs, " +
        "action input 'config' reads the benchmarks from a YAML file",
    );
  });

  it('explains how to configure when nothing is configured', async () => {
    const error = await inputError({});
    expect(error.message).toContain('nothing to run: no benchmark command and no config file');
    expect(error.message).toContain('.github/perf-gate.yml');
    expect(error.message).toContain("action input 'command'");
    expect(error.message).toContain(
      '  with:\n    command: python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"',
    );
    expect(error.message).toContain('  benchmarks:\n    - name: my-benchmark\n      command: ');
  });

  it('shows the command-line way when the settings are flags', async () => {
    const workspace = await makeWorkspace();
    const error = await rejection(resolveGateConfig({}, { workspace, origin: 'cli' }));
    expect(error.message).toContain("neuron-perf-gate run --command 'python offline_benchmark.py");
    expect(error.message).toContain('flag --config');
  });

  it('refuses the name input when the benchmarks come from a file', async () => {
    const workspace = await makeWorkspace({ [FILE]: benchmark('') });
    const error = await rejection(resolveGateConfig({ name: 'mine' }, { workspace }));
    expect(error.kind).toBe('usage');
    expect(error.message).toBe(
      `action input 'name': found "mine"; it names the benchmark given by action input 'command' only; ` +
        'name each entry of benchmarks in .github/perf-gate.yml instead',
    );
  });
});

describe('other inputs', () => {
  it('reports a working-directory input that does not exist', async () => {
    const workspace = await makeWorkspace();
    const error = await rejection(
      resolveGateConfig({ command: 'x', 'working-directory': 'bench' }, { workspace }),
    );
    expect(error.kind).toBe('usage');
    expect(error.message).toBe(
      `action input 'working-directory': found "bench"; ${join(workspace, 'bench')} does not exist; ` +
        'allowed: an existing directory inside the workspace, relative to it',
    );
  });

  it('refuses a working directory outside the workspace, also through a symbolic link', async () => {
    const outside = await makeWorkspace();
    const workspace = await makeWorkspace();
    await symlink(outside, join(workspace, 'elsewhere'));
    for (const value of ['..', outside, 'elsewhere']) {
      const error = await rejection(
        resolveGateConfig({ command: 'x', 'working-directory': value }, { workspace }),
      );
      expect(error.kind).toBe('usage');
      expect(error.message).toMatch(
        new RegExp(
          `^action input 'working-directory': found .*is outside the workspace ${workspace}`,
        ),
      );
    }
  });

  it('refuses an out-dir under /proc, /sys or /dev, where writing may hang', async () => {
    const workspace = await makeWorkspace();
    for (const value of ['/proc/self/perf', '/sys/kernel/x', '/dev/shm/../null/out']) {
      const error = await rejection(
        resolveGateConfig({ command: 'x', 'out-dir': value }, { workspace }),
      );
      expect(error.message, value).toMatch(/out-dir'?: found .* a kernel file system/);
    }
  });

  it('refuses a __proto__ key in the config file, naming its line', async () => {
    const workspace = await makeWorkspace({
      [FILE]: 'benchmarks:\n  - name: a\n    command: x\n    env:\n      __proto__: injected\n',
    });
    const error = await rejection(resolveGateConfig({}, { workspace }));
    expect(error.message).toMatch(
      /^\.github\/perf-gate\.yml:5:7: .*the key `__proto__` cannot be used/,
    );
  });

  it('names the profile input and its values for a misspelt on-change', async () => {
    const error = await inputError({ command: 'x', profile: 'onchange' });
    expect(error.message).toBe(
      `action input 'profile': found "onchange"; allowed: auto, on-change, true or false`,
    );
    const inFile = await fileError(benchmark('    profile: on_change\n'));
    expect(inFile.message).toBe(
      '.github/perf-gate.yml:4:14: benchmarks[0].profile: found "on_change"; allowed: auto, on-change, true or false',
    );
  });

  it('reports every wrong input, one per line', async () => {
    const error = await inputError({
      command: 'x',
      'fail-on-regression': 'yes',
      'timeout-minutes': '30m',
      profile: 'Sometimes',
      format: 'Pytest',
      'baseline-window': '0',
      confidence: '100%',
      'fail-on-inconclusive': 'maybe',
      'confirm-runs': '-1',
    });
    expect(error.message.split('\n')).toEqual([
      `action input 'format': found "Pytest"; allowed: auto, offline-benchmark, pytest-benchmark, vllm-bench-serve, sglang-bench-serving, vllm-bench-throughput, vllm-bench-latency, nxdi-benchmark-report, guidellm, optimum-neuron-benchmark, custom-bigger-is-better, custom-smaller-is-better`,
      `action input 'confirm-runs': found -1; allowed: an integer from 0 to 20`,
      `action input 'profile': found "Sometimes"; allowed: auto, on-change, true or false`,
      `action input 'timeout-minutes': found "30m"; allowed: a number of minutes above 0 and at most 1440 (fractions allowed)`,
      `action input 'fail-on-regression': found "yes"; allowed: true or false`,
      `action input 'fail-on-inconclusive': found "maybe"; allowed: true or false`,
      `action input 'confidence': found "100%"; allowed: a percentage above 50% and below 100%, such as 90%, 95%, 99% or 99.9%`,
      `action input 'baseline-window': found 0; allowed: an integer from 1 to 100`,
    ]);
  });

  it('shortens a long value it quotes', async () => {
    const error = await inputError({ command: 'x', runs: 'r'.repeat(200) });
    expect(error.message).toBe(
      `action input 'runs': found "${'r'.repeat(59)}…"; allowed: an integer from 1 to 100`,
    );
  });
});

describe('thresholds switched off', () => {
  it.each(['off', 'none', 'OFF', '0%', '"0 %"', 'false'])(
    'reads %s as off (stored as 0), in the file and the input',
    async (value) => {
      const workspace = await makeWorkspace({
        [FILE]: `thresholds:\n  itl_p99: ${value}\n  default: 8%\n` + benchmark(''),
      });
      const config = await resolveGateConfig({}, { workspace });
      expect(config.benchmarks[0]?.thresholds).toEqual({ itl_p99: 0, default: 0.08 });
    },
  );

  it('reads off in the thresholds input', async () => {
    const workspace = await makeWorkspace();
    const config = await resolveGateConfig(
      { command: 'x', thresholds: 'itl_p99: off, ttft_p99: none\ndefault: 0%' },
      { workspace },
    );
    expect(config.benchmarks[0]?.thresholds).toEqual({ itl_p99: 0, ttft_p99: 0, default: 0 });
  });
});

describe('setup (A/B only)', () => {
  it.each([
    ['5', 'found 5'],
    ['""', 'found ""'],
    ['[a, b]', 'found a list of 2 items'],
  ])('rejects setup: %s, naming the file, the field and what it allows', async (value, found) => {
    const error = await fileError(`setup: ${value}\nbenchmarks:\n  - name: a\n    command: x\n`);
    expect(error.message).toContain('.github/perf-gate.yml');
    expect(error.message).toContain('setup');
    expect(error.message).toContain(found);
    expect(error.message).toContain(
      'allowed: a shell command that prepares a side of an A/B comparison',
    );
  });
});

describe('threshold keys', () => {
  it('refuses one that is no metric name, before anything runs, saying which was meant', async () => {
    const error = await fileError(benchmark('    thresholds: { thruput: 5% }\n'));
    expect(error.message).toContain(
      "thresholds.thruput: 'thruput' is not a metric of the built-in formats; did you mean 'throughput'?",
    );
  });

  it('refuses it in the thresholds input too', async () => {
    const error = await inputError({ command: './bench.sh', thresholds: 'latncy_p99: 20%' });
    expect(error.message).toContain("did you mean 'latency_p99'?");
  });

  it('takes any name at the top level when a benchmark is custom', async () => {
    const workspace = await makeWorkspace({
      [FILE]: [
        'thresholds: { throughput: 3%, build_time: 5% }',
        'benchmarks:',
        '  - name: serve',
        '    command: ./serve.sh',
        '    format: vllm-bench-serve',
        '  - name: build',
        '    command: ./build.sh',
        '    format: custom-smaller-is-better',
        '',
      ].join('\n'),
    });
    const config = await resolveGateConfig({}, { workspace });
    expect(config.benchmarks.map((b) => b.thresholds)).toEqual([
      { throughput: 0.03, build_time: 0.05 },
      { throughput: 0.03, build_time: 0.05 },
    ]);
  });
});

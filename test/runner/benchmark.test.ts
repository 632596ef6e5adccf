// runBenchmark with the real ProcessRunner against real bash benchmark scripts.

import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { benchmarkPaths, runBenchmark, runLateProfiledRun } from '../../src/runner/benchmark.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { slugify } from '../../src/runner/slug.js';
import { isAlive } from '../support/processes.js';
import { ROOT } from '../support/bundled.js';

let root: string;
let work: string;
let outDir: string;
let dumps: string;
const leftovers: number[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'run-benchmark-'));
  work = join(root, 'work');
  outDir = join(root, 'out');
  dumps = join(root, 'dumps');
  await Promise.all([mkdir(work), mkdir(dumps)]);
});

afterEach(async () => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(root, { recursive: true, force: true });
});

/** What the gate inherits, including profiler settings a runner might have exported. */
const parentEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  FROM_PARENT: 'inherited',
  NOT_SET: undefined,
  NEURON_RT_INSPECT_ENABLE: '1',
  NEURON_RT_INSPECT_OUTPUT_DIR: '/stale/inherited/profile',
  NEURON_RT_INSPECT_DEVICE_PROFILE: 'session',
  NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '99',
};

/** Runs `spec` with a real process runner in this test's out dir. */
function run(spec: BenchmarkSpec, profile: boolean, log: MemoryLogger) {
  return runBenchmark(spec, {
    runner: createProcessRunner(),
    log,
    outDir,
    profile,
    baseEnv: parentEnv,
  });
}

async function benchmark(name: string, script: string, overrides: Partial<BenchmarkSpec> = {}) {
  await writeFile(join(work, 'bench.sh'), `#!/bin/bash\n${script}\n`);
  const spec: BenchmarkSpec = {
    name,
    command: 'bash ./bench.sh',
    format: 'auto',
    runs: 2,
    confirmRuns: 0,
    profileMode: 'model',
    profile: 'auto',
    thresholds: {},
    workingDirectory: work,
    env: { DUMP_DIR: dumps, MODEL: 'tiny-reranker' },
    timeoutMinutes: 1,
    ...overrides,
  };
  return spec;
}

/** A clock that advances 3.4 s per call, so durations in log lines are predictable. */
function steppingClock(stepMs = 3_400): () => number {
  let t = 0;
  return () => (t += stepMs) - stepMs;
}

function readEnvDump(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

function inspectVariables(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => name.startsWith('NEURON_RT_INSPECT_')),
  );
}

const WELL_BEHAVED = `
set -e
env | sort > "$DUMP_DIR/env-$PERF_GATE_RUN.txt"
echo "benchmark $PERF_GATE_BENCHMARK: run $PERF_GATE_RUN of $PERF_GATE_RUNS"
echo "to stderr" >&2
if [ "$PERF_GATE_PROFILE" = 1 ]; then
  ls -A "$NEURON_RT_INSPECT_OUTPUT_DIR" > "$DUMP_DIR/profile-dir-before.txt"
  echo ntff > "$NEURON_RT_INSPECT_OUTPUT_DIR/profile_nc_0.ntff"
fi
echo "{\\"run\\": $PERF_GATE_RUN}" > "$PERF_GATE_OUTPUT"
`;

describe('runBenchmark', () => {
  it('runs the clean runs and one profiled run with the right files and environment', async () => {
    const name = 'Reranker bs=8';
    const spec = await benchmark(name, WELL_BEHAVED);
    const { runsDir, profileDir } = benchmarkPaths(outDir, name);
    expect(runsDir).toBe(join(outDir, 'runs', slugify(name)));
    // Leftovers of an earlier gate run in the same out dir.
    await mkdir(profileDir, { recursive: true });
    await writeFile(join(profileDir, 'stale.ntff'), 'old');
    const log = new MemoryLogger();

    const outcomes = await runBenchmark(spec, {
      runner: createProcessRunner(),
      log,
      outDir,
      profile: true,
      baseEnv: parentEnv,
      now: steppingClock(),
    });

    expect(outcomes.map((o) => [o.index, o.kind, o.ok, o.exitCode, o.timedOut])).toEqual([
      [1, 'clean', true, 0, false],
      [2, 'clean', true, 0, false],
      [3, 'profiled', true, 0, false],
    ]);
    for (const outcome of outcomes) {
      const file = `run-${outcome.index}.${outcome.kind}`;
      expect(outcome.resultPath).toBe(join(runsDir, `${file}.json`));
      expect(outcome.logPath).toBe(join(runsDir, `${file}.log`));
      expect(JSON.parse(await readFile(outcome.resultPath, 'utf8'))).toEqual({
        run: outcome.index,
      });
      const logText = await readFile(outcome.logPath, 'utf8');
      expect(logText).toContain(`benchmark ${name}: run ${outcome.index} of 3`);
      expect(logText).toContain('to stderr');
      expect(outcome.logTail).toContain(`benchmark ${name}: run ${outcome.index} of 3`);
      expect(outcome.error).toBeUndefined();
      expect(outcome.durationMs).toBe(3_400);
    }
    expect(outcomes[0]?.profileDir).toBeUndefined();
    expect(outcomes[2]?.profileDir).toBe(profileDir);

    for (const index of [1, 2, 3]) {
      const env = readEnvDump(join(dumps, `env-${index}.txt`));
      expect(env).toMatchObject({
        PERF_GATE_OUTPUT: outcomes[index - 1]?.resultPath,
        PERF_GATE_RUN: String(index),
        PERF_GATE_RUNS: '3',
        PERF_GATE_PROFILE: index === 3 ? '1' : '0',
        PERF_GATE_BENCHMARK: name,
        FROM_PARENT: 'inherited',
        MODEL: 'tiny-reranker',
      });
      expect(env.NOT_SET).toBeUndefined();
      if (index < 3) {
        expect(inspectVariables(env), `run ${index}`).toEqual({});
      } else {
        expect(inspectVariables(env)).toEqual({
          NEURON_RT_INSPECT_ENABLE: '1',
          NEURON_RT_INSPECT_SYSTEM_PROFILE: '1',
          NEURON_RT_INSPECT_DEVICE_PROFILE: 'model',
          NEURON_RT_INSPECT_OUTPUT_DIR: profileDir,
        });
      }
    }
    // The profile dir was emptied before the profiled run, and kept what it wrote.
    expect(await readFile(join(dumps, 'profile-dir-before.txt'), 'utf8')).toBe('');
    expect(await readdir(profileDir)).toEqual(['profile_nc_0.ntff']);

    expect(log.lines).toEqual([
      `group: ${name}: run 1 of 3 (clean)`,
      'endgroup',
      `${name}: run 1 of 3 (clean) finished in 3.4 s`,
      `group: ${name}: run 2 of 3 (clean)`,
      'endgroup',
      `${name}: run 2 of 3 (clean) finished in 3.4 s`,
      `${name}: the profiled run records device profile mode model (profile-mode), warm-up the runtime's default`,
      `group: ${name}: run 3 of 3 (profiled)`,
      'endgroup',
      `${name}: run 3 of 3 (profiled) finished in 3.4 s`,
    ]);
    const logBytes = await Promise.all(outcomes.map(async (o) => (await stat(o.logPath)).size));
    expect(log.outputBytes).toBe(logBytes.reduce((a, b) => a + b, 0));
  });

  it('runs only the clean runs when profiling is off', async () => {
    const spec = await benchmark('plain', WELL_BEHAVED, { runs: 3 });
    const outcomes = await run(spec, false, new MemoryLogger());
    expect(outcomes.map((o) => `${o.index}:${o.kind}:${o.ok}`)).toEqual([
      '1:clean:true',
      '2:clean:true',
      '3:clean:true',
    ]);
    expect(readEnvDump(join(dumps, 'env-3.txt')).PERF_GATE_RUNS).toBe('3');
    expect(existsSync(benchmarkPaths(outDir, 'plain').profileDir)).toBe(false);
  });

  it('passes the profiler tuning of env to the profiled run only, never the variables the gate owns', async () => {
    const spec = await benchmark('own-profiler-env', WELL_BEHAVED, {
      runs: 1,
      profileMode: 'session',
      env: {
        DUMP_DIR: dumps,
        NEURON_RT_INSPECT_ENABLE: '0',
        NEURON_RT_INSPECT_OUTPUT_DIR: '/somewhere/else',
        NEURON_RT_INSPECT_DEVICE_PROFILE: 'model',
        NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '5',
        NEURON_RT_INSPECT_SYSTEM_PROFILE: '0',
      },
    });
    const log = new MemoryLogger();
    const outcomes = await run(spec, true, log);
    expect(inspectVariables(readEnvDump(join(dumps, 'env-1.txt')))).toEqual({});
    expect(inspectVariables(readEnvDump(join(dumps, 'env-2.txt')))).toEqual({
      NEURON_RT_INSPECT_ENABLE: '1',
      NEURON_RT_INSPECT_SYSTEM_PROFILE: '0',
      NEURON_RT_INSPECT_DEVICE_PROFILE: 'session',
      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '5',
      NEURON_RT_INSPECT_OUTPUT_DIR: benchmarkPaths(outDir, 'own-profiler-env').profileDir,
    });
    expect(outcomes[1]?.capture).toEqual({
      mode: 'session',
      modeFrom: 'profile-mode',
      warmup: '5',
    });
    const warnings = log.lines.filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      expect.stringContaining(
        'env NEURON_RT_INSPECT_ENABLE, NEURON_RT_INSPECT_OUTPUT_DIR, NEURON_RT_INSPECT_DEVICE_PROFILE is ignored',
      ),
      expect.stringContaining(
        'NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP=5 is set, but the Neuron docs support it in model mode only',
      ),
    ]);
  });

  describe('profile-mode auto', () => {
    const SERVE_RESULT = join(ROOT, 'test/fixtures/formats/vllm-bench-serve/detailed.json');
    const WRITES_SERVE_RESULT = `env | sort > "$DUMP_DIR/env-$PERF_GATE_RUN.txt"
cp "${SERVE_RESULT}" "$PERF_GATE_OUTPUT"`;

    it('records a session profile for a serving format found in the first clean result', async () => {
      const spec = await benchmark('serve', WRITES_SERVE_RESULT, { profileMode: 'auto' });
      const log = new MemoryLogger();
      const outcomes = await run(spec, true, log);
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, true]);
      expect(inspectVariables(readEnvDump(join(dumps, 'env-2.txt')))).toEqual({});
      const profiled = inspectVariables(readEnvDump(join(dumps, 'env-3.txt')));
      expect(profiled.NEURON_RT_INSPECT_DEVICE_PROFILE).toBe('session');
      // Inherited from the runner: stripped, so the runtime's default applies.
      expect(profiled.NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP).toBeUndefined();
      expect(outcomes[2]?.capture).toEqual({
        mode: 'session',
        modeFrom: 'serving',
        format: 'vllm-bench-serve',
      });
      expect(log.lines).toContain(
        "serve: the profiled run records device profile mode session (profile-mode auto; vllm-bench-serve is a serving format), warm-up the runtime's default",
      );
    });

    it('keeps model for any other format, and a configured mode wins', async () => {
      const offline = await benchmark('offline', WELL_BEHAVED, { profileMode: 'auto', runs: 1 });
      const outcomes = await run(offline, true, new MemoryLogger());
      // {"run": 1} is no format the gate knows: not a serving one.
      expect(outcomes[1]?.capture).toEqual({ mode: 'model', modeFrom: 'default' });
      expect(inspectVariables(readEnvDump(join(dumps, 'env-2.txt')))).toMatchObject({
        NEURON_RT_INSPECT_DEVICE_PROFILE: 'model',
      });

      const named = await benchmark('named', WRITES_SERVE_RESULT, {
        profileMode: 'model',
        format: 'vllm-bench-serve',
        runs: 1,
        env: { DUMP_DIR: dumps, NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '3' },
      });
      const log = new MemoryLogger();
      const [, profiled] = await run(named, true, log);
      expect(profiled?.capture).toEqual({ mode: 'model', modeFrom: 'profile-mode', warmup: '3' });
      expect(inspectVariables(readEnvDump(join(dumps, 'env-2.txt')))).toMatchObject({
        NEURON_RT_INSPECT_DEVICE_PROFILE: 'model',
        NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '3',
      });
      expect(log.lines.filter((line) => line.startsWith('warning:'))).toEqual([]);
    });

    it('decides the late profiled run of profile: on-change the same way', async () => {
      const spec = await benchmark('late', WRITES_SERVE_RESULT, { profileMode: 'auto', runs: 1 });
      await run(spec, false, new MemoryLogger());
      const profiled = await runLateProfiledRun(spec, {
        runner: createProcessRunner(),
        log: new MemoryLogger(),
        outDir,
        profile: true,
        baseEnv: parentEnv,
        index: 2,
      });
      expect(profiled.capture).toMatchObject({ mode: 'session', modeFrom: 'serving' });
      expect(readEnvDump(join(dumps, 'env-2.txt')).NEURON_RT_INSPECT_DEVICE_PROFILE).toBe(
        'session',
      );
    });
  });

  it('stops after a failing clean run and keeps the last 50 lines of its output', async () => {
    const spec = await benchmark(
      'fails',
      `touch "$DUMP_DIR/started-$PERF_GATE_RUN"
for i in $(seq 1 200); do echo "line $i"; done
exit 3`,
      { runs: 3 },
    );
    const log = new MemoryLogger();
    const outcomes = await run(spec, true, log);
    expect(outcomes).toHaveLength(1);
    const [failed] = outcomes;
    expect(failed).toMatchObject({ index: 1, kind: 'clean', ok: false, exitCode: 3 });
    expect(failed?.error).toContain('exited with code 3');
    expect(failed?.logTail).toEqual(Array.from({ length: 50 }, (_, i) => `line ${151 + i}`));
    expect(existsSync(join(dumps, 'started-1'))).toBe(true);
    expect(existsSync(join(dumps, 'started-2'))).toBe(false);
    expect(log.lines.at(-1)).toMatch(
      /^fails: run 1 of 4 \(clean\) failed: exit code 3 after \d+\.\d s$/,
    );
  });

  it('returns a failed profiled run after successful clean runs', async () => {
    const spec = await benchmark(
      'profiler-breaks',
      `if [ "$PERF_GATE_PROFILE" = 1 ]; then echo "device memory exhausted" >&2; exit 1; fi
echo '{}' > "$PERF_GATE_OUTPUT"`,
      { runs: 2 },
    );
    const outcomes = await run(spec, true, new MemoryLogger());
    expect(outcomes.map((o) => `${o.kind}:${o.ok}`)).toEqual([
      'clean:true',
      'clean:true',
      'profiled:false',
    ]);
    expect(outcomes[2]).toMatchObject({ exitCode: 1, logTail: ['device memory exhausted'] });
    expect(outcomes[2]?.profileDir).toBe(benchmarkPaths(outDir, 'profiler-breaks').profileDir);
  });

  it('on timeout kills the benchmark and the processes it started', async () => {
    const spec = await benchmark(
      'hangs',
      `sleep 300 &
echo $! > "$DUMP_DIR/grandchild.pid"
echo "warming up"
sleep 300`,
      // 3 s: time for a busy host to get to "warming up" before the timeout.
      { timeoutMinutes: 0.05 },
    );
    const log = new MemoryLogger();
    const outcomes = await runBenchmark(spec, {
      runner: createProcessRunner({ killGraceMs: 1_000 }),
      log,
      outDir,
      profile: false,
      baseEnv: parentEnv,
    });
    const grandchild = Number(await readFile(join(dumps, 'grandchild.pid'), 'utf8'));
    leftovers.push(grandchild);

    // No bound on the time taken: waiting the 300 s out would pass the test's timeout.
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false, timedOut: true, exitCode: null });
    expect(outcomes[0]?.error).toContain('timeout-minutes (0.05 min)');
    expect(outcomes[0]?.logTail).toEqual(['warming up']);
    expect(isAlive(grandchild)).toBe(false);
    expect(log.lines.at(-1)).toBe('hangs: run 1 of 2 (clean) failed: timed out after 0.05 min');
  });

  it('fails a run that wrote no result file, even when an old one was lying there', async () => {
    const spec = await benchmark('forgets', 'echo "done, but no result written"');
    const stale = join(benchmarkPaths(outDir, 'forgets').runsDir, 'run-1.clean.json');
    await mkdir(join(stale, '..'), { recursive: true });
    await writeFile(stale, '{"from": "an earlier gate run"}');

    const log = new MemoryLogger();
    const outcomes = await run(spec, false, log);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false, exitCode: 0, resultPath: stale });
    expect(outcomes[0]?.error).toContain(`wrote no result file at ${stale}`);
    expect(outcomes[0]?.error).toContain('PERF_GATE_OUTPUT');
    expect(outcomes[0]?.logTail).toEqual(['done, but no result written']);
    expect(existsSync(stale)).toBe(false);
    expect(log.lines.at(-1)).toMatch(/failed: no result file after/);
  });

  it('fails a run that wrote an empty result file', async () => {
    const spec = await benchmark('empty', ': > "$PERF_GATE_OUTPUT"');
    const outcomes = await run(spec, false, new MemoryLogger());
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.ok).toBe(false);
    expect(outcomes[0]?.error).toContain('is empty');
  });

  it('fails a run that wrote only whitespace', async () => {
    const spec = await benchmark('blank', 'printf "\\n  \\n" > "$PERF_GATE_OUTPUT"');
    const outcomes = await run(spec, false, new MemoryLogger());
    expect(outcomes[0]?.error).toContain('is empty');
  });

  it('reports a missing working directory as a run that could not start', async () => {
    const missing = join(root, 'not-checked-out');
    const spec = await benchmark('nowhere', WELL_BEHAVED, { workingDirectory: missing });
    const log = new MemoryLogger();
    const outcomes = await run(spec, true, log);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false, exitCode: null, timedOut: false, logTail: [] });
    expect(outcomes[0]?.error).toContain(`the working directory ${missing} does not exist`);
    expect(outcomes[0]?.error).toContain('working-directory');
    expect(log.lines.at(-1)).toMatch(/^nowhere: run 1 of 3 \(clean\) failed: could not start/);
  });

  it('streams 50 MB of output with bounded memory', async () => {
    const megabytes = 50;
    const blob = megabytes * 1024 * 1024;
    const spec = await benchmark(
      'chatty',
      `head -c ${blob} /dev/zero | tr '\\0' 'x' | fold -w 100
echo
for i in $(seq 1 60); do echo "end-$i"; done
echo '{}' > "$PERF_GATE_OUTPUT"`,
      { runs: 1 },
    );
    const log = new MemoryLogger();
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    let outcomes;
    try {
      outcomes = await runBenchmark(spec, {
        runner: createProcessRunner(),
        log,
        outDir,
        profile: false,
        baseEnv: parentEnv,
      });
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const seconds = (performance.now() - started) / 1_000;

    expect(outcomes).toHaveLength(1);
    const [outcome] = outcomes;
    expect(outcome?.ok).toBe(true);
    // 100 characters and a newline per folded line, then the 60 numbered lines.
    const endLines = Array.from({ length: 60 }, (_, i) => `end-${i + 1}\n`).join('');
    const expectedBytes = (blob / 100) * 101 + endLines.length;
    expect((await stat(outcome?.logPath ?? '')).size).toBe(expectedBytes);
    expect(log.outputBytes).toBe(expectedBytes);
    expect(outcome?.logTail).toEqual(Array.from({ length: 50 }, (_, i) => `end-${i + 11}`));
    const growthMb = (peak - before) / 1024 / 1024;
    expect(
      growthMb,
      `RSS grew by ${growthMb.toFixed(1)} MB in ${seconds.toFixed(1)} s`,
    ).toBeLessThan(megabytes);
  });
});

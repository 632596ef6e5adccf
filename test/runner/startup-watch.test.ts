// startup: on real child processes through runBenchmark: launch → ready by a ready-log line
// or by the result file's first complete line, each measured on the clean runs only, and
// the cases where a sign came only as the run ended (a result written at exit, a line held
// in Python's stdout buffer), which are not taken for a start-up.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchmarkSpec, StartupSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { runBenchmark } from '../../src/runner/benchmark.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { cameWithExit, resultPollInterval } from '../../src/runner/startup-watch.js';

async function run(script: string, startup: StartupSpec, profile = false) {
  const root = await mkdtemp(join(tmpdir(), 'startup-watch-'));
  const work = join(root, 'work');
  await mkdir(work);
  await writeFile(join(work, 'bench.sh'), `#!/bin/bash\n${script}\n`);
  const spec: BenchmarkSpec = {
    name: 'starting',
    command: 'bash ./bench.sh',
    format: 'custom-smaller-is-better',
    runs: 2,
    confirmRuns: 0,
    profileMode: 'model',
    profile: 'auto',
    thresholds: {},
    workingDirectory: work,
    env: {},
    timeoutMinutes: 1,
    startup,
  };
  return runBenchmark(spec, {
    runner: createProcessRunner({ killGraceMs: 500 }),
    log: new MemoryLogger(),
    outDir: join(root, 'out'),
    baseEnv: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: root },
    profile,
  });
}

const RESULT = `echo '[{"name": "t", "unit": "s", "value": 1}]' > "$PERF_GATE_OUTPUT"`;

describe('the start-up of a benchmark run', () => {
  it('is launch → the first output line that matches ready-log, on each clean run only', async () => {
    const outcomes = await run(
      `echo loading; sleep 0.4; echo 'engine ready after load'; sleep 1.5; ${RESULT}`,
      { readyLog: 'ready after', cold: false },
      true,
    );
    expect(outcomes.map((o) => [o.kind, o.ok])).toEqual([
      ['clean', true],
      ['clean', true],
      ['profiled', true],
    ]);
    for (const clean of outcomes.slice(0, 2)) {
      const ms = (clean.startup as { ms: number }).ms;
      // The line comes 0.4 s after bash starts and 1.5 s before the run ends. A busy host
      // only lengthens both sleeps, so the bounds hold however loaded: at least 0.4 s, and
      // well before the end (a start-up taken at the exit would leave no gap).
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(clean.durationMs - ms).toBeGreaterThan(750);
    }
    expect(outcomes[2]!.startup).toBeUndefined();
  });

  it('is launch → the first complete line of the result file without ready-log', async () => {
    const outcomes = await run(
      // Half a line first: only its newline makes it a line.
      `sleep 0.2; printf '[{"name": "t",' > "$PERF_GATE_OUTPUT"; sleep 0.3; ` +
        `printf ' "unit": "s", "value": 1}]\\n' >> "$PERF_GATE_OUTPUT"; sleep 1.5`,
      { cold: false },
    );
    for (const clean of outcomes) {
      const ms = (clean.startup as { ms: number }).ms;
      // Not at the half line (0.2 s), and well before the end (1.5 s after the whole line).
      expect(ms).toBeGreaterThanOrEqual(500);
      expect(clean.durationMs - ms).toBeGreaterThan(750);
    }
  });

  it('is not taken from a result file written as the run ends, and says why', async () => {
    const outcomes = await run(`sleep 0.3; ${RESULT}`, { cold: false });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(outcomes[0]!.startup).toEqual({
      note: expect.stringMatching(
        /result file run-1\.clean\.json got its first line only as the run ended.*ready-log/,
      ),
    });
  });

  it('is not taken from a ready-log line that came only as the run ended (a stdout buffer)', async () => {
    // Python holds print() to a pipe until it exits: the line arrives with the exit.
    const outcomes = await run(
      `${RESULT}; exec python3 -c "import time; print('engine ready', flush=False); time.sleep(0.5)"`,
      { readyLog: 'engine ready', cold: false },
    );
    expect(outcomes[0]!.startup).toEqual({
      note: expect.stringMatching(/came only as the run ended.*PYTHONUNBUFFERED/),
    });
  });

  it('says so when no line matches ready-log, and the run still counts', async () => {
    const outcomes = await run(`echo loading; sleep 0.1; ${RESULT}`, {
      readyLog: '^never$',
      cold: false,
    });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(outcomes[1]!.startup).toEqual({
      note: 'no line of its output matched ready-log "^never$"',
    });
  });

  it('takes a sign in the last 5% of a run, at least 50 ms, for its end', () => {
    expect(cameWithExit(949, 1_000)).toBe(false);
    expect(cameWithExit(951, 1_000)).toBe(true);
    expect(cameWithExit(9_400, 10_000)).toBe(false);
    expect(cameWithExit(9_600, 10_000)).toBe(true);
  });

  it('looks at the result file often at first, then less, at most once a second', () => {
    expect(resultPollInterval(0)).toBe(10);
    expect(resultPollInterval(5_000)).toBe(100);
    expect(resultPollInterval(3_600_000)).toBe(1_000);
  });
});

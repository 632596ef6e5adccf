// runBenchmark with memoryObserver, real processes throughout: a bash benchmark that holds
// memory, the simulator's neuron-monitor beside each clean run, none beside the profiled
// run, and a run that times out still measured and cleaned up.
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { memoryObserver } from '../../src/observe/run-observer.js';
import { runBenchmark } from '../../src/runner/benchmark.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { livePidsWith } from '../support/processes.js';
import { BIN } from '../simulator/helpers.js';

const MIB = 1024 * 1024;
/** Holds 48 MiB for `seconds`, writes a result, then exits. */
const HOLDING = (seconds: number) => `
node -e 'const b = Buffer.alloc(48 * 1024 * 1024, 1); setTimeout(() => b.length, ${seconds * 1000})'
echo '{"throughput": 1}' > "$PERF_GATE_OUTPUT"
`;

/**
 * Holds 48 MiB until the run's neuron-monitor has written 5 reports (however long a busy
 * host takes to start it; a profiled run has none and does not wait), writes a result, exits.
 */
const HOLDING_UNTIL_SAMPLED = `
node -e '
const b = Buffer.alloc(48 * 1024 * 1024, 1);
const samples = process.env.PERF_GATE_OUTPUT.replace(/\\.json$/, ".neuron-monitor.jsonl");
const reports = () => { try { return require("node:fs").readFileSync(samples, "utf8").split("\\n").length - 1; } catch { return 0; } };
const check = () => process.env.PERF_GATE_PROFILE === "1" || reports() >= 5 ? b.length : setTimeout(check, 25);
check();'
echo '{"throughput": 1}' > "$PERF_GATE_OUTPUT"
`;

async function setup(script: string, overrides: Partial<BenchmarkSpec> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'run-observer-'));
  const work = join(root, 'work');
  await mkdir(work);
  await writeFile(join(work, 'bench.sh'), `#!/bin/bash\n${script}\n`);
  const spec: BenchmarkSpec = {
    name: 'held',
    command: 'bash ./bench.sh',
    format: 'custom-smaller-is-better',
    runs: 2,
    confirmRuns: 0,
    profileMode: 'model',
    profile: 'auto',
    thresholds: {},
    workingDirectory: work,
    env: { SIM_DEVICE_MEMORY_GROWTH: '1.5' },
    timeoutMinutes: 1,
    monitor: { command: 'neuron-monitor', periodSeconds: 0.1 },
    ...overrides,
  };
  const runner = createProcessRunner({ killGraceMs: 500 });
  const outDir = join(root, 'out');
  const options = {
    runner,
    log: new MemoryLogger(),
    outDir,
    baseEnv: { PATH: `${BIN}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: root },
    observe: memoryObserver(spec.monitor!, { runner, cwd: work, outDir }),
  };
  return { spec, options, root };
}

describe('memoryObserver beside runBenchmark', () => {
  it('watches each clean run, not the profiled one, and leaves nothing running', async () => {
    const { spec, options, root } = await setup(HOLDING_UNTIL_SAMPLED);
    const outcomes = await runBenchmark(spec, { ...options, profile: true });
    expect(outcomes.map((o) => [o.kind, o.ok])).toEqual([
      ['clean', true],
      ['clean', true],
      ['profiled', true],
    ]);
    for (const clean of outcomes.slice(0, 2)) {
      const memory = clean.memory!;
      expect(memory.warnings).toEqual([]);
      expect(memory.monitorSamples).toBeGreaterThanOrEqual(3);
      expect(memory.devicePeakBytes! / (2 * 1652512064)).toBeCloseTo(1.5, 6);
      expect(memory.hostPeakBytes).toBeGreaterThan(48 * MIB);
    }
    expect(outcomes[2]!.memory).toBeUndefined();
    const files = await readdir(join(root, 'out', 'runs', 'held'));
    expect(files.filter((name) => name.includes('neuron-monitor')).sort()).toEqual([
      'run-1.clean.neuron-monitor.conf',
      'run-1.clean.neuron-monitor.jsonl',
      'run-1.clean.neuron-monitor.log',
      'run-2.clean.neuron-monitor.conf',
      'run-2.clean.neuron-monitor.jsonl',
      'run-2.clean.neuron-monitor.log',
    ]);
    expect(livePidsWith(root)).toEqual([]);
  });

  it('measures a run that times out until it is stopped, and stops the monitor with it', async () => {
    // 6 s: time for a busy host to start the monitor and have it report before the timeout.
    const { spec, options, root } = await setup(HOLDING(60), { timeoutMinutes: 0.1, runs: 1 });
    const [outcome] = await runBenchmark(spec, { ...options, profile: false });
    expect(outcome!.timedOut).toBe(true);
    expect(outcome!.memory!.devicePeakBytes).toBeGreaterThan(0);
    expect(outcome!.memory!.hostPeakBytes).toBeGreaterThan(48 * MIB);
    expect(livePidsWith(root)).toEqual([]);
  });

  it("counts only the run's own runtime of the several neuron-monitor reports", async () => {
    // A monitor that, like the real one on a runner shared by two jobs, reports the
    // benchmark's runtime (by the pid it wrote) and another of pid 1, with 5× the memory.
    const { spec, options, root } = await setup(`echo $$ > bench.pid\n${HOLDING_UNTIL_SAMPLED}`, {
      runs: 1,
    });
    const monitor = join(root, 'two-runtimes-monitor.cjs');
    await writeFile(monitor, TWO_RUNTIMES, { mode: 0o755 });
    const watched = { ...spec, monitor: { command: monitor, periodSeconds: 0.1 } };
    const observe = memoryObserver(watched.monitor, {
      runner: options.runner,
      cwd: spec.workingDirectory,
      outDir: options.outDir,
    });
    const [outcome] = await runBenchmark(watched, { ...options, observe, profile: false });
    expect(outcome!.ok).toBe(true);
    expect(outcome!.memory!.warnings).toEqual([]);
    expect(outcome!.memory!.monitorSamples).toBeGreaterThanOrEqual(3);
    expect(outcome!.memory!.devicePeakBytes).toBe(OURS);
    expect(livePidsWith(root)).toEqual([]);
  });
});

const OURS = 1000 * MIB;
const TWO_RUNTIMES = `#!/usr/bin/env node
const { existsSync, readFileSync } = require('node:fs');
const runtime = (pid, bytes) => ({ pid, report: { memory_used: { neuron_runtime_used_bytes: { neuron_device: bytes } } } });
setInterval(() => {
  if (!existsSync('bench.pid')) return;
  const pid = Number(readFileSync('bench.pid', 'utf8'));
  if (pid > 0) console.log(JSON.stringify({ neuron_runtime_data: [runtime(pid, ${1000 * 1024 * 1024}), runtime(1, ${5000 * 1024 * 1024})] }));
}, 100);
process.on('SIGTERM', () => process.exit(0));
`;

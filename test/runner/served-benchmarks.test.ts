// Benchmarks with a server through the whole gate (runGate): one server for all the
// variants of a sweep, its start-up (every clean start) a metric of the first, a server of its own for the
// profiled run, and every failure (never ready, exits during a run) an error report with
// the server's log, with nothing of it left running. Real child processes throughout.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import { runGate } from '../../src/pipeline.js';
import { renderComment } from '../../src/report/markdown.js';
import { createProcessRunner } from '../../src/runner/process.js';
import {
  openSharedServer,
  serverGroups,
  serverStartupMetric,
  withServerSummary,
} from '../../src/runner/served-benchmarks.js';
import type { ServerSession, ServerStartRecord } from '../../src/runner/server-session.js';
import type { BenchmarkSpec } from '../../src/config/types.js';
import type { Baseline } from '../../src/baseline/types.js';
import type { BenchmarkReport } from '../../src/model.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';
import { isAlive, whileRunning } from '../support/processes.js';

const TOY = resolve(import.meta.dirname, '..', 'fixtures', 'server', 'toy-server.mjs');

/** One request to the server's /work; its time is the result (custom-smaller-is-better). */
const BENCH = `const started = performance.now();
const response = await fetch('http://127.0.0.1:' + process.env.PORT + '/work');
if (response.status !== 200) { console.error('server answered ' + response.status); process.exit(1); }
const value = performance.now() - started;
await import('node:fs').then((fs) => fs.writeFileSync(process.env.PERF_GATE_OUTPUT,
  JSON.stringify([{ name: 'request', unit: 'ms', value }])));
`;

let workspace: string;
let port: number;

beforeEach(async () => {
  workspace = await tempDir('perf-gate-served-');
  port = await freePort();
  await mkdir(join(workspace, '.github'));
  await writeFile(join(workspace, 'bench.mjs'), BENCH);
  await writeFile(join(workspace, 'pids'), '');
});

function config(options: { serverArgs?: string[]; top?: string[]; entry?: string[] } = {}) {
  const serverArgs = ['--pids', 'pids', '--record-env', 'env.txt', ...(options.serverArgs ?? [])];
  return [
    'profile: false',
    'confirm-runs: 0',
    ...(options.top ?? []),
    'benchmarks:',
    '  - name: served',
    '    command: node bench.mjs',
    '    format: custom-smaller-is-better',
    '    runs: 2',
    `    env: { PORT: "${port}" }`,
    '    server:',
    `      command: ${JSON.stringify([process.execPath, TOY, '--port', String(port), '--delay', '300', ...serverArgs])}`,
    `      ready-url: http://127.0.0.1:${port}/health`,
    '      start-timeout: 60s',
    ...(options.entry ?? []),
  ].join('\n');
}

const SWEEP = [
  '    sweep:',
  '      variants: [{ name: low, rate: 1 }, { name: mid, rate: 2 }, { name: high, rate: 4 }]',
];

async function gate(yaml: string) {
  await writeFile(join(workspace, '.github/perf-gate.yml'), yaml);
  const resolved = await resolveGateConfig({}, { workspace });
  const log = new MemoryLogger();
  const report = await runGate(resolved, {
    runner: createProcessRunner(),
    log,
    baselineStore: { load: async () => undefined },
    env: { PATH: process.env.PATH },
  });
  return { report, log, config: resolved };
}

async function serverPids(): Promise<number[]> {
  const text = await readFile(join(workspace, 'pids'), 'utf8');
  return text.split('\n').filter(Boolean).map(Number);
}

async function stillRunning(): Promise<number[]> {
  const pids = await serverPids();
  await whileRunning(() => pids.some(isAlive));
  return pids.filter(isAlive);
}

describe('a sweep with a server', () => {
  it('runs every variant against one server, its start-up a metric of the first', async () => {
    const { report } = await gate(config({ entry: SWEEP }));
    expect(report.benchmarks.map((b) => [b.name, b.verdict])).toEqual([
      ['served/low', 'no-baseline'],
      ['served/mid', 'no-baseline'],
      ['served/high', 'no-baseline'],
    ]);
    // One server and its worker for the six runs, gone afterwards.
    expect(await serverPids()).toHaveLength(2);
    expect(await stillRunning()).toEqual([]);

    const [first, second] = report.benchmarks;
    const startup = first?.result?.metrics.find((m) => m.id === 'server_startup');
    expect(startup).toMatchObject({ unit: 's', direction: 'lower-is-better' });
    expect(startup?.values).toHaveLength(1);
    expect(startup!.values[0]).toBeGreaterThanOrEqual(0.3);
    expect(startup!.values[0]).toBeLessThan(10);
    expect(second?.result?.metrics.map((m) => m.id)).not.toContain('server_startup');
    expect(first?.server).toEqual({
      startupSeconds: startup!.values[0],
      cleanStarts: 1,
      starts: 1,
      logs: ['servers/served/server-1.clean.log'],
      stopped: expect.stringMatching(/^SIGTERM, \d+\.\d s$/),
    });
    const log = await readFile(
      join(workspace, 'perf-gate-output/servers/served/server-1.clean.log'),
      'utf8',
    );
    expect(log).toContain('toy server ready');
    expect(renderComment(report)).toMatch(
      /🖥️ \*\*Server\*\*: ready \*\*\d\.\d{3} s\*\* after it was launched, stopped: SIGTERM, [\d.]+ s; log `servers\/served\/server-1\.clean\.log` in the artifact\./,
    );
  });

  it('fails every variant when the server exits before it is ready, trying it once', async () => {
    const { report } = await gate(
      config({ entry: SWEEP, serverArgs: ['--exit-before-ready', '4'] }),
    );
    expect(report.verdict).toBe('error');
    expect(report.benchmarks.map((b) => b.verdict)).toEqual(['error', 'error', 'error']);
    const [first, second] = report.benchmarks;
    expect(first?.error).toContain(
      'served/low: run 1 (clean) failed: the server exited with code 4 before it was ready',
    );
    expect(first?.error).toContain('RuntimeError: no Neuron devices found');
    expect(first?.error).toContain('servers/served/server-1.clean.log');
    expect(second?.error).toContain('it is not tried again');
    expect(await serverPids()).toHaveLength(2);
    expect(await stillRunning()).toEqual([]);
    expect(first?.server).toMatchObject({ starts: 1 });
    expect(first?.server?.startupSeconds).toBeUndefined();
    expect(renderComment(report)).toContain('🖥️ **Server**: never ready (see the error)');
  });

  it('fails the run during which the server exits, with the end of its log', async () => {
    const { report } = await gate(config({ serverArgs: ['--exit-after-requests', '1'] }));
    const [only] = report.benchmarks;
    expect(only?.verdict).toBe('error');
    expect(only?.error).toContain('served: run 2 (clean) failed: the command exited with code 1');
    expect(only?.error).toContain('Meanwhile the server exited with code 7 during the run.');
    expect(only?.error).toContain('toy server: crashed at request 2');
    expect(await stillRunning()).toEqual([]);
  });
});

describe('a benchmark that times out', () => {
  it('is stopped, and so is its server', async () => {
    const yaml = config({ entry: ['    timeout-minutes: 0.02'] }).replace(
      'command: node bench.mjs',
      'command: sleep 30',
    );
    const { report } = await gate(yaml);
    expect(report.benchmarks[0]?.error).toContain('did not finish within timeout-minutes');
    expect(await serverPids()).toHaveLength(2);
    expect(await stillRunning()).toEqual([]);
  });
});

describe('a profiled run of a benchmark with a server', () => {
  it('gets a server of its own, started with the profiler variables', async () => {
    const { report } = await gate(
      config({ top: ['runs: 1'] }).replace('profile: false', 'profile: true'),
    );
    const starts = (await readFile(join(workspace, 'env.txt'), 'utf8')).trim().split('\n');
    expect(starts).toEqual(['inspect= benchmark=served', 'inspect=1 benchmark=served']);
    expect(report.benchmarks[0]?.server).toMatchObject({
      starts: 2,
      logs: ['servers/served/server-1.clean.log', 'servers/served/server-2.profiled.log'],
    });
    expect(await stillRunning()).toEqual([]);
  });
});

describe('a sweep with a server and a profiled run per variant', () => {
  it("times every clean start, the later variants' too, on the first", async () => {
    const { report, log } = await gate(
      config({ entry: SWEEP, top: ['runs: 1'] }).replace('profile: false', 'profile: true'),
    );
    const [first, second] = report.benchmarks;
    // Clean, profiled, clean, profiled, clean, profiled: one clean start per variant.
    expect(first?.server).toMatchObject({ starts: 6, cleanStarts: 3 });
    const startup = first?.result?.metrics.find((m) => m.id === 'server_startup');
    expect(startup?.values).toHaveLength(3);
    for (const value of startup!.values) expect(value).toBeGreaterThanOrEqual(0.3);
    expect(first?.server?.startupSeconds).toBe([...startup!.values].sort((a, b) => a - b)[1]);
    expect(second?.result?.metrics.map((m) => m.id)).not.toContain('server_startup');
    expect(log.lines).toContain('served/low: server_startup judged again, on 3 clean starts');
    expect(renderComment(report)).toMatch(
      /ready \*\*\d\.\d{3} s\*\* after it was launched \(the median of 3 clean starts\), started 6 times/,
    );
  });
});

describe('a confirmation restart', () => {
  it('stops the server and starts it again: a clean start like any other, the server left up', async () => {
    await writeFile(join(workspace, '.github/perf-gate.yml'), config());
    const resolved = await resolveGateConfig({}, { workspace });
    const log = new MemoryLogger();
    const session = (await openSharedServer(resolved.benchmarks, {
      runner: createProcessRunner(),
      log,
      baseEnv: { PATH: process.env.PATH },
      outDir: resolved.outDir,
    }))!;
    try {
      expect((await session.before({ index: 1, kind: 'clean' })).ok).toBe(true);
      const restarted = await session.restart(1, 'confirmation restart 1 of 10');
      expect(restarted).toMatchObject({ ok: true, startupMs: expect.any(Number) });
      expect(session.starts.map((s) => [s.kind, s.startupMs !== undefined])).toEqual([
        ['clean', true],
        ['clean', true],
      ]);
      expect(serverStartupMetric(session.starts)?.values).toHaveLength(2);
      // The next run finds the restarted server up: no third start.
      expect((await session.before({ index: 2, kind: 'clean' })).ok).toBe(true);
      expect(session.starts).toHaveLength(2);
      expect(log.lines.join('\n')).toContain(
        'served: server start 2 (confirmation restart 1 of 10)',
      );
    } finally {
      await session.close();
    }
    // The first server and its worker, then the second: all stopped.
    expect(await serverPids()).toHaveLength(4);
    expect(await stillRunning()).toEqual([]);
  });
});

describe('confirmation restarts through the gate', () => {
  it('restarts the server while server_startup is undecided, and fails the slower restarts', async () => {
    // Stored gate runs whose server was ready in 50 ms (first start) and 40 ms (restarts):
    // the toy's first start (300 ms and more) is far beyond them, alone undecided (the
    // newest stored first start was not beyond: one value a gate run), so the gate
    // restarts the server and judges its restarts against the stored restarts.
    const stored = (i: number) => [0.05 + 0.001 * (i % 3), 0.04 + 0.0005 * (i % 4), 0.04];
    const records = Array.from({ length: 20 }, (_, i) => stored(i));
    // Stored requests far slower than the toy's (5 s): the request is an improvement, decided
    // at the first look, so the start-up alone keeps the looks open. (Stored at 5 ms, the
    // request failed at the first look whenever its interval came out tight, and a failed
    // benchmark takes no more looks.)
    const requests = records.map((_, i) => [5000 + 100 * (i % 3), 5100, 4900]);
    const baseline: Baseline = {
      source: 'records',
      benchmarks: [
        {
          name: 'served',
          format: 'custom-smaller-is-better',
          metrics: [
            {
              id: 'request',
              unit: 'ms',
              direction: 'lower-is-better',
              values: requests.slice(0, 5).flat(),
              records: [3, 3, 3, 3, 3],
              olderRecords: requests.slice(5),
            },
            {
              id: 'server_startup',
              unit: 's',
              direction: 'lower-is-better',
              values: records.slice(0, 5).flat(),
              records: [3, 3, 3, 3, 3],
              olderRecords: records.slice(5),
            },
          ],
          runs: [],
        },
      ],
    };
    await writeFile(
      join(workspace, '.github/perf-gate.yml'),
      config().replace('confirm-runs: 0', 'confirm-runs: 2'),
    );
    const resolved = await resolveGateConfig({}, { workspace });
    const log = new MemoryLogger();
    const report = await runGate(resolved, {
      runner: createProcessRunner(),
      log,
      baselineStore: { load: async () => baseline },
      env: { PATH: process.env.PATH },
    });
    const [only] = report.benchmarks;
    const startup = only?.metrics.find((m) => m.id === 'server_startup');
    expect(only?.confirmation).toMatchObject({
      restarts: 1,
      metricsBefore: expect.arrayContaining([
        { id: 'server_startup', verdict: 'inconclusive', change: expect.any(Number) },
      ]),
    });
    expect(startup?.verdict).toBe('regression');
    expect(startup?.reason).toContain('the restarts compared');
    expect(only?.server).toMatchObject({ starts: 2, cleanStarts: 2 });
    expect(log.lines.join('\n')).toContain('served: server start 2 (confirmation restart 1 of 2)');
    expect(renderComment(report)).toContain(
      '1 confirmation restart(s) of the server (server_startup: every clean start judged together): pass → regression',
    );
    expect(await stillRunning()).toEqual([]);
  });
});

describe('serverStartupMetric', () => {
  const start = (kind: 'clean' | 'profiled', startupMs?: number): ServerStartRecord => ({
    kind,
    run: 1,
    logPath: `server.${kind}.log`,
    ...(startupMs === undefined ? {} : { startupMs }),
  });

  it('has one value per clean start that became ready, never a profiled one', () => {
    const starts = [
      start('clean', 2000),
      start('profiled', 9000),
      start('clean', 1500),
      start('profiled', 9000),
      start('clean', 1800),
    ];
    expect(serverStartupMetric(starts)).toEqual({
      id: 'server_startup',
      unit: 's',
      direction: 'lower-is-better',
      values: [2, 1.5, 1.8],
    });
  });

  it('leaves out a start that never became ready, and is undefined without one', () => {
    expect(serverStartupMetric([start('clean', 2000), start('clean')])?.values).toEqual([2]);
    expect(serverStartupMetric([start('clean')])).toBeUndefined();
    expect(serverStartupMetric([start('profiled', 2000)])).toBeUndefined();
  });

  it('gives the report the median of the clean starts, and how many there were', () => {
    const session = {
      starts: [
        start('clean', 3000),
        start('profiled', 9000),
        start('clean', 1000),
        start('clean', 2000),
      ],
      warnings: [],
      lastStopNote: () => 'SIGTERM, 0.1 s',
    } as unknown as ServerSession;
    const report = { name: 'served', warnings: [] } as unknown as BenchmarkReport;
    const [summarised] = withServerSummary([report], session, '/out');
    expect(summarised?.server).toMatchObject({ startupSeconds: 2, cleanStarts: 3, starts: 4 });
  });
});

describe('serverGroups', () => {
  const spec = (name: string, sweep?: string, server = true): BenchmarkSpec =>
    ({
      name: sweep ? `${sweep}/${name}` : name,
      ...(sweep ? { sweep: { name: sweep, variant: name, params: {} } } : {}),
      ...(server ? { server: {} } : {}),
    }) as BenchmarkSpec;

  it("puts a sweep's variants together, and every other benchmark on its own", () => {
    const groups = serverGroups([
      spec('a', 'serve'),
      spec('b', 'serve'),
      spec('plain', undefined, false),
      spec('x', 'other', false),
      spec('y', 'other', false),
      spec('one'),
    ]);
    expect(groups.map((group) => group.map((s) => s.name))).toEqual([
      ['serve/a', 'serve/b'],
      ['plain'],
      ['other/x'],
      ['other/y'],
      ['one'],
    ]);
  });
});

// A pull request's ready-log, through the bundled CLI: '^(a+)+$' against a line of 42 `a`s
// and a `!` held the gate's event loop for hours with JavaScript's RegExp (issue 51). With
// RE2 the gate ends with the benchmark's own deadline and a report, within timeout-minutes
// + 1 minute, in both places a ready-log is given; what RE2 cannot match (a back-reference)
// ends at config time with exit 2, naming the file and the field.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { setTimeout as pause } from 'node:timers/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { CLI, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const EVIL = '^(a+)+$';
/** 200 lines that each take a backtracking engine 2^42 steps to refuse. */
const EVIL_LINES = `for i in $(seq 200); do printf '%s!\\n' ${'a'.repeat(42)}; done`;
const TIMEOUT_MINUTES = 0.1;
/** The issue's bound: the benchmark's own deadline, plus a minute for the rest. */
const BOUND_MS = (TIMEOUT_MINUTES + 1) * 60_000;

const entry = (more: string, command = 'offline-benchmark --output-file "$PERF_GATE_OUTPUT"') =>
  `benchmarks:
  - name: redos
    command: ${JSON.stringify(command)}
    format: offline-benchmark
    runs: 1
    confirm-runs: 0
    profile: false
    timeout-minutes: ${TIMEOUT_MINUTES}
${more}`;

async function gate(dir: string, name: string, yaml: string, sim: Record<string, string> = {}) {
  await writeFile(join(dir, `${name}.yml`), yaml);
  const args = ['run', '--config', `${name}.yml`, '--out', name, '--quiet'];
  const started = performance.now();
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (done) =>
      // A gate whose loop is held never ends by itself: killed past the bound, it fails
      // the test instead of outliving it.
      execFile(
        process.execPath,
        [CLI, ...args],
        { cwd: dir, env: simulatorEnv(sim), timeout: BOUND_MS + 10_000, killSignal: 'SIGKILL' },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          done({ code, stdout, stderr });
        },
      ),
  );
  return { ...result, elapsedMs: performance.now() - started };
}

const report = async (dir: string, name: string) =>
  JSON.parse(await readFile(join(dir, name, 'report.json'), 'utf8'));

describe('a catastrophic ready-log pattern (bundled CLI)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-redos-');
  });

  it(
    'in server:, ends at start-timeout with a report',
    async () => {
      const server = `    server:
      command: ${JSON.stringify(`${EVIL_LINES}; exec sleep 120`)}
      ready-log: '${EVIL}'
      start-timeout: 3s
      stop-grace-period: 1s
`;
      const result = await gate(dir, 'server', entry(server));
      expect(result.elapsedMs).toBeLessThan(BOUND_MS);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stdout).toContain('the server was not ready within start-timeout (3 s)');
      const error = JSON.stringify((await report(dir, 'server')).benchmarks[0]);
      expect(error).toContain(`no line of its output matched ready-log /${EVIL}/`);
    },
    BOUND_MS + 20_000,
  );

  it(
    "in startup:, ends at the benchmark's timeout-minutes with a report",
    async () => {
      const command = `${EVIL_LINES}; offline-benchmark --output-file "$PERF_GATE_OUTPUT"`;
      const result = await gate(
        dir,
        'startup',
        entry(`    startup: { ready-log: '${EVIL}' }\n`, command),
        { SIM_HANG: '1' },
      );
      expect(result.elapsedMs).toBeLessThan(BOUND_MS);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stdout).toMatch(/did not finish within timeout-minutes \(0\.1 min\)/);
      expect((await report(dir, 'startup')).benchmarks[0].name).toBe('redos');
    },
    BOUND_MS + 20_000,
  );

  it(
    'in server:, leaves the SIGTERM handler free: a cancelled job exits 143',
    async () => {
      const server = `    server:
      command: ${JSON.stringify(`while true; do ${EVIL_LINES}; sleep 0.5; done`)}
      ready-log: '${EVIL}'
      start-timeout: 10m
      stop-grace-period: 1s
`;
      await writeFile(join(dir, 'cancel.yml'), entry(server));
      const args = ['run', '--config', 'cancel.yml', '--out', 'cancel', '--quiet'];
      const gate = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: simulatorEnv() });
      const ended = new Promise<number | null>((done) => gate.on('exit', (code) => done(code)));
      // A gate whose loop is held would outlive the test: killed past the bound, whatever happens.
      const killer = setTimeout(() => gate.kill('SIGKILL'), 2 * BOUND_MS);
      try {
        const log = join(dir, 'cancel', 'servers', 'redos', 'server-1.clean.log');
        const logged = async () => (await stat(log).catch(() => undefined))?.size ?? 0;
        // Poll (generous deadline) until the gate has taken in thousands of the lines; it
        // logs a chunk after matching it.
        const enough = 3 * 200 * 44;
        const deadline = performance.now() + BOUND_MS;
        while ((await logged()) < enough && performance.now() < deadline) await pause(100);
        const sent = performance.now();
        gate.kill('SIGTERM');
        const code = await ended;
        expect(performance.now() - sent).toBeLessThan(BOUND_MS);
        expect(code).toBe(143);
        expect(await logged()).toBeGreaterThanOrEqual(enough);
      } finally {
        clearTimeout(killer);
        gate.kill('SIGKILL');
      }
    },
    3 * BOUND_MS,
  );

  it('exits 2 at config time on a back-reference, in both places, naming file and field', async () => {
    const server = `    server: { command: 'sleep 120', ready-log: '(a+)\\1!' }\n`;
    const startup = `    startup: { ready-log: '(a+)\\1!' }\n`;
    for (const [name, more, field] of [
      ['backref-server', server, 'server.ready-log'],
      ['backref-startup', startup, 'startup.ready-log'],
    ] as const) {
      const result = await gate(dir, name, entry(more));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${name}.yml:9:`);
      expect(result.stderr).toContain(
        `benchmarks[0].${field}: found "(a+)\\\\1!"; a back-reference`,
      );
      expect(result.stderr).toContain('such as (ab)ab instead of (ab)\\1');
    }
  });
});

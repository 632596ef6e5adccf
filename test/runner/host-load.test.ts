import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hostLoadBetween,
  parseCpuLine,
  parseProcessStat,
  readHostTicks,
  treeTicks,
  uidOfOwnProcesses,
  type HostTicks,
} from '../../src/runner/host-load.js';
import {
  PROCESS_MARKER_VARIABLE,
  issuedMarkerEntries,
  newProcessMarker,
} from '../../src/runner/leftovers.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { hostLoad } from '../support/host-loads.js';

const onLinux = process.platform === 'linux';

/** A node process that spins until it has used `ms` of CPU time (not of the clock). */
const SPIN = (ms: number) =>
  `const u=()=>{const c=process.cpuUsage();return (c.user+c.system)/1000};while(u()<${ms}){}`;

describe('parseCpuLine', () => {
  it('reads the aggregate cpu line: busy, steal and the total', () => {
    const text = 'cpu  100 5 50 800 20 3 2 10 7 0\ncpu0 50 2 25 400 10 1 1 5 0 0\nintr 1\n';
    expect(parseCpuLine(text)).toEqual({ total: 990, busy: 160, steal: 10 });
  });

  it('is undefined without the line', () => {
    expect(parseCpuLine('cpu0 1 2 3 4\n')).toBeUndefined();
  });
});

describe('parseProcessStat', () => {
  it('reads the parent and utime + stime + cutime + cstime past a name with parentheses', () => {
    const fields = [
      'S',
      '17',
      '9',
      '9',
      '0',
      '-1',
      '0',
      '1',
      '2',
      '3',
      '4',
      '30',
      '12',
      '200',
      '8',
    ];
    expect(parseProcessStat(`42 (a) b (c) ${fields.join(' ')} 20 0 1`)).toEqual({
      ppid: 17,
      ticks: 30 + 12 + 200 + 8,
    });
  });
});

describe('hostLoadBetween', () => {
  const at = (total: number, busy: number, steal: number, own: number): HostTicks => ({
    total,
    busy,
    steal,
    own,
  });

  it('counts busy time less the gate tree’s own as others’, steal apart', () => {
    expect(hostLoadBetween(at(0, 0, 0, 0), at(200, 120, 10, 50))).toEqual(hostLoad(0.35, 0.05));
  });

  it('gives no figure for a span too short to tell', () => {
    expect(hostLoadBetween(at(0, 0, 0, 0), at(10, 5, 0, 0))).toBeUndefined();
  });
});

async function ticksOf(pid: number): Promise<number> {
  return parseProcessStat(await readFile(`/proc/${pid}/stat`, 'utf8'))!.ticks;
}

/**
 * An orphaned spinner (`&` in a shell that then exits: no descendant of the gate's) with
 * `env` added to its environment, run as `uid` when given.
 */
async function orphanSpinner(env: Record<string, string> = {}, uid?: number): Promise<number> {
  const shell = spawn('sh', ['-c', `node -e '${SPIN(600_000)}' >/dev/null 2>&1 & echo $!`], {
    env: { ...process.env, ...env },
    ...(uid === undefined ? {} : { uid, cwd: '/' }),
  });
  let out = '';
  shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((done) => shell.on('close', done));
  return Number(out.trim());
}

/** Polls until process `pid` has used `ticks` more of CPU, however long the loaded host takes. */
async function untilSpun(pid: number, from: number, ticks = 50): Promise<number> {
  for (let now = await ticksOf(pid); now - from < ticks; now = await ticksOf(pid)) await wait(20);
  return (await ticksOf(pid)) - from;
}

describe.runIf(onLinux)('on this Linux machine', () => {
  let dir: string;
  let spinner: number | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'host-load-'));
  });
  afterEach(async () => {
    if (spinner !== undefined) process.kill(spinner, 'SIGKILL');
    spinner = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it("counts a spinning child of the gate's as its own, not as other load", async () => {
    const before = await readHostTicks();
    const result = await createProcessRunner().run({
      command: `node -e '${SPIN(400)}'`,
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 60_000,
      logPath: join(dir, 'run.log'),
      onOutput: () => {},
      tailLines: 5,
    });
    const after = await readHostTicks();
    expect(result.exitCode).toBe(0);
    expect(result.hostLoad).toBeDefined();
    // 400 ms of CPU is 40 ticks: the child's (reaped) time is in the gate tree's own.
    expect(after!.own - before!.own).toBeGreaterThanOrEqual(36);
    const load = hostLoadBetween(before!, after!)!;
    const ownShare = (after!.own - before!.own) / (after!.total - before!.total);
    const busyShare = (after!.busy - before!.busy) / (after!.total - before!.total);
    // The host-wide and per-process tick counters are sampled apart, so own can exceed busy by a
    // tick or two: the figure is clamped at 0 then, and must be no more than what is left.
    expect(load.other).toBeLessThanOrEqual(Math.max(0, busyShare - ownShare) + 0.001);
  }, 120_000);

  it('counts a spinning process outside the gate’s tree as other load', async () => {
    spinner = await orphanSpinner();
    const start = await readHostTicks();
    const spunFrom = await ticksOf(spinner);
    await untilSpun(spinner, spunFrom);
    const end = await readHostTicks();
    const spun = (await ticksOf(spinner)) - spunFrom;
    const own = end!.own - start!.own;
    const other = end!.busy - start!.busy - own;
    expect(own).toBeLessThan(spun);
    // Ticks of one process and of /proc/stat are sampled apart: a few ticks of slack.
    expect(other).toBeGreaterThanOrEqual(spun - 5);
    expect(hostLoadBetween(start!, end!)!.other).toBeGreaterThan(0);
  }, 120_000);
});

describe.runIf(onLinux)('a process that left the gate’s tree', () => {
  let spinner: number | undefined;
  afterEach(() => {
    if (spinner !== undefined) process.kill(spinner, 'SIGKILL');
    spinner = undefined;
  });

  /**
   * The gate tree's own ticks, as treeTicks reads them for processes of `uid`, while the
   * spinner uses 0.5 s of CPU, and the spinner's.
   */
  async function ownWhileSpinning(pid: number, markers: string[], uid = uidOfOwnProcesses()) {
    const start = await treeTicks(process.pid, '/proc', markers, uid);
    const spunFrom = await ticksOf(pid);
    await untilSpun(pid, spunFrom);
    const own = (await treeTicks(process.pid, '/proc', markers, uid))! - start!;
    return { own, spun: (await ticksOf(pid)) - spunFrom };
  }

  /** A marker handed out by this gate, and the environment that carries it. */
  function gateMarker(): Record<string, string> {
    return { [PROCESS_MARKER_VARIABLE]: newProcessMarker() };
  }

  it('is the gate’s own when it carries one of the gate’s run markers', async () => {
    spinner = await orphanSpinner(gateMarker());
    const { own, spun } = await ownWhileSpinning(spinner, issuedMarkerEntries());
    // Sampled apart from the spinner's own reading: a few ticks of slack.
    expect(own).toBeGreaterThanOrEqual(spun - 5);
  }, 120_000);

  it('is another’s when its marker is one the gate never handed out', async () => {
    spinner = await orphanSpinner({ [PROCESS_MARKER_VARIABLE]: 'another-gate-on-this-host' });
    const { own, spun } = await ownWhileSpinning(spinner, issuedMarkerEntries());
    expect(own).toBeLessThan(spun);
  }, 120_000);

  it('is another’s, its environment not read, when another uid owns it', async () => {
    // As the gate would see it were it run by another user than this test's.
    spinner = await orphanSpinner(gateMarker());
    const otherUid = (process.getuid?.() ?? 0) + 1;
    const { own, spun } = await ownWhileSpinning(spinner, issuedMarkerEntries(), otherUid);
    expect(own).toBeLessThan(spun);
  }, 120_000);

  it.runIf(process.getuid?.() === 0)(
    'is another’s when it runs as another user, marker and all (real /proc)',
    async () => {
      spinner = await orphanSpinner(gateMarker(), 65_534);
      const { own, spun } = await ownWhileSpinning(spinner, issuedMarkerEntries(), 0);
      expect(own).toBeLessThan(spun);
    },
    120_000,
  );
});

describe('uidOfOwnProcesses', () => {
  it('is the gate’s own uid, or any (undefined) for root', () => {
    const uid = process.getuid?.();
    expect(uidOfOwnProcesses()).toBe(uid === 0 ? undefined : uid);
  });
});

// The server one or more runs of a benchmark talk to: started before the first run that
// needs it, kept for the runs after (every variant of a sweep), and stopped at the end.
// A profiled run gets a server of its own, started with the profiler's variables: the
// Neuron runtime reads them once, when the server's process starts, and a session profile
// is written when that process exits.

import { basename } from 'node:path';
import { formatDurationSetting } from '../config/duration.js';
import { paramEnvironment } from '../config/sweep.js';
import type { BenchmarkSpec, ServerSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import type { ProfileCapture, RunKind } from '../model.js';
import { formatDuration } from '../text/duration.js';
import { childEnvironment } from './child-env.js';
import { describeLeftovers } from './leftovers.js';
import { cleanRunEnv, profiledRunEnv } from './profiler-env.js';
import { newServerMarker, type ProcessMarker } from './server-marker.js';
import {
  startServer,
  type RunningServer,
  type ServerFailure,
  type ServerStopped,
} from './server.js';
import type { ProcessRunner } from './types.js';

/** A run as the server sees it. */
export interface ServedRun {
  index: number;
  kind: RunKind;
  /** Set for the profiled run: where its profile goes. */
  profileDir?: string;
  capture?: ProfileCapture;
}

export interface ServerSessionOptions {
  runner: ProcessRunner;
  log: Logger;
  /** The gate's environment; the server gets what a benchmark would (child-env.ts). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** For the log: the benchmark, or the sweep whose variants share the server. */
  label: string;
  /** Where the log of start `number` (1, 2, …) for `run` goes. */
  logPathOf: (number: number, run: ServedRun) => string;
  /** Stop the server after every run (A/B mode) instead of keeping it for the next. */
  perRun?: boolean;
}

/** How each start went, in order. */
export interface ServerStartRecord {
  kind: RunKind;
  /** The run it was started for. */
  run: number;
  logPath: string;
  /** Launch → ready, when it became ready. */
  startupMs?: number;
}

export type ServerReadiness =
  { ok: true; startupMs?: number } | { ok: false; failure: ServerFailure };

type Spec = BenchmarkSpec & { server: ServerSpec };

export class ServerSession {
  readonly starts: ServerStartRecord[] = [];
  readonly warnings: string[] = [];
  private current: { server: RunningServer; kind: RunKind } | undefined;
  /** A start that failed: later runs fail at once instead of waiting for it again. */
  private failure: ServerFailure | undefined;
  private lastStop: (ServerStopped & { bySelf: boolean }) | undefined;
  /** In every server process's environment: how its memory is found (observe/server-rss.ts). */
  private readonly marker = newServerMarker();

  constructor(
    private readonly spec: Spec,
    private readonly options: ServerSessionOptions,
  ) {}

  /** The server the run needs, started when it is not already running. */
  async before(run: ServedRun): Promise<ServerReadiness> {
    const failed = this.earlierFailure();
    if (failed) return failed;
    if (this.current && (run.kind === 'profiled' || this.current.kind === 'profiled')) {
      await this.stop();
    }
    if (this.current?.server.exited()) await this.stop();
    if (this.current) return { ok: true };
    return this.start(run);
  }

  /**
   * A clean start more, to confirm the start-up (compare/confirmation-looks.ts): the
   * running server is stopped and started again, and its ready time is a start like any
   * other. The server stays up for the runs after. `run`: the last run so far.
   */
  async restart(run: number, purpose: string): Promise<ServerReadiness> {
    const failed = this.earlierFailure();
    if (failed) return failed;
    await this.stop();
    return this.start({ index: run, kind: 'clean' }, ` (${purpose})`);
  }

  /** After a run: a profiled server stops (its profile is written then), as does a per-run one. */
  async after(run: ServedRun): Promise<void> {
    if (this.options.perRun || run.kind === 'profiled') await this.stop();
  }

  /**
   * For the error of a run that failed: whether the server had exited during it, and the
   * end of the server's log. Undefined without a server.
   */
  duringRun(): { exited?: string; tail: string[]; logPath: string } | undefined {
    const server = this.current?.server;
    if (!server) return undefined;
    const end = server.exited();
    const exited =
      end === undefined
        ? undefined
        : 'spawnError' in end
          ? 'the server could not be started'
          : end.code === null
            ? `the server was killed by ${end.signal ?? 'a signal'} during the run`
            : `the server exited with code ${end.code} during the run`;
    return { ...(exited ? { exited } : {}), tail: server.tail(), logPath: server.logPath };
  }

  /** The marker of the running server's processes; undefined when none runs. */
  runningMarker(): ProcessMarker | undefined {
    return this.current ? this.marker : undefined;
  }

  /** Stops what is running; the gate calls it once the runs that share the server are done. */
  async close(): Promise<void> {
    await this.stop();
  }

  /** How the last stop went, for the report: "SIGTERM, 1.2 s". */
  lastStopNote(): string | undefined {
    if (!this.lastStop) return undefined;
    const { end, durationMs, killed, bySelf } = this.lastStop;
    if (bySelf) {
      return 'spawnError' in end || end.code === null
        ? 'it had ended by itself'
        : `it had exited with code ${end.code} by itself`;
    }
    const how =
      killed.length > 0
        ? `SIGKILL after ${this.spec.server.stopSignal}`
        : this.spec.server.stopSignal;
    return `${how}, ${formatDuration(durationMs)}`;
  }

  /** A start that failed earlier: said in full (with the log's end) by the run it failed for. */
  private earlierFailure(): ServerReadiness | undefined {
    if (!this.failure) return undefined;
    const error = `${this.failure.error} (This was its start for an earlier run; it is not tried again.)`;
    return { ok: false, failure: { ...this.failure, error, tail: [] } };
  }

  private async start(run: ServedRun, why = ''): Promise<ServerReadiness> {
    const { log, label, runner } = this.options;
    const number = this.starts.length + 1;
    const logPath = this.options.logPathOf(number, run);
    const record: ServerStartRecord = { kind: run.kind, run: run.index, logPath };
    this.starts.push(record);
    const purpose = run.kind === 'profiled' ? ` for the profiled run ${run.index}` : why;
    log.startGroup(`${label}: server start ${number}${purpose}`);
    const started = await startServer(this.spec.server, {
      runner,
      cwd: this.spec.workingDirectory,
      env: this.environment(run),
      logPath,
      onStartupOutput: (chunk) => log.output(chunk),
    }).finally(() => log.endGroup());
    if (!started.ok) {
      log.warning(`${label}: ${started.failure.error}`);
      // A profiled server that fails costs the profile; the next clean run tries again.
      if (run.kind === 'clean') this.failure = started.failure;
      return started;
    }
    record.startupMs = started.server.startupMs;
    log.info(
      `${label}: the server was ready ${formatDuration(started.server.startupMs)} after it was launched (log: ${basename(logPath)})`,
    );
    this.current = { server: started.server, kind: run.kind };
    return { ok: true, ...(run.kind === 'clean' ? { startupMs: started.server.startupMs } : {}) };
  }

  private async stop(): Promise<void> {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    const bySelf = current.server.exited() !== undefined;
    const stopped = await current.server.stop();
    this.lastStop = { ...stopped, bySelf };
    const { label, log } = this.options;
    log.info(`${label}: the server was stopped (${this.lastStopNote() ?? ''})`);
    if (bySelf) {
      this.warn(
        `the server ended by itself before the gate stopped it (${this.lastStopNote() ?? ''}; see ${basename(current.server.logPath)})`,
      );
    }
    const grace = formatDurationSetting(this.spec.server.stopGraceSeconds);
    if (stopped.killed.length > 0) {
      this.warn(
        `the server did not exit within stop-grace-period (${grace}) of ${this.spec.server.stopSignal}; SIGKILL stopped ${describeLeftovers(stopped.killed)}`,
      );
    }
    if (stopped.survived.length > 0) {
      this.warn(`the server left ${describeLeftovers(stopped.survived)} running`);
    }
  }

  private warn(warning: string): void {
    this.options.log.warning(`${this.options.label}: ${warning}`);
    if (!this.warnings.includes(warning)) this.warnings.push(warning);
  }

  /**
   * What a benchmark run would get (inherited variables through the allow-list, its
   * `env`), the server's own `env` over it, the profiler's variables only for a
   * profiled run, PERF_GATE_BENCHMARK and the marker of its processes.
   */
  private environment(run: ServedRun): Record<string, string> {
    const server = this.spec.server;
    const inherited = {
      ...childEnvironment(this.options.baseEnv),
      ...this.spec.env,
      ...server.env,
      // A server setting of `sweep: settings:`: its parameters as PERF_GATE_PARAM_<NAME>.
      ...paramEnvironment(this.spec.sweep?.setting?.params ?? {}),
    };
    const env =
      run.profileDir === undefined
        ? cleanRunEnv(inherited)
        : profiledRunEnv(inherited, run.profileDir, run.capture?.mode, {
            ...this.spec.env,
            ...server.env,
          });
    return {
      ...env,
      PERF_GATE_BENCHMARK: this.options.label,
      [this.marker.variable]: this.marker.value,
    };
  }
}

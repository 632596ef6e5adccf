// The real Measurer: each commit in its own git worktree, the --command hook run there
// first (a rebuild), the environment probed there after it, then the benchmark's clean
// runs through the gate's runner and parsers. Runs are numbered across the whole
// bisection (PERF_GATE_RUN), so no two runs share a seed however the benchmark uses it.

import { join } from 'node:path';
import type { BenchmarkSpec } from '../config/types.js';
import { probeEnvironmentWithWarnings } from '../environment/probe.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Environment, Metric, RunOutcome } from '../model.js';
import { memoryMetrics } from '../observe/memory-figures.js';
import { memoryObserver } from '../observe/run-observer.js';
import { parseCleanRuns } from '../runner/measured.js';
import { childEnvironment } from '../runner/child-env.js';
import { LOG_TAIL_LINES, runConfirmationRuns, timeoutMsOf } from '../runner/benchmark.js';
import type { ProcessRunner } from '../runner/types.js';
import { short } from './commits.js';
import { UnmeasurableCommit, type Measured, type Measurer } from './search.js';
import { movedInto, type Worktrees } from './worktrees.js';
import { howItFailed, outputTail } from '../runner/failure.js';

export interface WorktreeMeasurerOptions {
  worktrees: Worktrees;
  /** The repository's top folder: the spec's working directory is moved from it into each worktree. */
  root: string;
  spec: BenchmarkSpec;
  /** Run under bash in each worktree before its first run (`--command`). */
  hook?: string;
  runner: ProcessRunner;
  log: Logger;
  env: Record<string, string | undefined>;
  /** Run logs and results go to <outDir>/<sha7>/. */
  outDir: string;
  /** The config's environment-probe command, if any. */
  probeCommand?: string;
}

interface CommitState {
  dir: string;
  spec: BenchmarkSpec;
  outcomes: RunOutcome[];
  environment: Environment;
}

export class WorktreeMeasurer implements Measurer {
  private readonly states = new Map<string, CommitState>();
  private nextRun = 1;

  constructor(private readonly options: WorktreeMeasurerOptions) {}

  async measure(sha: string, runs: number): Promise<Measured> {
    const state = this.states.get(sha) ?? (await this.checkOut(sha));
    const { log, runner, env } = this.options;
    const outDir = this.outDirOf(sha);
    const { monitor, workingDirectory } = state.spec;
    const outcomes = await runConfirmationRuns(state.spec, {
      runner,
      // monitor: memory is a per-run metric like a timing, so it can be bisected too.
      ...(monitor
        ? { observe: memoryObserver(monitor, { runner, cwd: workingDirectory, outDir }) }
        : {}),
      log,
      baseEnv: env,
      profile: false,
      outDir,
      firstIndex: this.nextRun,
      count: runs,
      purpose: `${short(sha)} run`,
    });
    this.nextRun += runs;
    state.outcomes.push(...outcomes);
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed) throw runFailure(sha, failed);
    try {
      const [result] = await parseCleanRuns(state.spec, state.outcomes);
      if (!result) throw new Error('no benchmark in the result files');
      return {
        metrics: [...result.metrics, ...this.memoryOf(sha, state, outcomes)],
        environment: state.environment,
        runs: state.outcomes.length,
      };
    } catch (error) {
      throw new UnmeasurableCommit(
        `commit ${short(sha)}: the benchmark wrote a result the gate cannot read: ${errorMessage(error)}`,
      );
    }
  }

  /** The commit's memory metrics (`monitor:`), one value a run; the new runs' warnings logged. */
  private memoryOf(sha: string, state: CommitState, added: RunOutcome[]): Metric[] {
    if (!state.spec.monitor) return [];
    for (const warning of memoryMetrics(added).warnings) {
      this.options.log.warning(`${short(sha)}: ${warning}`);
    }
    return memoryMetrics(state.outcomes).metrics;
  }

  async release(sha: string): Promise<void> {
    this.states.delete(sha);
    await this.options.worktrees.remove(sha);
  }

  private async checkOut(sha: string): Promise<CommitState> {
    const { worktrees, log } = this.options;
    const dir = await worktrees.add(sha);
    log.info(`${short(sha)}: checked out in ${dir}`);
    const commitEnv = { ...this.options.env, PERF_GATE_COMMIT: sha, PERF_GATE_WORKTREE: dir };
    if (this.options.hook) await this.runHook(sha, dir, commitEnv);
    // Probed with the benchmark's own variables too: a config that points PATH at a
    // virtualenv means that virtualenv's pip.
    const probed = await probeEnvironmentWithWarnings(
      { ...commitEnv, ...this.options.spec.env },
      {
        runner: this.options.runner,
        cwd: dir,
        ...(this.options.probeCommand ? { probeCommand: this.options.probeCommand } : {}),
      },
    );
    for (const warning of probed.warnings) log.warning(`${short(sha)}: ${warning}`);
    const spec: BenchmarkSpec = {
      ...this.options.spec,
      workingDirectory: movedInto(this.options.root, dir, this.options.spec.workingDirectory),
      env: { ...this.options.spec.env, PERF_GATE_COMMIT: sha, PERF_GATE_WORKTREE: dir },
    };
    const state: CommitState = {
      dir,
      spec,
      outcomes: [],
      environment: probed.environment,
    };
    this.states.set(sha, state);
    return state;
  }

  private async runHook(
    sha: string,
    dir: string,
    env: Record<string, string | undefined>,
  ): Promise<void> {
    const { log, runner, spec } = this.options;
    const hook = this.options.hook!;
    const logPath = join(this.outDirOf(sha), 'command.log');
    log.startGroup(`${short(sha)}: --command ${hook}`);
    const result = await runner
      .run({
        command: hook,
        cwd: dir,
        env: childEnvironment(env),
        timeoutMs: timeoutMsOf(spec),
        logPath,
        onOutput: (chunk) => log.output(chunk),
        tailLines: LOG_TAIL_LINES,
      })
      .finally(() => log.endGroup());
    if (result.exitCode === 0) return;
    const how = howItFailed(result, `timeout-minutes (${spec.timeoutMinutes})`);
    const tail = outputTail(result);
    throw new UnmeasurableCommit(
      `commit ${short(sha)}: --command ${JSON.stringify(hook)} ${how} (full log: ${logPath}); the commit cannot be measured${tail}`,
    );
  }

  private outDirOf(sha: string): string {
    return join(this.options.outDir, short(sha));
  }
}

function runFailure(sha: string, outcome: RunOutcome): UnmeasurableCommit {
  const tail =
    outcome.logTail.length > 0
      ? `\nLast ${outcome.logTail.length} lines of output (full log: ${outcome.logPath}):\n${outcome.logTail.join('\n')}`
      : '';
  return new UnmeasurableCommit(
    `commit ${short(sha)}: run ${outcome.index} failed: ${outcome.error ?? 'unknown error'}${tail}`,
  );
}

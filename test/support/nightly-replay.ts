// The nightly job replayed night by night over stored records: each night the gate's history
// is read from the records stored so far and its regression issues are synced against the
// loopback GitHub API, as `src/action/gate.ts` does after a nightly run.
import { expect } from 'vitest';
import {
  publishRegressionIssues,
  readGateHistory,
  type GateHistory,
} from '../../src/action/gate-history.js';
import type { BaselineRecord } from '../../src/baseline/record.js';
import { withRecordPaths } from '../../src/history/series.js';
import { MemoryLogger } from '../../src/log.js';
import type { GitHubTest } from './github-test.js';

export interface NightlyReplayOptions {
  /** Records stored each night (one per benchmark), in night order. */
  perNight: number;
  /** The first and last night the job runs on (1-based, inclusive). */
  first: number;
  last: number;
  gateKey?: string;
}

export interface NightlyReplay {
  /** The history the last night's job read. */
  last: GateHistory;
  /** The nights on which the job opened a new issue. */
  opened: number[];
}

/**
 * Runs the nightly job on each night from `first` to `last` against `github`'s API (the
 * repository the API was started for), checking each night that the history could be read
 * and the issues synced without a failure note.
 */
export async function replayNightlyJob(
  github: GitHubTest,
  records: BaselineRecord[],
  options: NightlyReplayOptions,
): Promise<NightlyReplay> {
  const gateKey = options.gateKey ?? 'nightly';
  const log = new MemoryLogger();
  const opened: number[] = [];
  let last: GateHistory | undefined;
  for (let night = options.first; night <= options.last; night += 1) {
    const upTo = withRecordPaths(records.slice(0, night * options.perNight));
    const source = { readStoredRecords: async () => ({ records: upTo, warnings: [] }) };
    const history = await readGateHistory(source, gateKey, 'main', () => undefined, log);
    expect(history, `night ${night}: ${log.lines.join('\n')}`).toBeDefined();
    const before = github.api.state.issues.length;
    const { notes } = await publishRegressionIssues(history!, {
      octokit: github.octokit,
      owner: github.api.state.owner,
      repo: github.api.state.repo,
      gateKey,
      log,
    });
    expect(notes, `night ${night}`).toEqual([]);
    if (github.api.state.issues.length > before) opened.push(night);
    last = history;
  }
  if (!last) throw new Error(`no night between ${options.first} and ${options.last}`);
  return { last, opened };
}

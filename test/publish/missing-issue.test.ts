// The one missing-series issue per gate, against the loopback GitHub API: opened when the
// first series goes missing, updated when the list changes, closed when every series
// reports again, never one per series, and left closed when someone closed it by hand.
import { describe, expect, it } from 'vitest';
import { REGRESSION_LABEL } from '../../src/github/nightly-issue.js';
import type { MissingSeriesView } from '../../src/model.js';
import { missingDigest, missingMarker, syncMissingIssue } from '../../src/publish/missing-issue.js';
import { regressionMarker } from '../../src/publish/regression-issues.js';
import { useGitHubApi } from '../support/github-test.js';

const github = useGitHubApi({ owner: 'octo-org', repo: 'inf2-bench' });
const GATE = 'perf/nightly';

function view(benchmark: string, metric: string, nightsMissed = 3): MissingSeriesView {
  return {
    benchmark,
    metric,
    environment: 'inf2.xlarge/2 cores',
    lastSeen: { commit: 'abc0123'.padEnd(40, '0'), createdAt: '2026-11-20T03:00:00.000Z' },
    nightsMissed,
  };
}

function sync(missing: MissingSeriesView[], gateKey = GATE) {
  return syncMissingIssue(github.octokit, {
    owner: 'octo-org',
    repo: 'inf2-bench',
    gateKey,
    branch: 'main',
    author: github.api.state.actor,
    missing,
    after: 3,
    runUrl: 'https://github.com/octo-org/inf2-bench/actions/runs/9',
    log: github.log,
  });
}

const issuesOfGate = () =>
  github.api.state.issues.filter((i) =>
    (i.body ?? '').startsWith(missingMarker(GATE, '').slice(0, -4)),
  );

describe('the missing-series issue of a gate', () => {
  it('is one issue for every missing series, updated while the list lasts, closed when none is missing', async () => {
    const first = await sync([view('llama', 'throughput'), view('llama', 'latency_p50')]);
    expect(first.action).toBe('opened');
    const number = first.issue!.number;
    let issue = github.api.state.issue(number)!;
    expect(issue.title).toBe(`2 series stopped reporting in ${GATE}`);
    expect(issue.labels).toContain(REGRESSION_LABEL);
    expect(issue.body).toContain('`llama` on inf2.xlarge/2 cores: throughput, latency_p50');
    expect(issue.body).toContain('3 nights missed');

    // The same list a night later: the body's nights change, the issue stays the one.
    const later = await sync([view('llama', 'throughput', 4), view('llama', 'latency_p50', 4)]);
    expect(later).toEqual({ action: 'updated', issue: first.issue });
    expect(github.api.state.issue(number)!.body).toContain('4 nights missed');
    expect(await sync([view('llama', 'throughput', 4), view('llama', 'latency_p50', 4)])).toEqual({
      action: 'none',
      issue: first.issue,
    });

    // Another series goes missing: the same issue lists it.
    const grown = await sync([
      view('llama', 'throughput', 5),
      view('llama', 'latency_p50', 5),
      view('qwen3', 'ttft_p99'),
    ]);
    expect(grown).toEqual({ action: 'updated', issue: first.issue });
    issue = github.api.state.issue(number)!;
    expect(issue.title).toBe(`3 series stopped reporting in ${GATE}`);
    expect(issue.body).toContain('`qwen3`');
    expect(issuesOfGate()).toHaveLength(1);

    // Every series reports again: closed, with a comment saying why.
    expect(await sync([])).toEqual({ action: 'closed' });
    expect(github.api.state.issue(number)!.state).toBe('closed');
    expect(github.api.state.commentsOn(number).map((c) => c.body)).toEqual([
      'neuron-perf-gate: closing, every series of the gate reports again ([this run](https://github.com/octo-org/inf2-bench/actions/runs/9)).',
    ]);
    expect(await sync([])).toEqual({ action: 'none' });

    // The same series missing again later: a new issue, the closed one left as it was.
    const again = await sync([view('llama', 'throughput')]);
    expect(again.action).toBe('opened');
    expect(again.issue!.number).not.toBe(number);
    expect(issuesOfGate().filter((i) => i.state === 'open')).toHaveLength(1);
  });

  it('stays closed when someone closed it by hand while the list is the same', async () => {
    const missing = [view('llama', 'throughput')];
    const closed = github.api.state.addIssue({
      title: '1 series stopped reporting',
      body: `${missingMarker(GATE, missingDigest(missing))}\nclosed by hand`,
      labels: [REGRESSION_LABEL],
      user: github.api.state.actor,
      state: 'closed',
    });
    expect(await sync(missing)).toEqual({ action: 'none' });
    expect(github.api.state.issues).toHaveLength(1);
    expect(github.api.state.commentsOn(closed.number)).toEqual([]);
    // A longer list is news again.
    expect((await sync([...missing, view('qwen3', 'throughput')])).action).toBe('opened');
  });

  it('touches neither another gate’s issue, nor a regression issue, nor one someone else opened', async () => {
    const otherGate = github.api.state.addIssue({
      body: `${missingMarker('other', 'x')}\nlist`,
      labels: [REGRESSION_LABEL],
      user: github.api.state.actor,
    });
    const regression = github.api.state.addIssue({
      body: `${regressionMarker(GATE, 'run-1')}\nregression`,
      labels: [REGRESSION_LABEL],
      user: github.api.state.actor,
    });
    const copied = github.api.state.addIssue({
      body: `${missingMarker(GATE, 'x')}\ncopied marker`,
      labels: [REGRESSION_LABEL],
      user: 'someone-else',
    });
    expect(await sync([])).toEqual({ action: 'none' });
    for (const issue of [otherGate, regression, copied]) {
      expect(github.api.state.issue(issue.number)!.state).toBe('open');
    }
  });

  it('names a list by which series are missing, not by how long', () => {
    expect(missingDigest([view('a', 'x', 3), view('b', 'y', 3)])).toBe(
      missingDigest([view('b', 'y', 9), view('a', 'x', 4)]),
    );
    expect(missingDigest([view('a', 'x')])).not.toBe(missingDigest([view('a', 'y')]));
  });
});

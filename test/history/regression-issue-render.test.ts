// The regression issue's body as the on-call engineer reads it: the commit range and its
// links, the night's run and profile, the environment by name, the bisect command with both
// ends, how it was found in plain words, and the series that agree as a count.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../src/history/analyze.js';
import type { ChangePoint } from '../../src/history/changepoints.js';
import type { Regression } from '../../src/history/regressions.js';
import {
  howFound,
  renderRegressionMarkdown,
  type RegressionIssueContext,
} from '../../src/history/render.js';
import type { Series } from '../../src/history/series.js';
import { makeSeries } from './make-series.js';

const REPO = 'https://github.com/acme/serve';
const PAGES = 'https://acme.github.io/serve/';

/** Two benchmarks 10% slower from night 30 on, on inf2.xlarge, runs named as the action names them. */
function twoBenchmarkRegression(): Regression {
  const series: Series[] = ['llama', 'qwen'].map((benchmark, i) => {
    const made = makeSeries({
      nights: 45,
      // Both 10% slower from night 30; llama 5% more on top.
      level: (n) => (n >= 30 ? 1.1 * (i === 0 ? 1.05 : 1) : 1),
      seed: `render-${benchmark}`,
      environment: () => ({ instanceType: 'inf2.xlarge', neuronSdkVersion: '2.26.0' }),
    });
    return {
      ...made,
      id: `gate · ${benchmark} · latency_p50 · inf2.xlarge`,
      benchmark,
      environmentKey: 'inf2.xlarge',
      points: made.points.map((p, n) => ({
        ...p,
        runId: `${7000 + n}-1`,
        commit: createHash('sha1').update(`commit ${n}`).digest('hex'),
        path: `gate/${benchmark}/night-${n}.json`,
      })),
    };
  });
  const { regressions } = analyzeHistory({ series, acceptances: [], skipped: 0 });
  expect(regressions).toHaveLength(1);
  return regressions[0]!;
}

const LINKED: RegressionIssueContext = {
  repositoryUrl: REPO,
  dashboardUrl: PAGES,
  profileArtifacts: new Map([['qwen', 901]]),
  models: new Map([['qwen', 'Qwen/Qwen3-8B']]),
  benchmarkCount: 2,
};

describe('the regression issue body', () => {
  const regression = twoBenchmarkRegression();
  const good = regression.lastGood.commit;
  const bad = regression.firstBad.commit;

  it('links the range, both commits, the run, its profile artifact and the worst series', () => {
    expect(regression.firstBad.runId).toBe('7030-1');
    const body = renderRegressionMarkdown(regression, LINKED);
    expect(body).toContain(
      `**Commits:** the culprit is in the commits after [\`${good.slice(0, 7)}\`](${REPO}/commit/${good}) (last good, 2026-01-30) up to [\`${bad.slice(0, 7)}\`](${REPO}/commit/${bad}) (first bad, 2026-01-31): [compare the range](${REPO}/compare/${good}...${bad}).`,
    );
    expect(body).toContain(
      `**First bad night:** 2026-01-31, [workflow run 7030](${REPO}/actions/runs/7030); [profile and logs of qwen](${REPO}/actions/runs/7030/artifacts/901).`,
    );
    // llama moved 15.5% (5% on top of the 10%): the worst, so its chart is the one linked.
    expect(body).toContain(
      `[See the chart of the worst series on the dashboard](${PAGES}#series=gate%20%C2%B7%20llama%20%C2%B7%20latency_p50%20%C2%B7%20inf2.xlarge)`,
    );
    expect(body).toMatch(/^\*\*llama · latency_p50 \+1\d\.\d%\*\* \(95% interval /m);
  });

  it('names the environment by instance type, SDK and model, the gate key beside them', () => {
    const body = renderRegressionMarkdown(regression, LINKED);
    expect(body).toContain(
      '**Environment:** inf2.xlarge, Neuron SDK 2.26.0, model `Qwen/Qwen3-8B` (gate key `gate`, series environment `inf2.xlarge`)',
    );
    expect(body).toMatch(/^## Performance regression in `gate` on inf2\.xlarge$/m);
  });

  it('gives the bisect command with both ends, the worst benchmark and metric, then accepting', () => {
    const body = renderRegressionMarkdown(regression, LINKED);
    expect(body).toContain(
      `\`\`\`sh\nneuron-perf-gate bisect --good ${good} --bad ${bad} --benchmark llama --metric latency_p50\n\`\`\``,
    );
    expect(body.indexOf('neuron-perf-gate bisect')).toBeLessThan(body.indexOf('baseline accept'));
    expect(body).toContain(
      '```sh\nneuron-perf-gate baseline accept gate/llama/night-30.json\nneuron-perf-gate baseline accept gate/qwen/night-30.json\n```',
    );
    // One benchmark in the gate: bisect needs no --benchmark.
    const single = renderRegressionMarkdown(regression, { ...LINKED, benchmarkCount: 1 });
    expect(single).toContain(`--bad ${bad} --metric latency_p50\n`);
  });

  it('says how it was found in plain words, the test in parentheses', () => {
    const body = renderRegressionMarkdown(regression, LINKED);
    expect(body).toMatch(
      /\*\*How it was found:\*\* a step between two nights, found by comparing the nights before and after every night: the 30 nights before against the 15 nights from the first bad one \(permutation test, p [≤=<] 0\.\d+/,
    );
    expect(body).not.toMatch(/segmentation|\[creep\]|\[tail\]/);
    const cp = regression.changes[0]!.change;
    const creep: ChangePoint = {
      ...cp,
      kind: 'creep',
      detector: 'creep',
      pValue: 0.0004,
      before: { ...cp.before, nights: 10 },
      after: { ...cp.after, nights: 3 },
    };
    expect(howFound(creep)).toMatch(
      /^a slow drift: the newest 3 nights sit \+\d+\.\d% off the first 10 nights of the level, though no single night stepped \(one-sided trend test, p < 0\.001\)$/,
    );
    expect(howFound({ ...creep, kind: 'step', detector: 'tail', pValue: 0.0123 })).toMatch(
      /^a step in the newest nights: the newest 3 nights against the 10 nights before them, .* \(tail test, p = 0\.012\)$/,
    );
  });

  it('counts the series that agree, and folds those that put the night elsewhere', () => {
    const body = renderRegressionMarkdown(regression, LINKED);
    expect(body).toContain('**Series:** 2 of 2 series agree on this night.');
    expect(body).not.toContain('<details>');
    const split: Regression = {
      ...regression,
      consensus: {
        ...regression.consensus,
        agreeing: 1,
        locations: regression.consensus.locations.map((l, i) =>
          i === 1 ? { ...l, runId: '7029-1', createdAt: '2026-01-30', share: 0.6 } : l,
        ),
      },
    };
    const folded = renderRegressionMarkdown(split, LINKED);
    expect(folded).toContain(
      '**Series:** 1 of 2 series agree on this night; the other one is listed below the table.',
    );
    expect(folded).toMatch(
      /<details><summary>1 series puts the first bad night elsewhere<\/summary>\n\n- qwen · latency_p50: 2026-01-30 [0-9a-f]{7} \(run 7029-1\), 60% sure of it, \S+ on this night\n\n<\/details>/,
    );
  });

  it('makes no link at all without a repository URL, and none from an unchecked one', () => {
    for (const context of [
      {},
      { repositoryUrl: 'http://github.com/acme/serve', dashboardUrl: 'http://acme.github.io/' },
      { repositoryUrl: `${REPO}?x=1`, dashboardUrl: `javascript:alert(1)//` },
      {
        repositoryUrl: 'https://tok@github.com/acme/serve',
        profileArtifacts: new Map([['qwen', 9]]),
      },
    ]) {
      const body = renderRegressionMarkdown(regression, context);
      expect(body, JSON.stringify(context)).not.toMatch(/\]\(/);
      expect(body).toContain(`after \`${good.slice(0, 7)}\` (last good`);
      expect(body).toContain('2026-01-31, run `7030-1`.');
      // The command needs no link: both ends are there in full.
      expect(body).toContain(`neuron-perf-gate bisect --good ${good} --bad ${bad}`);
    }
  });

  it('abbreviates two commits that share their first digits as far as it takes to tell them apart', () => {
    const prefix = 'ab12cd3'.repeat(6).slice(0, 30);
    const close: Regression = {
      ...regression,
      lastGood: { ...regression.lastGood, commit: `${prefix}1234567890` },
      firstBad: { ...regression.firstBad, commit: `${prefix}1234567891` },
    };
    const body = renderRegressionMarkdown(close, {});
    const shown = [...body.matchAll(/`([0-9a-f]{7,40})` \((?:last good|first bad)/g)].map(
      (m) => m[1],
    );
    expect(shown).toEqual([`${prefix}123456789`, `${prefix}123456789`].map((c, i) => c + i));
  });

  it('links and runs nothing from a record whose commit is no sha', () => {
    const odd: Regression = {
      ...regression,
      lastGood: { ...regression.lastGood, commit: 'main' },
      firstBad: { ...regression.firstBad, commit: '[x](https://evil.example)', runId: 'seed-1' },
    };
    const body = renderRegressionMarkdown(odd, LINKED);
    // The record's text stays text: one code span, never a link.
    expect(body.split('evil.example')).toHaveLength(2);
    expect(body).toContain('up to `[x](https://evil.example)` (first bad');
    expect(body).not.toContain('/compare/');
    expect(body).not.toContain('/actions/runs/');
    expect(body).not.toContain('neuron-perf-gate bisect');
    expect(body).toContain('There is no range of commits to bisect');
  });

  it('keeps a regression of 104 series well within the issue size limit, its parts to act on first', () => {
    const many: Regression = {
      ...regression,
      changes: Array.from({ length: 104 }, (_, i) => ({
        ...regression.changes[i % 2]!,
        seriesId: `gate · b${i} · latency_p50 · inf2.xlarge`,
        benchmark: `b${String(i).padStart(3, '0')}`,
      })),
    };
    const body = renderRegressionMarkdown(many, LINKED);
    expect(body.split('\n').filter((l) => /^\| b\d{3} \|/.test(l))).toHaveLength(40);
    expect(body).toContain('and 64 more series (`neuron-perf-gate history` lists every one).');
    expect(body.length).toBeLessThan(20_000);
    expect(body.indexOf('neuron-perf-gate bisect')).toBeLessThan(body.indexOf('| b000 |'));
  });
});

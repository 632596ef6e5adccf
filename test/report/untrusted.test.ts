// Comment mode renders a report.json that a pull request's own run uploaded: every string
// in it may be hostile. Whatever they hold, the comment keeps its shape, shows no HTML of
// theirs, pings nobody and links only to http(s) URLs (which ones to trust is comment
// mode's call: it keeps only links into the triggering run).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GateReport, ProfileSummary } from '../../src/model.js';
import { ReportArtifactError, reportArtifactFiles } from '../../src/github/report-artifact.js';
import { validateReportArtifact } from '../../src/github/report-validation.js';
import { reportJsonText } from '../../src/report/report-json.js';
import { renderReportComment } from '../../src/action/comment-mode.js';
import { configView } from '../../src/report/config-view.js';
import { renderComment, renderMarkdown } from '../../src/report/markdown.js';
import {
  benchmark,
  expectWellFormed,
  gateConfig,
  outsideCode,
  reportOf,
  withBaselineInfo,
  withSummaryLink,
} from './support.js';

/**
 * Every string leaf of `value` replaced by `hostile` and a counter, so they all differ;
 * strings under a key in `keep` stay, so that the parts they switch on still render.
 */
function poisoned<T>(value: T, hostile: string, keep: ReadonlySet<string> = new Set()): T {
  let count = 0;
  const walk = (node: unknown, key?: string): unknown => {
    if (typeof node === 'string') return key && keep.has(key) ? node : `${hostile}${(count += 1)}`;
    if (Array.isArray(node)) return node.map((item) => walk(item, key));
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, k)]));
    }
    return node;
  };
  return walk(value) as T;
}

/** The switches of the model: kept in one pass so that every branch renders hostile text. */
const SWITCHES = new Set(['status', 'kind', 'direction', 'method', 'verdict', 'verdictBefore']);

/** A report with every optional part filled, so every renderer sees hostile text. */
function richReport(): GateReport {
  const full = benchmark(
    'llama',
    { throughput: -0.2 },
    {
      sweep: { name: 'sweep', variant: 'bs8', params: { bs: 8 } },
      warnings: ['a warning'],
      error: 'line one\nline two',
      artifact: { name: 'perf-gate-llama', url: 'https://github.com/o/r/a/1', size: 10 },
      server: {
        startupSeconds: 41.8,
        starts: 2,
        logs: ['servers/llama/server-1.clean.log', 'servers/llama/server-2.profiled.log'],
        stopped: 'SIGTERM, 1.2 s',
      },
      confirmation: {
        runs: 2,
        verdictBefore: 'regression',
        metricsBefore: [{ id: 'throughput', verdict: 'unchanged', change: -0.01 }],
      },
    },
  );
  const profile: ProfileSummary = {
    ...full.profile!,
    note: 'a note',
    warnings: ['a profile warning'],
    graphs: [
      {
        key: 'n_fdc71a0b',
        label: 'token generation',
        totalTime: 0.2,
        mfu: 40,
        engines: { tensor: 50 },
        dma: 20,
      },
    ],
  };
  profile.source = { tables: 4, summaryJson: 0, schemas: ['7.4.0'] };
  profile.contamination = ['NeuronCore 1 throttled for 2.00 ms (a.ntff)'];
  full.profile = profile;
  // The operator diff's strings (op names from the profiler) and figures, as the comment shows them.
  const change = {
    op: 'Layer[3]/mlp.down_proj/aten.mm',
    baseMs: 0.2,
    headMs: 0.6,
    changeMs: 0.4,
    changePercent: 200,
    excessMs: 0.39,
    share: 0.95,
    engine: 'tensor' as const,
    hbmBytesChange: 1024,
  };
  const opDiff = {
    baseMs: 10,
    headMs: 10.4,
    shared: { factor: 1.001, changeMs: 0.01, share: 0.02 },
    jitter: 0.02,
    named: [change, { ...change, op: 'lm_head/aten.mm', only: 'head' as const }],
    other: { ops: 40, changeMs: 0.01, share: 0.03 },
  };
  const group = {
    operation: 'AllReduce',
    algorithm: 'Ring',
    replicaGroup: '[[0,1]]',
    count: 56,
    totalMs: 0.1,
    busGBps: 110,
  };
  full.profileDiff = {
    base: "the baseline's profile",
    ops: opDiff,
    kinds: { ...opDiff, named: [{ ...change, op: 'Layer[*]/mlp.down_proj/aten.mm' }] },
    lead: 'ops',
    collectives: { base: [group], head: [group] },
    roofline: { base: { mfu: 4.9, maxAchievable: 23 }, head: { mfu: 4.5, maxAchievable: 23 } },
    caveats: ['head: NeuronCore 1 throttled'],
  };
  const figure = {
    reference: 0.001,
    head: 0.05,
    change: 0.049,
    ci: [0.04, 0.058] as [number, number],
    margin: 0.005,
    verdict: 'regression' as const,
  };
  full.agreement = {
    reference: "the base side's answers (main)",
    promptsSource: 'accuracy/prompts.jsonl',
    prompts: 48,
    positions: 1536,
    maxTokens: 32,
    topK: 5,
    flips: figure,
    distance: { ...figure, reference: 0.0001, head: 0.004, margin: 0.01, verdict: 'pass' },
    overlap: { reference: 1, head: 0.98 },
    firstToken: { reference: 0, head: 2 },
    worstPrompts: [{ prompt: 23, flips: 5, firstFlip: 3 }],
    requests: { reference: 48, aa: 50, head: 124 },
    verdict: 'regression',
    reason: 'the head flips 5.0% of 1536 tokens',
  };
  full.result!.runs[0]!.error = 'an error';
  const withInfo = withBaselineInfo(full, {
    source: 'perf-gate-data',
    commit: 'abc',
    commitUrl: 'https://github.com/o/r/commit/abc',
    records: 3,
    environmentNotes: ['Neuron SDK 2.26 → 2.27', 'vLLM 0.9 → 0.10'],
    accepted: 'accepted',
    span: {
      oldest: { commit: 'abc0', createdAt: '2026-03-27T03:00:00.000Z' },
      newest: { commit: 'abc', createdAt: '2026-03-31T03:00:00.000Z' },
    },
    openRegression: {
      id: 'gate@1030-1',
      branch: 'main',
      firstBad: { commit: 'abc0', createdAt: '2026-03-27T03:00:00.000Z' },
      use: 'since',
      records: 4,
    },
  });
  const report = {
    ...reportOf([withInfo, benchmark('qwen')]),
    openRegressions: {
      branch: 'main',
      regressions: [
        {
          id: 'gate@1030-1',
          firstBad: { commit: 'abc0', createdAt: '2026-03-27T03:00:00.000Z' },
          changes: [{ benchmark: 'llama', metric: 'throughput', change: -0.1 }],
          persistent: true,
          issue: { number: 12, url: 'https://github.com/o/r/issues/12' },
        },
      ],
    },
  };
  return withSummaryLink(
    {
      ...report,
      warnings: ['gate warning'],
      environment: { ...report.environment, ref: 'refs/heads/main', runner: 'inf2' },
      links: { ...report.links, artifact: 'https://x/a', baseline: 'https://x/b' },
      ab: {
        base: {
          label: 'main (1a2b3c4)',
          commit: 'a'.repeat(40),
          setupSeconds: 12.5,
          compileCache: '/var/tmp/neuron-compile-cache',
          environment: { compilerVersion: '2.21' },
        },
        head: {
          label: 'the working tree',
          compileCache: 's3://bucket/cache',
          environment: { compilerVersion: '2.22' },
        },
        order: 'base head head base',
        blocks: { llama: 2 },
        differs: [{ component: 'compilerVersion', base: '2.21', head: '2.22' }],
        runs: {
          llama: {
            metric: 'latency_p50',
            unit: 'ms',
            blocks: [
              { base: [300, 301], head: [330, 331] },
              { base: [302, 303], head: [332, 333] },
            ],
          },
        },
        compileCaches: {
          llama: {
            shared: true,
            base: {
              dir: '/c',
              graphsCompiled: 4,
              compiled: ['neuronxcc-2.21/MODULE_a'],
              cached: 0,
              compileSeconds: 310,
              warnings: [],
            },
            baseAgain: { dir: '/c', graphsCompiled: 0, compiled: [], cached: 4, warnings: [] },
            head: {
              dir: '/c',
              graphsCompiled: 4,
              compiled: ['neuronxcc-2.22/MODULE_b'],
              cached: 0,
              compileSeconds: 300,
              compileTimeFrom: 'log',
              warnings: [],
            },
          },
        },
      },
    },
    'https://x/s',
  );
}

const hostileText = fc.string({
  unit: fc.constantFrom(
    '<img src=x onerror=alert(1)>',
    '</details>',
    '<summary>',
    '@octocat',
    '#12',
    '|',
    '`',
    '```',
    '\n',
    '[a](javascript:alert(1))',
    'https://evil.example/',
    '&lt;',
    '\\',
    'x',
    ' ',
  ),
  minLength: 1,
  maxLength: 8,
});

describe('a report whose every string is hostile', () => {
  const clean = richReport();

  it('renders its own tags only, pings nobody and keeps every table whole', () => {
    fc.assert(
      fc.property(hostileText, fc.boolean(), (hostile, keepSwitches) => {
        const report = poisoned(clean, hostile, keepSwitches ? SWITCHES : undefined);
        for (const markdown of [renderMarkdown(report), renderComment(report, { limit: 4000 })]) {
          expectWellFormed(markdown);
          // Link destinations are URLs, not text: no mention or reference is made there.
          const destinations = [...outsideCode(markdown).matchAll(/\]\(([^)]*)\)/g)].map(
            (m) => m[1]!,
          );
          for (const href of destinations) expect(href).toMatch(/^https?:\/\/[^\s()<>|`]+$/);
          const text = outsideCode(markdown)
            .replace(/\]\([^)]*\)/g, ']')
            .replace(/&(?:amp|lt|gt|#\d+);/g, '');
          expect(text.replace(/<\/?(?:details|summary|sub|b)>|<details open>/g, '')).not.toContain(
            '<',
          );
          expect(text).not.toMatch(/@octocat|#12/);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('still renders the same report unpoisoned with its links', () => {
    const markdown = renderMarkdown(clean);
    expect(markdown).toContain('[Artifacts](https://x/a)');
    expect(markdown).toContain('(https://github.com/o/r/issues/12)');
    expect(markdown).toContain('Compared with `main` as it is now');
    expect(markdown).toContain('[`abc`](https://github.com/o/r/commit/abc)');
    expect(markdown).toContain(
      "🧱 llama, compile cache (one cache, which the base warms first): base's first run: 4 graphs compiled in 5 min 10 s, 0 graphs loaded from the cache (its second run: 0 graphs compiled, 4 graphs loaded from the cache); head's first run: 4 graphs compiled in 5 min, 0 graphs loaded from the cache.",
    );
  });
});

/** Every path to a value in `value`, as keys and indexes. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))];
}

function valueAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown>)?.[key],
    value,
  );
}

/** `value` with the node at `path` removed (`replacement` undefined) or replaced. */
function mutated(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  if (rest.length === 0 && replacement === undefined) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete copy[head!];
  } else {
    copy[head!] = mutated(copy[head!], rest, replacement);
  }
  return copy;
}

describe('a report.json from another version, or made by hand', () => {
  // As the gate writes it: with the resolved config, which the comment job shows too.
  const written: GateReport = { ...richReport(), config: configView(gateConfig(['llama'])) };
  const clean = JSON.parse(JSON.stringify(written)) as unknown;
  const paths = pathsOf(clean).filter((path) => path.length > 0);
  const pr = { number: 7, headSha: 'a'.repeat(40), gateKey: 'perf' };

  /** Validated and rendered; an error only when the artifact is refused, naming the field. */
  function postedOrRefused(report: unknown): void {
    let validated;
    try {
      validated = validateReportArtifact(
        reportArtifactFiles(reportJsonText(report as GateReport), 'comment', pr),
        {
          prNumbers: [7],
          headSha: pr.headSha,
        },
      );
    } catch (error) {
      expect(error).toBeInstanceOf(ReportArtifactError);
      expect((error as Error).message).toMatch(/field '/);
      return;
    }
    const config = validated.report.config;
    expect(renderComment(validated.report, config ? { config } : {})).toContain('neuron-perf-gate');
    expect(renderMarkdown(validated.report, config ? { config } : {})).toContain(
      'neuron-perf-gate',
    );
  }

  it('renders as written, with the resolved config', () => {
    const validated = validateReportArtifact(
      reportArtifactFiles(reportJsonText(written), 'comment', pr),
      {
        prNumbers: [7],
        headSha: pr.headSha,
      },
    );
    expect(renderReportComment(validated.report)).toContain('<summary>Configuration</summary>');
  });

  it("refuses a metric's reach whose figures are text (they are rendered in the comment)", () => {
    const hostile = '[x](https://evil.example) @octocat';
    for (const reach of [
      { power: 0.4, runs: hostile, runsFor95: 12 },
      { power: 0.4, runs: 13, runsFor95: hostile },
      { power: hostile, runs: 13, runsFor95: null },
    ]) {
      const report = mutated(clean, ['benchmarks', 0, 'metrics', 0, 'reach'], reach);
      expect(() =>
        validateReportArtifact(
          reportArtifactFiles(reportJsonText(report as GateReport), 'comment', pr),
          {
            prNumbers: [7],
            headSha: pr.headSha,
          },
        ),
      ).toThrow(ReportArtifactError);
    }
    // Figures pass and are shown.
    const fine = mutated(clean, ['benchmarks', 0, 'metrics', 0, 'reach'], {
      power: 0.4,
      runs: 13,
      runsFor95: 40,
    });
    const validated = validateReportArtifact(
      reportArtifactFiles(reportJsonText(fine as GateReport), 'comment', pr),
      { prNumbers: [7], headSha: pr.headSha },
    );
    expect(renderComment(validated.report)).toContain('40 would reach 95%');
  });

  it("takes the agreement's sides only as the gate writes them (they are words of the comment)", () => {
    const validate = (sides: unknown) =>
      validateReportArtifact(
        reportArtifactFiles(
          reportJsonText(
            mutated(clean, ['benchmarks', 0, 'agreement', 'sides'], sides) as GateReport,
          ),
          'comment',
          pr,
        ),
        { prNumbers: [7], headSha: pr.headSha },
      );
    for (const sides of [
      { head: '[x](https://evil.example)', base: 'the stored run' },
      { head: 'this run', base: '@octocat' },
      { head: 'this run' },
    ]) {
      expect(() => validate(sides)).toThrow(ReportArtifactError);
    }
    const stored = validate({ head: 'this run', base: 'the stored run' });
    expect(renderComment(stored.report)).toContain('| The stored run vs itself | This run |');
  });

  // One test per replacement: each walks every field (seconds at rest), within its own time
  // limit on a busy host.
  // Each value in an array of its own: it.each would spread [] and [1] into arguments.
  it.each([undefined, null, 'x', -1, true, [], {}, [1], { a: 1 }].map((value) => [value]))(
    'with any one field removed or replaced by %j, is refused or renders',
    (value) => {
      for (const path of paths) postedOrRefused(mutated(clean, path, value));
    },
  );

  it('with any one figure replaced by markdown, is refused or shows none of it', () => {
    const hostile =
      '<a href="https://evil.example/p">approve</a> [x](https://evil.example/) @octocat';
    const figures = paths.filter((path) => typeof valueAt(clean, path) === 'number');
    expect(figures.length).toBeGreaterThan(50);
    for (const path of figures) {
      const report = mutated(clean, path, hostile) as GateReport;
      let validated;
      try {
        validated = validateReportArtifact(
          reportArtifactFiles(reportJsonText(report), 'comment', pr),
          {
            prNumbers: [7],
            headSha: pr.headSha,
          },
        );
      } catch (error) {
        expect(error).toBeInstanceOf(ReportArtifactError);
        continue;
      }
      const posted = outsideCode(renderReportComment(validated.report));
      expect(posted, path.join('.')).not.toContain('<a href');
      expect(posted, path.join('.')).not.toContain('](https://evil.example');
      expect(posted, path.join('.')).not.toMatch(/(^|[^\w\u200b])@octocat/);
    }
  });

  it('with a hole in its metrics (a sparse array made by hand), is refused or renders', () => {
    // Found by the random mutations below (seed 27296414): every() skips holes.
    const emptied = mutated(clean, ['benchmarks', 1, 'result', 'metrics'], []);
    const holed = mutated(emptied, ['benchmarks', 1, 'result', 'metrics', 1], []);
    const metrics = (holed as GateReport).benchmarks[1]?.result?.metrics as unknown[];
    expect(metrics).toHaveLength(2);
    expect(0 in metrics).toBe(false);
    postedOrRefused(holed);
  });

  it('with several fields changed at random, is refused or renders', () => {
    const mutation = fc.record({
      at: fc.nat({ max: paths.length - 1 }),
      // undefined removes the field; otherwise any JSON takes its place.
      value: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
        let report = clean;
        for (const { at, value } of mutations) report = mutated(report, paths[at]!, value);
        postedOrRefused(report);
      }),
      { numRuns: 300 },
    );
  });
});

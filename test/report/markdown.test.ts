import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, GateReport, ProfileCapture } from '../../src/model.js';
import { configView } from '../../src/report/config-view.js';
import { renderComment, renderMarkdown } from '../../src/report/markdown.js';
import { formatChange, formatValue } from '../../src/report/numbers.js';
import {
  benchmark,
  cells,
  comparison,
  gateConfig,
  reportOf,
  sweepReport,
  withBaselineInfo,
} from './support.js';

const hostileName =
  'rerank|bs=8 <img src=x onerror=alert(1)> @octo-team `code` [link](http://x) #12';

function reportWith(name: string): GateReport {
  const report = reportOf([
    {
      name,
      format: 'offline-benchmark',
      verdict: 'regression',
      warnings: [],
      metrics: [
        comparison('throughput', 2.93 / 3.17 - 1, {
          baseline: 3.17,
          current: 2.93,
          ci: [-0.09, -0.062],
          reason: '7.6% lower, beyond the 5% threshold',
        }),
        comparison('mfu', 0, {
          baseline: null,
          current: null,
          change: null,
          ci: null,
          method: 'none',
          verdict: 'missing',
          reason: 'not measured: no profiled run',
        }),
      ],
    },
  ]);
  return { ...report, environment: { ...report.environment, runner: 'inf2 | runner' } };
}

const lines = (markdown: string) => markdown.split('\n');

describe('renderMarkdown', () => {
  const markdown = renderMarkdown(reportWith(hostileName));

  it('has a verdict headline and a seven-column table whose rows stay seven columns', () => {
    expect(lines(markdown)[0]).toBe('## ❌ neuron-perf-gate: performance regression');
    const rows = lines(markdown).filter(
      (line) => line.startsWith('| throughput') || line.startsWith('| mfu'),
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(cells(row)).toHaveLength(7);
  });

  it('shows figures, the change, the interval, the threshold and the verdict', () => {
    const row = lines(markdown).find((line) => line.startsWith('| throughput'));
    expect(row && cells(row).map((c) => c.trim())).toEqual([
      'throughput (queries/s)',
      formatValue(3.17),
      formatValue(2.93),
      formatChange(2.93 / 3.17 - 1),
      `${formatChange(-0.09)} to ${formatChange(-0.062)}`,
      '5%',
      '❌ regression',
    ]);
    expect(markdown).toContain('**throughput**: 7.6% lower, beyond the 5% threshold');
  });

  it('marks mfu as not measured', () => {
    const row = lines(markdown).find((line) => line.startsWith('| mfu'));
    expect(row).toContain('⚪ not measured');
  });

  it('escapes the benchmark name in the heading and environment values', () => {
    expect(markdown).not.toContain('<img');
    expect(markdown.replace(/&#\d+;/g, '')).not.toMatch(/@octo-team|#12/);
    expect(markdown).toContain('inf2 &#124; runner');
    const heading = lines(markdown).find((line) => line.startsWith('### '));
    expect(heading).toContain('&lt;img');
  });

  it('links the workflow run', () => {
    expect(markdown).toContain('[Workflow run](https://github.com/o/r/actions/runs/42)');
  });

  it('puts a failed benchmark output in a fence its own backticks cannot close', () => {
    const report = reportWith('x');
    const failed = {
      ...report.benchmarks[0]!,
      verdict: 'error' as const,
      metrics: [],
      error: 'run 1 (clean) failed: exit code 1\n```\n<b>not bold</b>',
    };
    const text = renderMarkdown({ ...report, verdict: 'error', benchmarks: [failed] });
    expect(text).toContain('💥');
    expect(text).toContain('````text\n```\n<b>not bold</b>\n````');
  });

  it('keeps a profile block', () => {
    const text = renderMarkdown(reportOf([benchmark('llama')]));
    expect(text).toContain('#### Profile');
    expect(text).toMatch(/MFU \*\*[\d.]+%\*\*/);
  });

  it('says which device profile mode and warm-up the profiled run recorded with', () => {
    const withCapture = (capture: ProfileCapture) => {
      const served = benchmark('serve');
      return renderMarkdown(reportOf([{ ...served, profile: { ...served.profile!, capture } }]));
    };
    expect(
      withCapture({ mode: 'session', modeFrom: 'serving', format: 'vllm-bench-serve' }),
    ).toContain(
      "Recorded with device profile mode `session` (profile-mode auto: vllm-bench-serve is a serving format); warm-up: the runtime's default (`NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP` not set).",
    );
    expect(withCapture({ mode: 'model', modeFrom: 'profile-mode', warmup: '5' })).toContain(
      'Recorded with device profile mode `model` (set by profile-mode); warm-up: 5 execution(s) (`NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP`).',
    );
    expect(withCapture({ mode: 'session', modeFrom: 'profile-mode', warmup: '5' })).toContain(
      'warm-up: 5 execution(s) (`NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP`), which the Neuron docs support in model mode only.',
    );
    expect(withCapture({ mode: 'model', modeFrom: 'default' })).toContain(
      '(profile-mode auto; the result format was not known)',
    );
  });
});

describe('baseline notes', () => {
  const info = {
    source: 'perf-gate-data @ 1a2b3c4',
    commit: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
    commitUrl: 'https://github.com/o/r/commit/1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
    records: 5,
  };

  it('names the baseline, how many records and links its commit', () => {
    const text = renderMarkdown(reportOf([withBaselineInfo(benchmark('llama'), info)]));
    expect(text).toContain(
      `Baseline: \`perf-gate-data @ 1a2b3c4\`, 5 records, commit [\`1a2b3c4\`](${info.commitUrl})`,
    );
  });

  it('shows a commit without a URL as code, unlinked', () => {
    const text = renderMarkdown(
      reportOf([withBaselineInfo(benchmark('llama'), { source: 's', commit: 'abc' })]),
    );
    expect(text).toContain('commit `abc`.');
  });

  it('says when the environment differs, one note inline, several as a list', () => {
    const one = renderMarkdown(
      reportOf([
        withBaselineInfo(benchmark('llama'), {
          ...info,
          environmentNotes: ['Neuron SDK 2.26.0 → 2.27.0'],
        }),
      ]),
    );
    expect(one).toContain(
      '> ⚠️ Baseline measured on a different environment: Neuron SDK 2.26.0 → 2.27.0',
    );
    const notes = ['Neuron SDK 2.26.0 → 2.27.0', 'vLLM <0.9> → @someone'];
    const several = renderMarkdown(
      reportOf([withBaselineInfo(benchmark('llama'), { ...info, environmentNotes: notes })]),
    );
    expect(several).toContain(
      [
        '> ⚠️ Baseline measured on a different environment:',
        '> - Neuron SDK 2.26.0 → 2.27.0',
        '> - vLLM &lt;0.9&gt; → @\u200Bsomeone',
      ].join('\n'),
    );
  });

  it('says a field one side lacks was not compared, without calling the environment different', () => {
    const text = renderMarkdown(
      reportOf([
        withBaselineInfo(benchmark('llama'), {
          ...info,
          environmentNotes: ['vLLM version unknown in the baseline (not compared)'],
        }),
      ]),
    );
    expect(text).toContain(
      '> ℹ️ Environment not fully compared with the baseline: vLLM version unknown in the baseline (not compared)',
    );
    expect(text).not.toContain('different environment');
  });

  it('explains a missing baseline in the same words as the store', () => {
    const missing: BenchmarkReport = {
      ...benchmark('llama'),
      verdict: 'no-baseline',
      metrics: [comparison('throughput', 0, { baseline: null, change: null, verdict: 'new' })],
    };
    const text = renderMarkdown(
      reportOf([
        withBaselineInfo(missing, {
          source: 's',
          environmentNotes: ['no record on inf2.xlarge (stored: inf2.8xlarge)'],
        }),
      ]),
    );
    expect(text).toContain('> ⚠️ No baseline from the same environment: no record on inf2.xlarge');
  });

  it('notes a regression accepted as the new normal', () => {
    const accepted = 'the regression persisted for 3 runs and was accepted as the new normal';
    const text = renderMarkdown(
      reportOf([withBaselineInfo(benchmark('llama', { throughput: -0.2 }), { ...info, accepted })]),
    );
    expect(text).toContain(`> 📌 **Accepted as the new normal:** ${accepted}`);
  });

  it('ignores a baselineInfo of the wrong shape', () => {
    const plain = renderMarkdown(reportOf([benchmark('llama')]));
    for (const odd of [null, 'text', { source: 7, environmentNotes: 'not a list' }]) {
      expect(renderMarkdown(reportOf([withBaselineInfo(benchmark('llama'), odd)]))).toBe(plain);
    }
  });
});

describe('artifact links', () => {
  const artifact = {
    name: 'perf-gate-llama',
    url: 'https://github.com/o/r/actions/runs/42/artifacts/7',
  };

  it('links the profile on the line under the verdict, and from the profile block', () => {
    const text = renderMarkdown(reportOf([benchmark('llama', {}, { artifact })]));
    const [heading, , first] = text.slice(text.indexOf('### llama')).split('\n');
    expect(heading).toBe('### llama — ✅ pass');
    expect(first).toContain(`Profile: [1 NTFF, 1 NEFF](${artifact.url}) in perf-gate-llama`);
    expect(text).toContain(`in the artifact [perf-gate-llama](${artifact.url})`);
  });

  it('names an artifact without NTFF files for what it holds, never as a profile', () => {
    const unprofiled = benchmark('llama', {}, { artifact });
    delete unprofiled.profile;
    const text = renderMarkdown(reportOf([unprofiled]));
    expect(text).toContain(
      `Artifact (run logs and results, no profile): [perf-gate-llama](${artifact.url})`,
    );
    expect(text).not.toContain('Profile:');
    // A profiled run that wrote no NTFF file: no profile link either.
    const empty = benchmark('llama', {}, { artifact });
    empty.profile = { ...empty.profile!, status: 'failed', ntffFiles: [], neffFiles: [] };
    const failed = renderMarkdown(reportOf([empty, benchmark('other')]));
    expect(failed).not.toContain(`Profile: [`);
    expect(failed).toContain('Files: no NTFF file was written.');
    const row = lines(failed).find((line) => line.startsWith('| llama'))!;
    expect(cells(row).map((c) => c.trim())[3]).toBe('—');
  });

  it('does not link a URL that is not http(s)', () => {
    const text = renderMarkdown(
      reportOf([benchmark('llama', {}, { artifact: { name: 'a', url: 'javascript:alert(1)' } })]),
    );
    expect(text).not.toContain('javascript:');
  });
});

describe('per-run values', () => {
  const report = reportOf([benchmark('llama', { throughput: 0.02 })]);
  const text = renderMarkdown(report);

  it('shows each clean run beside the baseline and current estimates, folded away', () => {
    const details = text.slice(text.indexOf('<details><summary>Runs and per-run values'));
    const header = lines(details).find((line) => line.startsWith('| Metric'))!;
    expect(cells(header).map((c) => c.trim())).toEqual([
      'Metric',
      'run 1',
      'run 2',
      'run 3',
      'run 4',
      'run 5',
      'Baseline',
      'Current',
    ]);
    const measured = report.benchmarks[0]!.result!.metrics.find((m) => m.id === 'throughput')!;
    const compared = report.benchmarks[0]!.metrics.find((m) => m.id === 'throughput')!;
    const row = lines(details).find((line) => line.startsWith('| throughput'))!;
    expect(cells(row).map((c) => c.trim())).toEqual([
      'throughput (queries/s)',
      ...measured.values.map((v) => formatValue(v)),
      formatValue(compared.baseline),
      formatValue(compared.current),
    ]);
  });

  it('leaves out MFU, which only the profiled run measures', () => {
    const details = text.slice(text.indexOf('<details><summary>Runs and per-run values'));
    expect(details.slice(0, details.indexOf('</details>'))).not.toContain('| mfu');
  });
});

describe('configuration', () => {
  const report = sweepReport(3);
  const config = gateConfig(report.benchmarks.map((b) => b.name));
  config.benchmarks[0]!.sweep = {
    name: 'sweep',
    variant: 'v0',
    params: { batch_size: 8, note: '<b>@team</b> | x' },
  };
  config.benchmarks[1]!.command = 'echo "`uname` | tee @out"';
  const text = renderMarkdown(report, { config: configView(config) });
  const section = text.slice(text.indexOf('<details><summary>Configuration</summary>'));

  it('lists each benchmark with its command, runs, profile, timeout and thresholds', () => {
    const rows = lines(section).filter((line) => line.startsWith('| sweep/'));
    expect(rows).toHaveLength(3);
    const header = lines(section).find((line) => line.startsWith('| Benchmark'))!;
    for (const row of rows) expect(cells(row)).toHaveLength(cells(header).length);
    expect(section).toContain("`python bench.py --name 'sweep/");
    expect(section).toContain('5 (+ up to 2 to confirm)');
    expect(section).toContain('throughput 5%, latency_p95 10%');
    expect(section).toContain('95% confidence, baseline of the newest 5 record(s)');
  });

  it('names variables but never shows their values', () => {
    expect(section).toContain('`HF_TOKEN`, `NEURON_CC_FLAGS`');
    expect(text).not.toContain('hf_secret_');
    expect(text).not.toContain('--model-type=transformer');
  });

  it('escapes sweep params and commands', () => {
    expect(section).toContain('note=&lt;b&gt;@\u200Bteam&lt;/b&gt; &#124; x');
    expect(section).toContain('``echo "`uname` \\| tee @out"``');
  });

  it('is the same in the comment while it fits', () => {
    expect(renderComment(report, { config: configView(config) })).toBe(text);
  });
});

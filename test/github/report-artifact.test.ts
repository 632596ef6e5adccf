// Stage 2 of the two-stage mode against the loopback GitHub API: the report artifact is
// found among a run's artifacts, downloaded through the 302 to blob storage, read with only
// its three files, and checked against the pull request and commit of the workflow_run.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  downloadReportArtifact,
  REPORT_ARTIFACT_NAME,
  ReportArtifactError,
  reportArtifactFiles,
  type ReportArtifactFiles,
  listReportArtifacts,
  reportArtifactName,
} from '../../src/github/report-artifact.js';
import { validateReportArtifact } from '../../src/github/report-validation.js';
import { reportJsonText } from '../../src/report/report-json.js';
import {
  REPORT_SCHEMA_VERSION,
  type GateReport,
  type ResolvedConfigView,
} from '../../src/model.js';
import { useGitHubApi } from '../support/github-test.js';
import { zipOf } from '../support/zip-writer.js';

const HEAD_SHA = '3f5a9c1e7b2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a';
const OTHER_SHA = 'def5678901234567890abcdef1234567890abcde';

const REPORT: GateReport = {
  schemaVersion: REPORT_SCHEMA_VERSION,
  tool: { name: 'neuron-perf-gate', version: '0.1.0' },
  createdAt: '2026-03-02T09:30:00.000Z',
  verdict: 'regression',
  benchmarks: [
    {
      name: 'llama3-8b-tp2',
      format: 'vllm-bench-serve',
      verdict: 'regression',
      metrics: [
        {
          id: 'throughput',
          unit: 'tok/s',
          direction: 'higher-is-better',
          baseline: 1520,
          current: 1331,
          change: -0.124,
          ci: [-0.15, -0.1],
          method: 'student-t',
          confidence: 0.95,
          threshold: 0.05,
          verdict: 'regression',
          reason: 'throughput fell 12.4%, beyond the 5% threshold',
        },
      ],
      warnings: [],
    },
  ],
  environment: { instanceType: 'inf2.8xlarge' },
  links: { run: 'https://github.com/octo-org/inf2-bench/actions/runs/1' },
  warnings: [],
};

/** The configuration a report.json of this gate run shows. */
const CONFIG: ResolvedConfigView = {
  source: '.github/perf-gate.yml',
  confidence: 0.95,
  baselineWindow: 5,
  failOnRegression: true,
  failOnInconclusive: false,
  uploadProfiles: true,
  artifactRetentionDays: 14,
  baselinePaths: [],
  benchmarks: [
    {
      name: 'llama3-8b-tp2',
      format: 'auto',
      runs: 3,
      confirmRuns: 10,
      profile: 'auto',
      profileMode: 'model',
      thresholds: {},
      timeoutMinutes: 60,
      workingDirectory: '/w',
      envNames: [],
    },
  ],
};

const COMMENT =
  '### neuron-perf-gate: regression\n\n| metric | change |\n|---|---|\n| throughput | −12.4% |\n';

const github = useGitHubApi({ owner: 'octo-org', repo: 'inf2-bench' });
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'perf-gate-report-artifact-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A finished pull_request run of stage 1, with the artifact it uploaded. */
function seedStageOne(files: Record<string, string | Buffer>, options: { zip?: Buffer } = {}) {
  const run = github.api.state.addWorkflowRun({
    event: 'pull_request',
    headBranch: 'faster-decode',
    headSha: HEAD_SHA,
    conclusion: 'failure',
    pullRequests: [12],
  });
  // Another artifact of the same run that must not be taken for the report.
  github.api.state.addArtifact({
    runId: run.id,
    name: 'perf-gate-llama3-8b-tp2',
    files: { 'a.ntff': 'x' },
  });
  const artifact = github.api.state.addArtifact({
    runId: run.id,
    name: REPORT_ARTIFACT_NAME,
    ...(options.zip ? { zip: options.zip } : { files }),
  });
  return { run, artifact };
}

/** A sweep's curve as report.json keeps it (model.ts: CapacityCurve). */
const CAPACITY_CURVE = {
  load: 'request_rate',
  unit: 'requests/s',
  series: [
    {
      metric: 'ttft_p99',
      unit: 'ms',
      limit: 450,
      holds: 'at-most',
      baseline: [{ load: 2, value: 131 }],
      current: [{ load: 2, value: 140 }],
    },
  ],
  capacity: { baseline: { value: 9, atLeast: false }, current: { value: 8.1, atLeast: false } },
};

function goodFiles(pr = { number: 12, headSha: HEAD_SHA, gateKey: 'llama3-8b-tp2' }) {
  return reportArtifactFiles(reportJsonText(REPORT), COMMENT, pr);
}

function download(runId: number) {
  return downloadReportArtifact(github.octokit, {
    owner: 'octo-org',
    repo: 'inf2-bench',
    runId,
    dir,
    log: github.log,
  });
}

describe('downloadReportArtifact', () => {
  it('downloads the artifact through the redirect and reads its three files', async () => {
    const { run, artifact } = seedStageOne(goodFiles());

    const downloaded = await download(run.id);

    expect(downloaded?.artifactId).toBe(artifact.id);
    expect(downloaded?.files).toEqual(goodFiles());
    expect((await readdir(dir)).sort()).toEqual(['comment.md', 'pr.json', 'report.json']);
    expect(await readFile(join(dir, 'comment.md'), 'utf8')).toBe(COMMENT);
    expect(downloaded?.paths['report.json']).toBe(join(dir, 'report.json'));
    // The zip came from the blob URL the API redirected to.
    expect(github.api.requests.some((r) => r.path.startsWith('/_blob/artifacts/'))).toBe(true);

    const validated = validateReportArtifact(downloaded!.files, {
      prNumbers: run.pullRequests,
      headSha: run.headSha,
    });
    expect(validated.pr).toEqual({ number: 12, headSha: HEAD_SHA, gateKey: 'llama3-8b-tp2' });
    expect(validated.report.verdict).toBe('regression');
    expect(validated.report.benchmarks[0]?.metrics[0]?.change).toBe(-0.124);
    expect(validated.comment).toBe(COMMENT);
  });

  it('finds the artifact on a later page of the run’s artifacts', async () => {
    const { run } = seedStageOne(goodFiles());
    // A listing that ignores the name filter: the report is on page 2 of 100 per page.
    github.api.route('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', (request) => {
      const all = github.api.state.artifacts.filter((a) => a.runId === run.id);
      const padding = Array.from({ length: 120 }, (_, i) => ({
        ...all[0]!,
        id: i + 1,
        name: `profile-${i}`,
      }));
      const items = [...padding, ...all];
      const perPage = Number(request.query.get('per_page') ?? 30);
      const page = Number(request.query.get('page') ?? 1);
      const slice = items.slice((page - 1) * perPage, page * perPage);
      const last = Math.ceil(items.length / perPage);
      const next = new URLSearchParams(request.query);
      next.set('page', String(page + 1));
      const headers: Record<string, string> =
        page < last
          ? { link: `<${github.api.url}${request.path}?${next.toString()}>; rel="next"` }
          : {};
      return {
        status: 200,
        headers,
        body: {
          total_count: items.length,
          artifacts: slice.map((a) => ({
            id: a.id,
            node_id: `MDg6QXJ0aWZhY3Q${a.id}`,
            name: a.name,
            size_in_bytes: a.zip.length,
            url: `${github.api.url}/repos/octo-org/inf2-bench/actions/artifacts/${a.id}`,
            archive_download_url: `${github.api.url}/repos/octo-org/inf2-bench/actions/artifacts/${a.id}/zip`,
            expired: a.expired,
            created_at: a.createdAt,
            updated_at: a.createdAt,
            expires_at: a.expiresAt,
          })),
        },
      };
    });

    const downloaded = await download(run.id);
    expect(downloaded?.files['pr.json']).toContain('"number": 12');
    const pages = github.api.requests.filter((r) => r.path.endsWith(`/runs/${run.id}/artifacts`));
    expect(pages.length).toBe(2);
  });

  it('returns undefined, saying so, when the run uploaded no report', async () => {
    const run = github.api.state.addWorkflowRun({ event: 'pull_request', headSha: HEAD_SHA });
    github.api.state.addArtifact({
      runId: run.id,
      name: 'perf-gate-llama3-8b-tp2',
      files: { a: 'b' },
    });

    expect(await download(run.id)).toBeUndefined();
    expect(github.log.lines.join('\n')).toContain('uploaded no "perf-gate-report" artifact');
    expect(github.api.requests.some((r) => r.path.endsWith('/zip'))).toBe(false);
  });

  it('refuses an expired artifact', async () => {
    const run = github.api.state.addWorkflowRun({ event: 'pull_request', headSha: HEAD_SHA });
    github.api.state.addArtifact({
      runId: run.id,
      name: REPORT_ARTIFACT_NAME,
      files: goodFiles(),
      expired: true,
    });
    await expect(download(run.id)).rejects.toThrow(/has expired/);
  });

  it('refuses entries that climb out of the folder or are absolute, writing nothing', async () => {
    for (const evil of ['../x', '/etc/cron.d/x', 'C:/x', 'a\\..\\..\\x']) {
      const { run } = seedStageOne({ ...goodFiles(), [evil]: 'payload' });
      const error = await download(run.id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReportArtifactError);
      expect((error as Error).message).toContain(JSON.stringify(evil));
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('reads past other harmless entries, with a warning', async () => {
    const { run } = seedStageOne({ ...goodFiles(), 'notes.txt': 'hi' });
    const downloaded = await download(run.id);
    expect(downloaded?.files).toEqual(goodFiles());
    expect(github.log.lines.join('\n')).toContain(
      'warning: The report artifact holds other files, not read: "notes.txt"',
    );
  });

  it('refuses a file over the size cap', async () => {
    const files = goodFiles();
    const big = files['report.json'].replace(
      '"warnings": []\n}',
      `"pad": "${'x'.repeat(6 * 1024 * 1024)}"}`,
    );
    const { run } = seedStageOne({ ...files, 'report.json': big });
    await expect(download(run.id)).rejects.toThrow(
      /"report.json" is \d+ bytes, more than the 5242880 allowed/,
    );
  });

  it('refuses an artifact too large to be a report without downloading it', async () => {
    const { run } = seedStageOne(
      {},
      { zip: zipOf({ 'x.bin': Buffer.alloc(20 * 1024 * 1024, 1) }, { compression: 'store' }) },
    );
    await expect(download(run.id)).rejects.toThrow(/more than a report can be/);
    expect(github.api.requests.some((r) => r.path.endsWith('/zip'))).toBe(false);
  });

  it('stops reading a download that is larger than the listing said', async () => {
    const { run } = seedStageOne(goodFiles());
    github.api.route(
      'GET',
      '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
      () => ({
        status: 200,
        headers: { 'content-type': 'application/zip' },
        raw: Buffer.alloc(40 * 1024 * 1024),
      }),
    );
    const error = await download(run.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportArtifactError);
    expect((error as Error).message).toMatch(/is larger than the \d+ bytes allowed/);
  });

  it('refuses an artifact that lacks one of the files', async () => {
    const files: Partial<ReportArtifactFiles> = goodFiles();
    delete files['pr.json'];
    const { run } = seedStageOne(files as Record<string, string>);
    await expect(download(run.id)).rejects.toThrow(/has no pr.json/);
  });

  it('says which permission is missing when listing artifacts is refused', async () => {
    const { run } = seedStageOne(goodFiles());
    github.api.failNext('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', [
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);
    await expect(download(run.id)).rejects.toThrow(/permissions: actions: read/);
  });
});

describe('report artifacts of a matrix', () => {
  it('names one artifact per gate key, with characters artifact names refuse replaced', () => {
    expect(reportArtifactName('perf-gate-1a2b3c4d')).toBe('perf-gate-report-perf-gate-1a2b3c4d');
    expect(reportArtifactName('team/inf2 perf')).toBe('perf-gate-report-team-inf2-perf');
  });

  it('lists every report artifact of the run, and nothing else', async () => {
    const run = github.api.state.addWorkflowRun({ event: 'pull_request' });
    for (const name of [
      reportArtifactName('gate-a'),
      'perf-gate-baseline',
      'perf-gate-reporter',
      reportArtifactName('gate-b'),
      REPORT_ARTIFACT_NAME,
    ]) {
      github.api.state.addArtifact({ runId: run.id, name, files: { 'x.txt': 'x' } });
    }
    const names = await listReportArtifacts(github.octokit, {
      owner: 'octo-org',
      repo: 'inf2-bench',
      runId: run.id,
    });
    expect(names).toEqual([
      'perf-gate-report-gate-a',
      'perf-gate-report-gate-b',
      REPORT_ARTIFACT_NAME,
    ]);
  });

  it("lists each gate's newest attempt only: a re-run's report, not the first attempt's", async () => {
    expect(reportArtifactName('gate-a', 1)).toBe('perf-gate-report-gate-a');
    expect(reportArtifactName('gate-a', 3)).toBe('perf-gate-report-gate-a~attempt-3');
    const run = github.api.state.addWorkflowRun({ event: 'pull_request' });
    for (const name of [
      reportArtifactName('gate-a', 1),
      reportArtifactName('gate-b', 1),
      reportArtifactName('gate-a', 2),
      // A key that merely looks like an attempt is a gate of its own.
      reportArtifactName('gate-a-attempt-2', 1),
      reportArtifactName('gate-a', 3),
    ]) {
      github.api.state.addArtifact({ runId: run.id, name, files: { 'x.txt': 'x' } });
    }
    const names = await listReportArtifacts(github.octokit, {
      owner: 'octo-org',
      repo: 'inf2-bench',
      runId: run.id,
    });
    expect(names).toEqual([
      'perf-gate-report-gate-a~attempt-3',
      'perf-gate-report-gate-b',
      'perf-gate-report-gate-a-attempt-2',
    ]);
  });
});

describe('validateReportArtifact', () => {
  const expected = { prNumbers: [12], headSha: HEAD_SHA };

  function withPr(pr: unknown): ReportArtifactFiles {
    return { ...goodFiles(), 'pr.json': JSON.stringify(pr) };
  }

  it('refuses a report for another commit, naming both', () => {
    const files = goodFiles({ number: 12, headSha: HEAD_SHA, gateKey: 'k' });
    expect(() => validateReportArtifact(files, { prNumbers: [12], headSha: OTHER_SHA })).toThrow(
      'the report artifact is for PR #12 at 3f5a9c1, but the workflow_run is for def5678; refusing to post',
    );
  });

  it('refuses a report for another pull request', () => {
    const files = goodFiles({ number: 13, headSha: HEAD_SHA, gateKey: 'k' });
    expect(() => validateReportArtifact(files, expected)).toThrow(
      'the report artifact is for PR #13 at 3f5a9c1, but the workflow_run is for PR #12; refusing to post',
    );
    expect(() => validateReportArtifact(files, { prNumbers: [], headSha: HEAD_SHA })).toThrow(
      /workflow_run is for no open pull request/,
    );
  });

  it('accepts a SHA in either case', () => {
    const files = goodFiles({ number: 12, headSha: HEAD_SHA.toUpperCase(), gateKey: 'k' });
    expect(validateReportArtifact(files, expected).pr.number).toBe(12);
  });

  it('checks pr.json as untrusted input', () => {
    for (const pr of [
      { number: '12', headSha: HEAD_SHA, gateKey: 'k' },
      { number: -1, headSha: HEAD_SHA, gateKey: 'k' },
      { number: 12, headSha: '$(rm -rf /)', gateKey: 'k' },
      { number: 12, headSha: HEAD_SHA },
      [12],
    ]) {
      expect(() => validateReportArtifact(withPr(pr), expected)).toThrow(ReportArtifactError);
    }
    expect(() => validateReportArtifact({ ...goodFiles(), 'pr.json': '{nope' }, expected)).toThrow(
      /pr.json in the report artifact is not JSON/,
    );
  });

  it('takes a capacity benchmark’s latency–load curve', () => {
    const report = structuredClone(REPORT) as unknown as Record<string, unknown>;
    (report.benchmarks as Record<string, unknown>[])[0]!.capacityCurve = CAPACITY_CURVE;
    const files = { ...goodFiles(), 'report.json': JSON.stringify(report) };
    const validated = validateReportArtifact(files, expected);
    expect(validated.report.benchmarks[0]!.capacityCurve).toEqual(CAPACITY_CURVE);
  });

  it('checks report.json: verdicts, benchmarks and metrics', () => {
    const broken = (change: (report: Record<string, unknown>) => void) => {
      const report = structuredClone(REPORT) as unknown as Record<string, unknown>;
      change(report);
      return { ...goodFiles(), 'report.json': JSON.stringify(report) };
    };
    const cases: [(r: Record<string, unknown>) => void, RegExp][] = [
      [(r) => (r.verdict = 'great'), /field 'verdict'/],
      [(r) => (r.benchmarks = 'all'), /field 'benchmarks'/],
      [
        (r) => ((r.benchmarks as Record<string, unknown>[])[0]!.verdict = 'ok'),
        /benchmarks.0.verdict/,
      ],
      [
        (r) => ((r.benchmarks as Record<string, unknown>[])[0]!.metrics = [{ id: 'x' }]),
        /benchmarks.0.metrics.0.verdict/,
      ],
      [(r) => (r.tool = { name: 'other-tool', version: '1' }), /field 'tool.name'/],
      // Figures the comment prints as they are: markdown in their place would be posted.
      [
        (r) =>
          ((r.benchmarks as Record<string, unknown>[])[0]!.profile = {
            status: 'failed',
            totalBytes: '<a href="https://evil.example">approve</a>',
          }),
        /benchmarks.0.profile.totalBytes/,
      ],
      [
        (r) =>
          ((r.benchmarks as Record<string, unknown>[])[0]!.profile = {
            status: 'measured',
            capture: { mode: '**approve**', modeFrom: 'serving' },
          }),
        /benchmarks.0.profile.capture.mode/,
      ],
      [
        (r) =>
          ((r.benchmarks as Record<string, unknown>[])[0]!.artifact = {
            name: 'p',
            size: '[x](https://evil.example)',
          }),
        /benchmarks.0.artifact.size/,
      ],
      // The latency–load curve a chart draws: numbers and short names only.
      [
        (r) =>
          ((r.benchmarks as Record<string, unknown>[])[0]!.capacityCurve = {
            ...CAPACITY_CURVE,
            capacity: { baseline: null, current: { value: '**9**', atLeast: false } },
          }),
        /benchmarks.0.capacityCurve.capacity.current.value/,
      ],
      [
        (r) =>
          ((r.benchmarks as Record<string, unknown>[])[0]!.capacityCurve = {
            ...CAPACITY_CURVE,
            load: 'qps',
          }),
        /benchmarks.0.capacityCurve.load/,
      ],
    ];
    for (const [change, message] of cases) {
      expect(() => validateReportArtifact(broken(change), expected)).toThrow(message);
    }
  });

  it('takes the configuration of a gate run with profile: on-change', () => {
    const config = structuredClone(CONFIG);
    config.benchmarks[0]!.profile = 'on-change';
    const files = { ...goodFiles(), 'report.json': JSON.stringify({ ...REPORT, config }) };
    expect(validateReportArtifact(files, expected).report.config?.benchmarks[0]?.profile).toBe(
      'on-change',
    );
  });

  it("takes the profiled run's capture and a profile-mode of auto", () => {
    const capture = {
      mode: 'session',
      modeFrom: 'serving',
      format: 'vllm-bench-serve',
      warmup: '5',
    };
    const config = structuredClone(CONFIG);
    config.benchmarks[0]!.profileMode = 'auto';
    const profile = { status: 'measured', ntffFiles: [], neffFiles: [], metrics: {}, capture };
    const report = { ...REPORT, config, benchmarks: [{ ...REPORT.benchmarks[0], profile }] };
    const files = { ...goodFiles(), 'report.json': JSON.stringify(report) };
    const validated = validateReportArtifact(files, expected).report;
    expect(validated.benchmarks[0]?.profile?.capture).toEqual(capture);
    expect(validated.config?.benchmarks[0]?.profileMode).toBe('auto');
  });

  it('allows unknown fields but caps the length of every string', () => {
    const report = { ...REPORT, futureField: { note: 'fine' } };
    const files = { ...goodFiles(), 'report.json': JSON.stringify(report) };
    expect(validateReportArtifact(files, expected).report).toMatchObject({
      futureField: { note: 'fine' },
    });

    const long = { ...REPORT, futureField: { note: 'x'.repeat(20_001) } };
    expect(() =>
      validateReportArtifact({ ...goodFiles(), 'report.json': JSON.stringify(long) }, expected),
    ).toThrow(/the string at 'futureField.note' has 20001 characters/);
  });

  it('refuses a comment longer than GitHub takes', () => {
    const files = { ...goodFiles(), 'comment.md': 'x'.repeat(65_537) };
    expect(() => validateReportArtifact(files, expected)).toThrow(/more than a comment can hold/);
  });
});

// `baseline list | show | accept` in-process, against a real git origin (a bare
// repository in a temp folder) and against plain folders of record files.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderRecordStore } from '../../src/baseline/folder-store.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { Git } from '../../src/baseline/git/git.js';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { benchmarkFolder, pathOfRecord } from '../../src/baseline/record-paths.js';
import { parseRecord } from '../../src/baseline/record-text.js';
import { isBaselineCommand, runBaselineCli } from '../../src/cli/baseline-command.js';
import { tempDir } from '../support/offline-result.js';
import {
  at,
  checkoutState,
  makeRepos,
  sampleRecord,
  sampleResult,
  type Repos,
} from '../baseline/git/support.js';

async function cli(argv: string[], cwd: string, env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runBaselineCli(['baseline', ...argv], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

function regressed(benchmark: string, seed: number, when: Date, gateKey = 'default') {
  const record: BaselineRecord = {
    ...sampleRecord(benchmark, seed, when, { gateKey }),
    verdict: 'regression',
  };
  return record;
}

/** Three records of two benchmarks on the data branch of a real origin. */
async function seededRepos(): Promise<{ repos: Repos; records: BaselineRecord[] }> {
  const repos = await makeRepos();
  const records = [
    sampleRecord('llama 8b', 1, at(1)),
    regressed('llama 8b', 2, at(2)),
    sampleRecord('qwen3-reranker', 3, at(3), { gateKey: 'nightly' }),
  ];
  const workDir = await mkdtemp(join(repos.root, 'seed-'));
  await new GitBranchStore({ repoDir: repos.checkout, workDir }).appendRecords(records);
  return { repos, records };
}

async function dataBranchFiles(repos: Repos): Promise<string[]> {
  const files = await new Git({ cwd: repos.origin }).run([
    'ls-tree',
    '-r',
    '--name-only',
    'perf-gate-data',
  ]);
  return files.split('\n').sort();
}

describe('baseline list', () => {
  it('lists every gate and benchmark of the clone origin, newest first, with paths', async () => {
    const { repos, records } = await seededRepos();
    const result = await cli(['list'], repos.checkout);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('default / llama 8b');
    expect(lines[1]).toMatch(/^ {2}created +branch +event +commit +verdict +accepted +path$/);
    expect(lines[2]).toMatch(
      /^ {2}2026-01-01 00:00:02Z {2}main +push +0000000 {2}regression {2}- +default\/llama-8b-[0-9a-f]{8}\/20260101T000002Z-0000000-1002\.json$/,
    );
    expect(lines[2]).toContain(pathOfRecord(records[1]!));
    expect(lines[3]).toContain(pathOfRecord(records[0]!));
    expect(lines[3]).toMatch(/ pass +- /);
    expect(lines[4]).toBe('');
    expect(lines[5]).toBe('nightly / qwen3-reranker');
    expect(lines[7]).toContain(pathOfRecord(records[2]!));
    expect(lines).toHaveLength(8);
    // Columns line up across groups.
    expect(lines[2]!.indexOf('default/')).toBe(lines[7]!.indexOf('nightly/'));
  });

  it('filters by gate and benchmark, limits per benchmark, and prints JSON', async () => {
    const { repos, records } = await seededRepos();
    const result = await cli(
      ['list', '--repo', repos.checkout, '--gate', 'default', '--limit', '1', '--json'],
      repos.root,
    );
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.warnings).toEqual([]);
    expect(json.source).toBe(`branch perf-gate-data of ${repos.origin}`);
    expect(json.records).toEqual([
      {
        path: pathOfRecord(records[1]!),
        gateKey: 'default',
        benchmark: 'llama 8b',
        createdAt: at(2).toISOString(),
        branch: 'main',
        event: 'push',
        commit: records[1]!.commit,
        runId: '1002',
        verdict: 'regression',
        acceptedBy: [],
      },
    ]);
    const other = await cli(['list', '--benchmark', 'qwen3-reranker'], repos.checkout);
    expect(other.stdout).toContain('nightly / qwen3-reranker');
    expect(other.stdout).not.toContain('llama');
    const none = await cli(['list', '--gate', 'nope'], repos.checkout);
    expect(none).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^No records of gate 'nope'/),
    });
  });

  it('says there are no records yet when the data branch does not exist', async () => {
    const repos = await makeRepos();
    const result = await cli(['list'], repos.checkout);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^No records yet: branch perf-gate-data of .*origin\.git does not exist/,
    );
    const json = await cli(['list', '--json', '--branch', 'other-data'], repos.checkout);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ records: [], warnings: [] });
    expect(json.stderr).toContain('no records yet: branch other-data');
  });

  it('warns about files that do not parse, naming them, and lists the rest', async () => {
    const { repos, records } = await seededRepos();
    const hand = join(repos.root, 'hand');
    const git = repos.git.in(repos.root);
    await git.run(['clone', '--quiet', '--branch', 'perf-gate-data', repos.origin, hand]);
    const broken = `${benchmarkFolder('default', 'llama 8b')}/20260101T000009Z-deadbee-1.json`;
    await writeFile(join(hand, broken), '{"result": ');
    await git.in(hand).run(['add', '.']);
    await git.in(hand).run(['commit', '--quiet', '-m', 'by hand']);
    await git.in(hand).run(['push', '--quiet', 'origin', 'perf-gate-data']);

    const result = await cli(['list'], repos.checkout);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `neuron-perf-gate: warning: ${broken}: is not valid JSON (${errorOf('{"result": ')}); skipped\n`,
    );
    for (const record of records) expect(result.stdout).toContain(pathOfRecord(record));
    const json = JSON.parse((await cli(['list', '--json'], repos.checkout)).stdout);
    expect(json.warnings).toHaveLength(1);
    expect(json.warnings[0]).toContain(broken);
  });

  it('reads another remote with --remote, given as a path relative to the cwd', async () => {
    const { repos } = await seededRepos();
    const plain = await tempDir();
    const result = await cli(['list', '--remote', '../origin.git'], join(repos.root, 'checkout'));
    expect(result.stdout).toContain('llama 8b');
    const outside = await cli(['list', '--remote', repos.origin], plain);
    expect(outside.code).toBe(0);
    expect(outside.stdout).toContain('nightly / qwen3-reranker');
  });
});

describe('baseline show', () => {
  it('prints the record and a table of its metric summaries', async () => {
    const { repos, records } = await seededRepos();
    const record = records[1]!;
    const path = pathOfRecord(record);
    const result = await cli(['show', path], repos.checkout);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(new RegExp(`^record +${path.replace(/\./g, '\\.')}$`, 'm'));
    expect(out).toMatch(/^gate +default$/m);
    expect(out).toMatch(/^benchmark +llama 8b$/m);
    expect(out).toMatch(/^created +2026-01-01T00:00:02\.000Z$/m);
    expect(out).toMatch(new RegExp(`^commit +${record.commit}$`, 'm'));
    expect(out).toMatch(/^event +push$/m);
    expect(out).toMatch(/^run id +1002$/m);
    expect(out).toMatch(/^verdict +regression$/m);
    expect(out).toMatch(/^config hash +abc123$/m);
    expect(out).toMatch(/^acceptance +-$/m);
    expect(out).toMatch(/^ {2}instanceType +inf2\.xlarge$/m);
    expect(out).toMatch(/^ {2}neuronCores +2$/m);
    expect(out).toMatch(/^metric +unit +mean +min +max +runs +p50 +p95 +p99$/m);
    const throughput = record.summary.throughput!;
    expect(out).toMatch(
      new RegExp(
        `^throughput +req/s +${throughput.mean.toFixed(2)} +${throughput.min.toFixed(2)} +${throughput.max.toFixed(2)} +3 +- +- +-$`,
        'm',
      ),
    );
    const p99 = record.summary.latency_p99!;
    expect(out).toMatch(
      new RegExp(`^latency_p99 +ms +${p99.mean.toFixed(1)} .* 3 +${p99.p50!.toFixed(1)} +`, 'm'),
    );
  });

  it('shows a sub-microsecond metric in ns, as the report does, not as 0.000 ms', async () => {
    const repos = await makeRepos();
    const base = sampleRecord('tokenize', 4, at(4));
    const record = createRecord({
      gateKey: 'default',
      result: {
        ...sampleResult('tokenize', 4),
        format: 'pytest-benchmark',
        metrics: [
          {
            id: 'latency_min',
            unit: 'ms',
            direction: 'lower-is-better',
            values: [0.0003417, 0.000342, 0.0003425],
          },
        ],
      },
      commit: base.commit,
      branch: 'main',
      event: 'push',
      runId: base.runId,
      verdict: 'pass',
      createdAt: at(4),
    });
    const workDir = await mkdtemp(join(repos.root, 'seed-'));
    await new GitBranchStore({ repoDir: repos.checkout, workDir }).appendRecords([record]);
    const result = await cli(['show', pathOfRecord(record)], repos.checkout);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^latency_min +ns +342\.1 +341\.7 +342\.5 +3 /m);
    expect(result.stdout).not.toContain('0.000');
  });

  it('prints the whole record as JSON, also for a path given with the branch', async () => {
    const { repos, records } = await seededRepos();
    const path = pathOfRecord(records[2]!);
    const result = await cli(['show', `perf-gate-data:${path}`, '--json'], repos.checkout);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.path).toBe(path);
    expect(json.acceptedBy).toEqual([]);
    expect(json.record).toEqual(records[2]);
  });

  it('says how to find record paths when the path names no record', async () => {
    const { repos } = await seededRepos();
    const result = await cli(['show', 'default/llama/nope.json'], repos.checkout);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /no record 'default\/llama\/nope\.json' in branch perf-gate-data/,
    );
    expect(result.stderr).toContain("'neuron-perf-gate baseline list'");
    const empty = await makeRepos();
    const none = await cli(['show', 'default/llama/nope.json'], empty.checkout);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/perf-gate-data .* does not exist yet, so there are no records/);
  });
});

describe('baseline accept', () => {
  it('pushes a new accepted copy to the data branch and never rewrites the original', async () => {
    const { repos, records } = await seededRepos();
    const before = await checkoutState(repos.git);
    const origin = new Git({ cwd: repos.origin });
    const tipBefore = await origin.run(['rev-parse', 'perf-gate-data']);
    const original = records[1]!;
    const path = pathOfRecord(original);
    const blobBefore = await origin.run(['rev-parse', `perf-gate-data:${path}`]);
    const started = Date.now();

    const result = await cli(
      ['accept', path, '--by', 'octocat', '--note', 'new compiler'],
      repos.checkout,
    );
    expect(result.code).toBe(0);
    const added = result.stdout.trim();
    expect(added).toMatch(
      new RegExp(
        `^${benchmarkFolder('default', 'llama 8b')}/\\d{8}T\\d{6}Z-0000000-1002-accepted\\.json$`,
      ),
    );
    expect(result.stderr).toContain(`accepted ${path} as ${added}`);

    // One new commit on top of the old tip (no force), adding one file and nothing else.
    expect(await origin.run(['rev-parse', 'perf-gate-data^'])).toBe(tipBefore);
    const diff = await origin.run(['diff', '--name-status', tipBefore, 'perf-gate-data']);
    expect(diff).toBe(`A\t${added}`);
    expect(await origin.run(['rev-parse', `perf-gate-data:${path}`])).toBe(blobBefore);
    const stored = parseRecord(await origin.run(['show', `perf-gate-data:${added}`]));
    expect(stored.acceptance).toMatchObject({
      reason: 'manual',
      by: 'octocat',
      note: 'new compiler',
      records: [path],
    });
    expect(Date.parse(stored.createdAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(stored.runId).toBe('1002-accepted');
    expect(stored.result).toEqual(original.result);
    expect(stored.summary).toEqual(original.summary);
    expect(stored.commit).toBe(original.commit);
    expect(await checkoutState(repos.git)).toBe(before);

    // The list marks both: the acceptance record and the record it accepts.
    const list = await cli(['list', '--gate', 'default'], repos.checkout);
    const line = (p: string) => list.stdout.split('\n').find((l) => l.endsWith(p)) ?? '';
    // The copy keeps the verdict it was measured with; the acceptance is what overrides it.
    expect(line(added)).toMatch(/ regression +manual +default\//);
    expect(line(path)).toMatch(/ regression +accepted +default\//);
    expect(line(pathOfRecord(records[0]!))).toMatch(/ pass +- +default\//);
    const json = JSON.parse((await cli(['list', '--json'], repos.checkout)).stdout);
    const entry = json.records.find((r: { path: string }) => r.path === path);
    expect(entry.acceptedBy).toEqual([added]);
    const shown = await cli(['show', path], repos.checkout);
    expect(shown.stdout).toMatch(new RegExp(`^accepted by +${added.replace(/\./g, '\\.')}$`, 'm'));
    const shownNew = await cli(['show', added], repos.checkout);
    expect(shownNew.stdout).toMatch(
      /^acceptance +manual at \S+Z by octocat \(new compiler\) accepting default\//m,
    );
  });

  it('names the local user when --by is not given, and writes nothing on --dry-run', async () => {
    const { repos, records } = await seededRepos();
    const path = pathOfRecord(records[0]!);
    const filesBefore = await dataBranchFiles(repos);
    const dry = await cli(['accept', path, '--dry-run'], repos.checkout, { USER: 'alice' });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/-1001-accepted\.json\n$/);
    expect(dry.stderr).toContain('dry run');
    expect(await dataBranchFiles(repos)).toEqual(filesBefore);

    const real = await cli(['accept', path], repos.checkout, { USER: 'alice' });
    expect(real.code).toBe(0);
    const show = await cli(['show', real.stdout.trim(), '--json'], repos.checkout);
    expect(JSON.parse(show.stdout).record.acceptance.by).toBe('alice');
    expect(await dataBranchFiles(repos)).toHaveLength(filesBefore.length + 1);
  });

  it('writes the accepted copy into a plain folder with --dir', async () => {
    const root = await tempDir('perf-gate-records-');
    const dir = join(root, 'records');
    const store = new FolderRecordStore(dir);
    const original = regressed('bench', 5, at(5));
    const path = await store.writeRecord(original);
    const originalText = await readFile(join(dir, path), 'utf8');

    // The record may also be named by its file path through the folder.
    const ok = await cli(
      ['accept', join('records', path), '--dir', 'records', '--note', 'ok'],
      root,
      { USER: 'bob' },
    );
    expect(ok.stderr).toContain(`accepted ${path} as`);
    expect(ok.code).toBe(0);
    const added = ok.stdout.trim();
    const written = parseRecord(await readFile(join(dir, added), 'utf8'));
    expect(written).toMatchObject({ verdict: 'regression', runId: `${original.runId}-accepted` });
    expect(written.acceptance).toMatchObject({
      reason: 'manual',
      by: 'bob',
      note: 'ok',
      records: [path],
    });
    expect(pathOfRecord(written)).toBe(added);
    expect(await readFile(join(dir, path), 'utf8')).toBe(originalText);
    const folder = await readdir(join(dir, benchmarkFolder('default', 'bench')));
    expect(folder.sort()).toEqual([path, added].map((p) => p.split('/').pop()).sort());

    const list = await cli(['list', '--dir', dir], '/');
    expect(list.stdout).toMatch(/ regression +accepted +default\//);
    expect(list.stdout).toMatch(/ regression +manual +default\//);
  });

  it('refuses an unknown record and writes nothing', async () => {
    const { repos } = await seededRepos();
    const filesBefore = await dataBranchFiles(repos);
    const result = await cli(
      ['accept', 'default/x/20260101T000000Z-0000000-1.json'],
      repos.checkout,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('baseline list');
    expect(await dataBranchFiles(repos)).toEqual(filesBefore);
  });
});

describe('baseline usage errors', () => {
  it.each([
    [[], /baseline needs a command: list, show, accept or migrate/],
    [['frobnicate'], /unknown baseline command 'frobnicate'/],
    [['list', '--limit', '0'], /--limit 0: give a whole number/],
    [['list', '--limit', 'many'], /--limit many/],
    [['list', '--dir', '.', '--repo', '.'], /--dir .* does not go with --repo/],
    [
      ['list', '--dir', '.', '--branch', 'x', '--remote', 'y'],
      /does not go with --branch, --remote/,
    ],
    [['list', 'extra'], /baseline list takes no record path/],
    [['list', '--by', 'me'], /unknown option '--by'/],
    [['show'], /baseline show needs a record path/],
    [['accept', '--dry-run'], /baseline accept needs a record path/],
    [['list', '--branch', '../evil'], /not a usable branch name/],
    [['show', '../../etc/passwd', '--dir', '.'], /not a record path/],
    [['show', '/etc/passwd', '--dir', '.'], /\/etc\/passwd is not inside --dir \./],
    [['list', '--dir', 'missing'], /--dir .*missing: no such folder/],
  ])('%j exits 2', async (argv, message) => {
    const dir = await tempDir();
    const result = await cli(argv, dir);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('says when the folder is not a clone and no remote is given', async () => {
    const result = await cli(['list'], await tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a git clone with an 'origin' remote.*--dir FOLDER/);
  });

  it('prints its help', async () => {
    const result = await cli(['list', '--help'], '/');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('baseline accept RECORD [--by NAME] [--note TEXT] [--dry-run]');
    expect(result.stdout).toContain('--dir FOLDER');
  });

  it('is told apart from the other commands by its first word', () => {
    expect(isBaselineCommand(['baseline', 'list'])).toBe(true);
    expect(isBaselineCommand(['--json', 'baseline', 'list'])).toBe(true);
    expect(isBaselineCommand(['compare', '--baseline', 'baseline'])).toBe(false);
    expect(isBaselineCommand([])).toBe(false);
  });
});

function errorOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

// `neuron-perf-gate baseline ...` as a real process, run from the TypeScript sources
// (src/cli.ts) so that it needs no rebundle: node strips the types, and the same resolve
// hook as test/baseline/git/writer-child.mjs maps `./x.js` imports to `./x.ts`.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { Git } from '../../src/baseline/git/git.js';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { parseRecord } from '../../src/baseline/record-text.js';
import { at, makeRepos, sampleRecord } from '../baseline/git/support.js';
import { ROOT, type ProcessOutcome } from '../support/bundled.js';

const TS_IMPORTS_HOOK = `
import { registerHooks } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
registerHooks({
  // \`x?raw\` imports (the dashboard's bundled assets) are the file's text, as rollup.raw-text.js makes them.
  load(url, context, nextLoad) {
    if (url.endsWith('?raw')) {
      const text = readFileSync(fileURLToPath(url.slice(0, -'?raw'.length)), 'utf8');
      return { format: 'module', source: 'export default ' + JSON.stringify(text), shortCircuit: true };
    }
    return nextLoad(url, context);
  },
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.endsWith('.js') && error?.code === 'ERR_MODULE_NOT_FOUND') {
        return nextResolve(specifier.replace(/\\.js$/, '.ts'), context);
      }
      throw error;
    }
  },
});
`;

function cli(args: string[], cwd: string): Promise<ProcessOutcome> {
  const node = [
    // Constructor parameter properties (used in src/) need more than type stripping.
    '--experimental-transform-types',
    '--disable-warning=ExperimentalWarning',
    `--import=data:text/javascript,${encodeURIComponent(TS_IMPORTS_HOOK)}`,
    join(ROOT, 'src', 'cli.ts'),
  ];
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...node, ...args],
      { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, USER: 'e2e-user' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

describe('neuron-perf-gate baseline (from source) on a real git origin', () => {
  it('lists, accepts and shows records on the data branch', async () => {
    const repos = await makeRepos();
    const empty = await cli(['baseline', 'list'], repos.checkout);
    expect(empty.stderr).toBe('');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^No records yet: branch perf-gate-data of /);

    const regressed: BaselineRecord = {
      ...sampleRecord('llama 8b', 2, at(2)),
      verdict: 'regression',
    };
    const records = [sampleRecord('llama 8b', 1, at(1)), regressed];
    const workDir = await mkdtemp(join(repos.root, 'seed-'));
    await new GitBranchStore({ repoDir: repos.checkout, workDir }).appendRecords(records);
    const path = pathOfRecord(regressed);

    const list = await cli(['baseline', 'list'], repos.checkout);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n').slice(0, 4)).toEqual([
      'default / llama 8b',
      expect.stringMatching(/^ {2}created +branch +event +commit +verdict +accepted +path$/),
      expect.stringMatching(new RegExp(` regression +- +${path.replace(/\./g, '\\.')}$`)),
      expect.stringMatching(/ pass +- +default\/.*-1001\.json$/),
    ]);

    const accept = await cli(
      ['baseline', 'accept', path, '--note', 'slower compiler'],
      repos.checkout,
    );
    expect(accept.stderr).toContain(`accepted ${path} as `);
    expect(accept.code).toBe(0);
    const added = accept.stdout.trim();
    const stored = parseRecord(
      await new Git({ cwd: repos.origin }).run(['show', `perf-gate-data:${added}`]),
    );
    expect(stored.acceptance).toMatchObject({
      reason: 'manual',
      by: 'e2e-user',
      note: 'slower compiler',
      records: [path],
    });

    const json = JSON.parse((await cli(['baseline', 'list', '--json'], repos.checkout)).stdout);
    expect(json.records.map((r: { path: string }) => r.path)).toEqual([
      added,
      path,
      pathOfRecord(records[0]!),
    ]);
    expect(json.records[1].acceptedBy).toEqual([added]);

    const show = await cli(['baseline', 'show', added], repos.checkout);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^acceptance +manual at .* by e2e-user \(slower compiler\)/m);
    expect(show.stdout).toMatch(/^latency_p99 +ms +\d/m);

    const unknown = await cli(['baseline', 'show', 'default/nope.json'], repos.checkout);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('baseline list');
  });

  it('keeps the other commands and the help on the same entry point', async () => {
    const repos = await makeRepos();
    const help = await cli(['--help'], repos.checkout);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('neuron-perf-gate baseline list');
    expect(help.stdout).toContain('neuron-perf-gate compare');
    const usage = await cli(['baseline', 'list', '--limit', 'x'], repos.checkout);
    expect(usage.code).toBe(2);
    const unknown = await cli(['frobnicate'], repos.checkout);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });
});

// What `Sandbox.hiding` hides stays hidden and where it is (issue 50): the folder shows
// empty, also inside a workspace the sandbox binds back (an Actions runner's layout), and no
// folder on the path to it can be renamed, so none can be replaced by one of the same name.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ancestorsOf, createSandbox } from '../../src/runner/sandbox.js';

let top: string;

beforeAll(async () => {
  top = await mkdtemp(join(tmpdir(), 'perf-gate-hiding-'));
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

/** A base results folder `<workspace>/out/base` holding one file, and a worktree beside. */
async function layoutOf(name: string, runner: boolean) {
  const root = join(top, name);
  const workspace = runner ? join(root, 'actions-runner', '_work', 'r', 'r') : join(root, 'r');
  const runnerTemp = join(root, 'actions-runner', '_work', '_temp');
  const hidden = join(workspace, 'out', 'base');
  const tree = join(root, 'trees', 'base-1');
  for (const dir of [hidden, tree, ...(runner ? [runnerTemp] : [])]) {
    await mkdir(dir, { recursive: true });
  }
  await writeFile(join(hidden, 'run-1.clean.json'), '{}');
  await writeFile(join(tree, 'bench.sh'), 'base');
  const env = {
    PATH: process.env.PATH,
    ...(runner ? { RUNNER_TEMP: runnerTemp, GITHUB_WORKSPACE: workspace } : {}),
  };
  return { workspace, hidden, tree, env };
}

const SCRIPT = [
  'ls -A "$1" "$2"',
  'for d in "$(dirname "$1")" "$(dirname "$2")" "$3"; do mv "$d" "$d.moved" 2>/dev/null && echo "renamed $d"; done',
  'true',
].join('\n');

describe.each(['bubblewrap', 'unshare'] as const)('Sandbox.hiding (%s)', (prefer) => {
  it.each([
    ['a plain clone', false],
    ["an Actions runner's workspace", true],
  ])(
    '%s: the hidden folders show empty and no folder above them can be renamed',
    async (name, runner) => {
      const { workspace, hidden, tree, env } = await layoutOf(
        `${prefer}-${String(runner)}`,
        runner,
      );
      const sandbox = await createSandbox({
        env,
        repositories: [],
        keep: [join(workspace, 'out')],
        prefer,
      });
      try {
        expect(sandbox.kind).toBe(prefer);
        const head = sandbox.hiding([hidden, tree]);
        const [file, args] = head.wrap(
          ['/bin/bash', '-c', SCRIPT, 'head', hidden, tree, workspace],
          workspace,
        );
        const result = spawnSync(file, args, { encoding: 'utf8' });
        expect(result.status, result.stderr).toBe(0);
        // Both listed, both empty: no file name in the listing.
        expect(result.stdout).not.toMatch(/run-1\.clean\.json|bench\.sh/);
        expect(result.stdout).not.toMatch(/renamed/);
      } finally {
        await sandbox.dispose();
      }
    },
  );
});

describe('ancestorsOf', () => {
  it('lists every folder above a path but the root, outermost first', () => {
    expect(ancestorsOf('/a/b/c')).toEqual(['/a', '/a/b']);
    expect(ancestorsOf('/a')).toEqual([]);
  });
});

// The EXIT trap the gate runs an A/B side's benchmark command behind: it records the shell
// as the command left it, keeps the command's exit status, and reads back what it wrote.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseShellRecord,
  readShellRecord,
  shellRecordPath,
  withShellRecord,
} from '../../src/ab/shell-record.js';
import { tempDir } from '../support/offline-result.js';

async function fakeVenv(root: string): Promise<string> {
  const venv = join(root, 'venv');
  await mkdir(join(venv, 'bin'), { recursive: true });
  await writeFile(
    join(venv, 'bin', 'activate'),
    `export VIRTUAL_ENV=${venv}\nexport PATH="${venv}/bin:$PATH"\n`,
  );
  await writeFile(join(venv, 'bin', 'python3'), '#!/bin/sh\necho python\n');
  await chmod(join(venv, 'bin', 'python3'), 0o755);
  return venv;
}

function run(command: string, cwd: string) {
  return spawnSync('/bin/bash', ['-c', command], {
    cwd,
    env: { PATH: '/usr/bin:/bin', HOME: cwd },
    encoding: 'utf8',
  });
}

describe('withShellRecord', () => {
  it("records the PATH, venv and python3 the command's own activate set up, after the command", async () => {
    const dir = await tempDir('perf-gate-shell-record-');
    const venv = await fakeVenv(dir);
    const path = join(dir, 'record.txt');
    const ran = run(withShellRecord(`source ${venv}/bin/activate && python3`, path), dir);
    expect(ran.stdout).toBe('python\n');
    const record = await readShellRecord(path);
    expect(record?.env.PATH).toBe(`${venv}/bin:/usr/bin:/bin`);
    expect(record?.env.VIRTUAL_ENV).toBe(venv);
    expect(record?.resolved.python3).toBe(`${venv}/bin/python3`);
    expect(record?.resolved['neuronx-cc']).toBeUndefined();
    expect(record?.cwd).toBe(dir);
  });

  it("keeps the command's exit status, and records a multi-line command's last state", async () => {
    const dir = await tempDir('perf-gate-shell-record-');
    const path = join(dir, 'record.txt');
    const ran = run(withShellRecord(`export PYTHONPATH=/x\ncd /\nexit 3`, path), dir);
    expect(ran.status).toBe(3);
    const record = await readShellRecord(path);
    expect(record?.env.PYTHONPATH).toBe('/x');
    expect(record?.env.VIRTUAL_ENV).toBeUndefined();
    expect(record?.cwd).toBe('/');
  });

  it("quotes the record's path: a folder with a quote and a space in its name", async () => {
    const dir = join(await tempDir('perf-gate-shell-record-'), "it's here");
    await mkdir(dir);
    const path = join(dir, 'record.txt');
    expect(run(withShellRecord('true', path), dir).status).toBe(0);
    expect((await readShellRecord(path))?.cwd).toBe(dir);
  });

  it('leaves no record when the command replaces its shell (exec)', async () => {
    const dir = await tempDir('perf-gate-shell-record-');
    const path = join(dir, 'record.txt');
    expect(run(withShellRecord('exec true', path), dir).status).toBe(0);
    expect(await readShellRecord(path)).toBeUndefined();
  });
});

describe('parseShellRecord', () => {
  it('keeps only the recorded variables and found commands; nothing without a folder line', () => {
    const record = parseShellRecord(
      'cwd=/w\nenv.PATH=/a:/b\nenv.SECRET=x\nwhich.python3=\nwhich.neuronx-cc=/a/neuronx-cc\n',
    );
    expect(record).toEqual({
      cwd: '/w',
      env: { PATH: '/a:/b' },
      resolved: { 'neuronx-cc': '/a/neuronx-cc' },
    });
    expect(parseShellRecord('')).toBeUndefined();
  });

  it('is kept beside the runs of its benchmark', () => {
    expect(shellRecordPath('/out/base', 'qwen reranker')).toMatch(
      /^\/out\/base\/runs\/[^/]+\/benchmark-shell\.txt$/,
    );
  });
});

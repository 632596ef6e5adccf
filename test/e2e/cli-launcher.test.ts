// dist/cli.js is the CLI's launcher: any Node.js must be able to parse it, so that an old one
// is told which version is needed rather than hitting a SyntaxError in the bundle; and it is
// a program of its own (executable, #! line), also when linked from elsewhere onto PATH.
import { execFile } from 'node:child_process';
import { readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseJs } from 'acorn';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const exec = promisify(execFile);
const LAUNCHER = CLI;
const VERSION = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version;

/** Runs the launcher under this Node.js, made to report `fakeVersion` as its version. */
async function launchAs(fakeVersion: string, args: string[]) {
  const fake = `Object.defineProperty(process.versions, 'node', { value: '${fakeVersion}' });`;
  try {
    const { stdout, stderr } = await exec(process.execPath, [
      '--import',
      `data:text/javascript,${encodeURIComponent(fake)}`,
      LAUNCHER,
      ...args,
    ]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('dist/cli.js, the launcher', () => {
  it('is plain ES5 apart from its #! line, so that any Node.js parses it', async () => {
    const source = await readFile(LAUNCHER, 'utf8');
    expect(() =>
      parseJs(source, { ecmaVersion: 5, sourceType: 'script', allowHashBang: true }),
    ).not.toThrow();
    expect(source.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('tells a Node.js older than 20 which version it needs, and exits 2', async () => {
    const old = await launchAs('18.19.1', ['--version']);
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/needs Node\.js 20 or newer, but this is Node\.js 18\.19\.1/);
    expect(old.stdout).toBe('');
  });

  it('starts the CLI on Node.js 20 and newer', async () => {
    const current = await launchAs('20.0.0', ['--version']);
    expect(current.code, current.stderr).toBe(0);
    expect(current.stdout.trim()).toBe(VERSION);
  });

  it('runs as a program, also through a symlink on PATH', async () => {
    expect((await stat(LAUNCHER)).mode & 0o111).not.toBe(0);
    const bin = await tempDir('perf-gate-bin-');
    await symlink(LAUNCHER, join(bin, 'neuron-perf-gate'));
    const { stdout } = await exec('neuron-perf-gate', ['run', '--help'], {
      cwd: bin,
      env: { ...process.env, PATH: `${bin}:${join(process.execPath, '..')}:${process.env.PATH}` },
    });
    expect(stdout).toMatch(/neuron-perf-gate run /);
  });
});

// vitest globalSetup: some tests run Debian's pytest-benchmark and numpy under
// /usr/bin/python3 (a real benchmark tool, and the reference for percentiles). On a fresh
// Debian machine they are missing: install them when we can (root with apt-get, as .ci/run
// does), else stop at once with the one command to run, before hundreds of tests fail.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PYTHON = '/usr/bin/python3';
const PACKAGES = ['python3-pytest-benchmark', 'python3-numpy'];
const INSTALL = `apt-get update && apt-get install -y ${PACKAGES.join(' ')}`;

function present(): boolean {
  if (!existsSync(PYTHON)) return false;
  return (
    spawnSync(PYTHON, ['-c', 'import pytest_benchmark, numpy'], { stdio: 'ignore' }).status === 0
  );
}

function aptGet(args: string[]): void {
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    throw new Error(
      `apt-get ${args.join(' ')} failed (exit code ${result.status}). Run: ${INSTALL}`,
    );
  }
}

export default function setup(): void {
  if (present()) return;
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canInstall) {
    throw new Error(
      `The tests need Debian's ${PACKAGES.join(' and ')} for ${PYTHON}. Run once:\n  sudo ${INSTALL}`,
    );
  }
  process.stderr.write(
    `Installing ${PACKAGES.join(', ')} for ${PYTHON} (needed by the tests)...\n`,
  );
  aptGet(['update', '-qq']);
  aptGet(['install', '-y', '-qq', ...PACKAGES]);
  if (!present())
    throw new Error(`${PACKAGES.join(', ')} installed, but ${PYTHON} cannot import them.`);
}

// vitest globalSetup: some tests run Debian packages, as real tools rather than stand-ins:
// pytest-benchmark and numpy under /usr/bin/python3 (a real benchmark tool, the reference
// for percentiles), bubblewrap (the sandbox) and chromium (the browser tests). On a fresh Debian machine they are
// missing: install them when we can (root with apt-get, as .ci/run does), else stop at once
// with the one command to run, before hundreds of tests fail one by one.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

interface Prerequisite {
  packages: string[];
  present(): boolean;
}

const PYTHON = '/usr/bin/python3';

const PREREQUISITES: Prerequisite[] = [
  {
    packages: ['python3-pytest-benchmark', 'python3-numpy'],
    present: () =>
      existsSync(PYTHON) &&
      spawnSync(PYTHON, ['-c', 'import pytest_benchmark, numpy'], { stdio: 'ignore' }).status === 0,
  },
  {
    // The sandbox the gate runs pull-request code in (test/runner/sandbox.test.ts runs
    // both: bubblewrap, and util-linux's unshare, which every Debian has).
    packages: ['bubblewrap'],
    present: () => ['/usr/bin/bwrap', '/bin/bwrap'].some((path) => existsSync(path)),
  },
  {
    packages: ['chromium'],
    // A browser named by PERF_GATE_CHROMIUM (test/support/chromium.ts) needs no package.
    present: () => existsSync(process.env.PERF_GATE_CHROMIUM ?? '/usr/bin/chromium'),
  },
];

function aptGet(args: string[], command: string): void {
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    throw new Error(
      `apt-get ${args.join(' ')} failed (exit code ${result.status}). Run: ${command}`,
    );
  }
}

export default function setup(): void {
  const missing = PREREQUISITES.filter((prerequisite) => !prerequisite.present());
  if (missing.length === 0) return;
  const packages = missing.flatMap((prerequisite) => prerequisite.packages);
  const command = `apt-get update && apt-get install -y ${packages.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canInstall) {
    throw new Error(`The tests need Debian's ${packages.join(', ')}. Run once:\n  sudo ${command}`);
  }
  process.stderr.write(`Installing ${packages.join(', ')} with apt-get (needed by the tests)...\n`);
  aptGet(['update', '-qq'], command);
  aptGet(['install', '-y', '-qq', ...packages], command);
  const still = missing.filter((prerequisite) => !prerequisite.present());
  if (still.length > 0) {
    throw new Error(`${packages.join(', ')} installed, but still not usable: ${command}`);
  }
}

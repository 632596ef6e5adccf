// vitest globalSetup: some tests run Debian packages, as real tools rather than stand-ins:
// pytest-benchmark and numpy under /usr/bin/python3 (a real benchmark tool, the reference
// for percentiles), bubblewrap (the sandbox), chromium (the browser tests) and cmark-gfm
// (GitHub's Markdown renderer, for the comment in the browser) and postgresql (the
// PostgreSQL store's tests start a server of their own). On a fresh
// Debian machine they are missing: install what is missing and nothing it merely
// recommends (root with apt-get, as .ci/run does), saying what and why first; else stop
// at once with the one command to run, before hundreds of tests fail one by one.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

interface Prerequisite {
  package: string;
  /** What the tests use it for, said before installing it. */
  why: string;
  present(): boolean;
}

const PYTHON = '/usr/bin/python3';

const imports = (module: string) => () =>
  existsSync(PYTHON) &&
  spawnSync(PYTHON, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;

const PREREQUISITES: Prerequisite[] = [
  {
    package: 'python3-pytest-benchmark',
    why: 'a real benchmark tool whose files the tests read',
    present: imports('pytest_benchmark'),
  },
  {
    package: 'python3-numpy',
    why: 'the reference the percentile tests compare with',
    present: imports('numpy'),
  },
  {
    // test/runner/sandbox.test.ts runs both bubblewrap and util-linux's unshare, which
    // every Debian has.
    package: 'bubblewrap',
    why: 'the sandbox the gate runs pull-request code in',
    present: () => ['/usr/bin/bwrap', '/bin/bwrap'].some((path) => existsSync(path)),
  },
  {
    package: 'chromium',
    why: 'the headless browser of the dashboard and chart tests',
    // A browser named by PERF_GATE_CHROMIUM (test/support/chromium.ts) needs no package.
    present: () => existsSync(process.env.PERF_GATE_CHROMIUM ?? '/usr/bin/chromium'),
  },
  {
    // Chromium only recommends a font; the charts' text needs one.
    package: 'fonts-liberation',
    why: 'a font for the text of the charts the browser draws',
    present: () => existsSync('/usr/share/fonts/truetype/liberation'),
  },
  {
    // scripts/pictures/comment-page.ts: a comment rendered as GitHub renders it, for the browser.
    package: 'cmark-gfm',
    why: "GitHub's Markdown renderer, for the tests that look at a comment in the browser",
    present: () => existsSync('/usr/bin/cmark-gfm'),
  },
  {
    // test/support/postgres.ts initdb's a throwaway cluster with the server binaries.
    package: 'postgresql',
    why: 'a real PostgreSQL server for the PostgreSQL store tests',
    present: () => {
      const root = '/usr/lib/postgresql';
      return (
        existsSync(root) &&
        readdirSync(root).some((version) => existsSync(`${root}/${version}/bin/initdb`))
      );
    },
  },
];

/** The apt-get commands that install `packages`, each prefixed (with `sudo ` for non-root). */
export function installCommand(packages: readonly string[], prefix = ''): string {
  return (
    `${prefix}apt-get update && ` +
    `${prefix}apt-get install -y --no-install-recommends ${packages.join(' ')}`
  );
}

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
  const packages = missing.map((prerequisite) => prerequisite.package);
  const reasons = missing.map((p) => `  ${p.package}: ${p.why}`).join('\n');
  const canInstall = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canInstall) {
    throw new Error(
      `The tests need Debian packages that are missing:\n${reasons}\nRun once:\n  ${installCommand(packages, 'sudo ')}`,
    );
  }
  const command = installCommand(packages);
  process.stderr.write(
    `Installing with apt-get, without recommended extras, what the tests need:\n${reasons}\n`,
  );
  aptGet(['update', '-qq'], command);
  aptGet(['install', '-y', '-qq', '--no-install-recommends', ...packages], command);
  const still = missing.filter((prerequisite) => !prerequisite.present());
  if (still.length > 0) {
    throw new Error(
      `${still.map((p) => p.package).join(', ')} installed, but still not usable: ${command}`,
    );
  }
}

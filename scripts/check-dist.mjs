// Fails when dist/ is not what a fresh bundle of src/ gives: users run dist/, so it must
// be rebuilt and committed with every change to src/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const fresh = mkdtempSync(join(tmpdir(), 'perf-gate-dist-'));
try {
  execFileSync('npx', ['rollup', '-c', 'rollup.config.js', '--silent'], {
    stdio: 'inherit',
    env: { ...process.env, PERF_GATE_BUNDLE_DIR: fresh },
  });
  const stale = [];
  for (const name of readdirSync(fresh)) {
    let committed = '';
    try {
      committed = readFileSync(join('dist', name), 'utf8');
    } catch {
      stale.push(`${name} (missing from dist/)`);
      continue;
    }
    if (committed !== readFileSync(join(fresh, name), 'utf8')) stale.push(name);
  }
  // The CLI is run as a program (npm's bin link, ./dist/cli.js): it must stay executable,
  // on disk and in git.
  if ((statSync(join('dist', 'cli.js')).mode & 0o111) === 0) stale.push('cli.js (not executable)');
  let staged = '';
  try {
    staged = execFileSync('git', ['ls-files', '--stage', '--', 'dist/cli.js'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    // Not a git checkout (an unpacked archive): only the file's own mode counts.
  }
  if (staged !== '' && !staged.startsWith('100755')) stale.push('cli.js (git mode not 100755)');
  if (stale.length > 0) {
    console.error(
      `dist/ is out of date: ${stale.join(', ')}. Run \`npm run bundle\` and commit dist/.`,
    );
    process.exit(1);
  }
  console.log('dist/ matches a fresh bundle of src/');
} finally {
  rmSync(fresh, { recursive: true, force: true });
}

// Cuts a release of the action: checks that the commit to tag is releasable (clean tree,
// dist/ a fresh bundle of src/, dist/cli.js executable, package.json at the version), tags
// it vX.Y.Z and moves the major tag (v0) to it, and with --push pushes both.
// Usage: node scripts/release.mjs X.Y.Z [--push REMOTE] [--skip-dist-check]
// The steps and the reasons: docs/release.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const USAGE = 'usage: node scripts/release.mjs X.Y.Z [--push REMOTE] [--skip-dist-check]';

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function git(...args) {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    const said = String(error.stderr ?? error.message).trim();
    return fail(`git ${args.join(' ')} failed${said ? `: ${said}` : ''}`);
  }
}

function parseArgs(argv) {
  const options = { version: undefined, remote: undefined, distCheck: true };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--push') {
      options.remote = argv[++i];
      if (!options.remote) fail(`--push needs the remote's name.\n${USAGE}`);
    } else if (arg === '--skip-dist-check') options.distCheck = false;
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (options.version === undefined && !arg.startsWith('-')) options.version = arg;
    else fail(`unknown argument '${arg}'.\n${USAGE}`);
  }
  if (options.version === undefined) fail(`which version?\n${USAGE}`);
  return options;
}

const options = parseArgs(process.argv.slice(2));
const version = options.version.replace(/^v/, '');
if (!/^\d+\.\d+\.\d+$/.test(version)) fail(`'${options.version}' is not a version like 0.2.0.`);
const tag = `v${version}`;
const majorTag = `v${version.split('.')[0]}`;

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (pkg.version !== version) {
  fail(
    `package.json says ${pkg.version}, not ${version}. Bump it first (docs/release.md):\n` +
      `  npm version ${version} --no-git-tag-version && npm run bundle && git commit -am 'Version ${version}'`,
  );
}
if (git('status', '--porcelain', '--untracked-files=no') !== '') {
  fail('the working tree has uncommitted changes: commit or stash them, then release.');
}
if (git('tag', '--list', tag) !== '') fail(`tag ${tag} exists already; releases are never moved.`);

// What users run is the committed dist/, so check the commit, not the working files.
for (const file of ['dist/index.js', 'dist/cli.js', 'action.yml', 'LICENSE']) {
  if (git('ls-files', '--', file) === '') fail(`${file} is not committed.`);
}
const cliMode = git('ls-files', '--stage', '--', 'dist/cli.js').split(/\s+/)[0];
if (cliMode !== '100755') {
  fail(
    `dist/cli.js is committed with mode ${cliMode}, not 100755: run \`npm run bundle\` and commit.`,
  );
}
if (options.distCheck) {
  // Rebuilds the bundle into a temporary folder and compares it with dist/: that takes the
  // dev dependencies, which a fresh clone does not have (npx would go looking for rollup).
  if (!existsSync(join(root, 'node_modules', '.bin', 'rollup'))) {
    fail(
      'dist/ cannot be checked against src/ without the dev dependencies (no node_modules/.bin/rollup).\n' +
        `  Install them first: npm ci   (then run this again)`,
    );
  }
  try {
    execFileSync('npm', ['run', '--silent', 'check:dist'], { cwd: root, stdio: 'inherit' });
  } catch {
    fail('`npm run check:dist` failed (its output is above); nothing was tagged.');
  }
}

const commit = git('rev-parse', 'HEAD');
git('tag', '--annotate', tag, '--message', `neuron-perf-gate ${tag}`, commit);
// The major tag is what workflows use (`@v0`): it moves to each new release of that major.
git('tag', '--force', '--annotate', majorTag, '--message', `neuron-perf-gate ${tag}`, commit);
console.log(`tagged ${commit.slice(0, 12)} as ${tag} and moved ${majorTag} to it`);

if (options.remote) {
  git('push', options.remote, `refs/tags/${tag}`);
  // Moving a tag needs a forced push of that tag alone; branches are never forced.
  git('push', '--force', options.remote, `refs/tags/${majorTag}`);
  console.log(`pushed ${tag} and ${majorTag} to ${options.remote}`);
} else {
  console.log(
    `not pushed: git push REMOTE refs/tags/${tag} && git push --force REMOTE refs/tags/${majorTag}`,
  );
}
